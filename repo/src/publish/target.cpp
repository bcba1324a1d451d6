// SPDX-License-Identifier: MIT
#include "publish/target.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "publish/curl_api.hpp"
#include "publish/endpoint.hpp"
#include "publish/s3.hpp"
#include "publish/webdav.hpp"

namespace opskit::repo {

std::optional<std::string> multipart_threshold_problem(std::uint64_t bytes) {
  if (bytes >= k_multipart_threshold_min && bytes <= k_multipart_threshold_max)
    return std::nullopt;
  return fmt::format("{} bytes: S3 takes from 5 MiB ({}) to 5 GiB ({})", bytes,
                     k_multipart_threshold_min, k_multipart_threshold_max);
}

} // namespace opskit::repo

namespace opskit::repo::publish {

Result<OpenRemote> open_remote(const PublishTarget& target, const Variables& variables) {
  OpenRemote open;
  open.ca_file = target.ca_file;
  if (std::string_view(target.url).starts_with("s3://")) {
    if (auto problem = target.multipart_threshold == 0
                           ? std::nullopt // not set: the default
                           : multipart_threshold_problem(target.multipart_threshold))
      return fail("--multipart-threshold " + *problem);
    OPSKIT_TRY_ASSIGN(const CurlApi* curl, curl_api());
    if (curl->version < k_curl_for_s3)
      return fail(fmt::format("S3 needs libcurl 7.87 or later, which signs the body's SHA-256 "
                              "into AWS Signature Version 4; this one is {}",
                              curl->version_text));
    OPSKIT_TRY_ASSIGN(auto credentials, s3_credentials(target, variables));
    OPSKIT_TRY_ASSIGN(auto endpoint, endpoint_of(target, credentials.region));
    if (open.ca_file.empty())
      open.ca_file = variables("AWS_CA_BUNDLE").value_or("");
    open.remote = std::make_unique<S3Remote>(std::move(endpoint), std::move(credentials),
                                             target.multipart_threshold);
    return open;
  }
  OPSKIT_TRY_ASSIGN(auto endpoint, endpoint_of(target, ""));
  OPSKIT_TRY_ASSIGN(auto login, webdav_login(target, variables("HOME").value_or("")));
  open.remote = std::make_unique<WebDavRemote>(std::move(endpoint), std::move(login));
  return open;
}

bool target_name_ok(std::string_view name) {
  return !name.empty() && name.size() <= 64 && name != "." && name != ".." &&
         std::all_of(name.begin(), name.end(), [](char c) {
           return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
                  c == '-';
         });
}

std::string target_json(const PublishTarget& t) {
  nlohmann::ordered_json j = {{"url", t.url}};
  auto put = [&](const char* key, const std::string& value) {
    if (!value.empty())
      j[key] = value;
  };
  put("endpoint", t.endpoint);
  put("region", t.region);
  put("profile", t.profile);
  if (t.path_style)
    j["path_style"] = true;
  if (t.multipart_threshold != 0)
    j["multipart_threshold"] = t.multipart_threshold;
  put("user", t.user);
  put("password_file", t.password_file);
  put("ca_file", t.ca_file);
  return j.dump();
}

Result<PublishTarget> parse_target(std::string_view json) {
  auto j = nlohmann::json::parse(json, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("url") || !j["url"].is_string())
    return fail("a saved target that is not a JSON object with a url");
  PublishTarget t;
  auto get = [&](const char* key, std::string& into) {
    if (j.contains(key) && j[key].is_string())
      into = j[key].get<std::string>();
  };
  get("url", t.url);
  get("endpoint", t.endpoint);
  get("region", t.region);
  get("profile", t.profile);
  t.path_style = j.contains("path_style") && j["path_style"] == true;
  if (j.contains("multipart_threshold") && j["multipart_threshold"].is_number_unsigned())
    t.multipart_threshold = j["multipart_threshold"].get<std::uint64_t>();
  get("user", t.user);
  get("password_file", t.password_file);
  get("ca_file", t.ca_file);
  return t;
}

} // namespace opskit::repo::publish
