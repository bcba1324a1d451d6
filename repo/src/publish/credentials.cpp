// SPDX-License-Identifier: MIT
#include "publish/credentials.hpp"

#include <fmt/format.h>

#include "opskit/file.hpp"
#include "opskit/text.hpp"

namespace opskit::repo::publish {

std::optional<std::string> ini_value(std::string_view text, std::string_view section,
                                     std::string_view key) {
  bool in_section = false;
  while (!text.empty()) {
    auto nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    if (line.ends_with('\r')) // a file written on Windows
      line.remove_suffix(1);
    line = trim(line);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    if (line.empty() || line[0] == '#' || line[0] == ';')
      continue;
    if (line.front() == '[' && line.back() == ']') {
      in_section = trim(line.substr(1, line.size() - 2)) == section;
      continue;
    }
    auto eq = line.find('=');
    if (in_section && eq != std::string_view::npos && trim(line.substr(0, eq)) == key)
      return std::string(trim(line.substr(eq + 1)));
  }
  return std::nullopt;
}

namespace {

std::string aws_file(const Variables& variables, std::string_view variable, std::string_view name) {
  if (auto path = variables(variable); path && !path->empty())
    return *path;
  return fmt::format("{}/.aws/{}", variables("HOME").value_or(""), name);
}

// The region of `profile` in the config file, whose sections are "[profile NAME]" but for
// "[default]".
std::optional<std::string> profile_region(const Variables& variables, const std::string& profile) {
  auto config = read_file(aws_file(variables, "AWS_CONFIG_FILE", "config"));
  if (!config)
    return std::nullopt;
  return ini_value(*config, profile == "default" ? profile : "profile " + profile, "region");
}

} // namespace

Result<S3Credentials> s3_credentials(const PublishTarget& target, const Variables& variables) {
  S3Credentials c;
  std::string profile =
      !target.profile.empty() ? target.profile : variables("AWS_PROFILE").value_or("");
  auto key = variables("AWS_ACCESS_KEY_ID");
  auto secret = variables("AWS_SECRET_ACCESS_KEY");
  // The environment's keys beat AWS_PROFILE, not --profile, as with the AWS CLI: a job's
  // short-lived keys win over the profile its image names.
  if (target.profile.empty() && key && secret && !key->empty() && !secret->empty()) {
    c.access_key = *key;
    c.secret_key = *secret;
    c.session_token = variables("AWS_SESSION_TOKEN").value_or("");
  } else {
    if (profile.empty())
      profile = "default";
    std::string file = aws_file(variables, "AWS_SHARED_CREDENTIALS_FILE", "credentials");
    auto text = read_file(file);
    if (!text)
      return fail(fmt::format("no S3 credentials: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY "
                              "are not set, and {} cannot be read ({})",
                              file, text.error().message()));
    auto id = ini_value(*text, profile, "aws_access_key_id");
    auto secret_key = ini_value(*text, profile, "aws_secret_access_key");
    if (!id || !secret_key)
      return fail(fmt::format("{}: profile '{}' has no aws_access_key_id and "
                              "aws_secret_access_key",
                              file, profile));
    c.access_key = *id;
    c.secret_key = *secret_key;
    c.session_token = ini_value(*text, profile, "aws_session_token").value_or("");
  }
  if (!target.region.empty())
    c.region = target.region;
  else if (auto r = variables("AWS_REGION"); r && !r->empty())
    c.region = *r;
  else if (auto d = variables("AWS_DEFAULT_REGION"); d && !d->empty())
    c.region = *d;
  else
    c.region =
        profile_region(variables, profile.empty() ? "default" : profile).value_or("us-east-1");
  return c;
}

} // namespace opskit::repo::publish
