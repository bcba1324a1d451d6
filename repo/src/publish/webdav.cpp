// SPDX-License-Identifier: MIT
#include "publish/webdav.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "opskit/file.hpp"
#include "publish/curl_api.hpp"

namespace opskit::repo::publish {

WebDavRemote::WebDavRemote(Endpoint endpoint, WebDavLogin login)
    : endpoint_(std::move(endpoint)), login_(std::move(login)) {}

void WebDavRemote::prepare(CURL* easy, const Request& r, curl_slist*& /*headers*/) const {
  const CurlApi& c = **curl_api();
  std::string url = endpoint_.base + escape_path(r.path);
  c.easy_setopt(easy, CURLOPT_URL, url.c_str());
  if (!login_.user.empty())
    c.easy_setopt(easy, CURLOPT_USERNAME, login_.user.c_str());
  if (!login_.password.empty()) {
    c.easy_setopt(easy, CURLOPT_HTTPAUTH, static_cast<long>(CURLAUTH_BASIC));
    c.easy_setopt(easy, CURLOPT_PASSWORD, login_.password.c_str());
  } else { // the user's entry for the host in ~/.netrc, when there is one
    c.easy_setopt(easy, CURLOPT_NETRC, static_cast<long>(CURL_NETRC_OPTIONAL));
    c.easy_setopt(easy, CURLOPT_NETRC_FILE, login_.netrc.c_str());
  }
}

std::vector<std::vector<Request>> WebDavRemote::before_puts(std::span<const std::string> paths) {
  std::vector<std::vector<Request>> levels;
  for (const auto& path : paths)
    for (std::size_t slash = path.find('/'), depth = 0; slash != std::string::npos;
         slash = path.find('/', slash + 1), ++depth) {
      std::string dir = path.substr(0, slash + 1);
      if (!made_.insert(dir).second)
        continue;
      if (levels.size() <= depth)
        levels.resize(depth + 1);
      Request r;
      r.method = "MKCOL";
      r.path = dir;
      r.also_ok = {405}; // there already
      levels[depth].push_back(std::move(r));
    }
  return levels;
}

Result<WebDavLogin> webdav_login(const PublishTarget& target, const std::string& home) {
  WebDavLogin login;
  login.user = target.user;
  login.netrc = home + "/.netrc";
  if (!target.password_file.empty()) {
    auto text = read_file(target.password_file);
    if (!text)
      return fail(text.error().with_context("--password-file"));
    std::string_view first = *text;
    first = first.substr(0, first.find('\n'));
    if (first.ends_with('\r'))
      first.remove_suffix(1);
    login.password = std::string(first);
  }
  return login;
}

} // namespace opskit::repo::publish
