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
  std::string url = r.url.empty() ? endpoint_.base + escape_path(r.path) : r.url;
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

void WebDavRemote::holds(std::span<const std::string> paths) {
  for (const auto& path : paths)
    for (auto slash = path.find('/'); slash != std::string::npos; slash = path.find('/', slash + 1))
      made_.insert(path.substr(0, slash + 1));
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

Result<std::vector<Listed>> WebDavRemote::list(Transfer& transfer) const {
  std::string_view base = endpoint_.base;
  auto root = unescape(base.substr(std::min(base.find('/', base.find("://") + 3), base.size())));
  if (!root)
    return fail(fmt::format("{}: a malformed %-escape", endpoint_.base));
  std::vector<Listed> files;
  std::vector<std::string> level{""}; // collections to list, one PROPFIND each, a level at once
  for (int depth = 0; !level.empty(); ++depth) {
    if (depth == 64)
      return fail(fmt::format("{}: collections nested more than 64 deep", endpoint_.base));
    std::vector<Request> asks;
    for (const auto& dir : level) {
      Request r;
      r.method = "PROPFIND";
      r.path = dir;
      r.headers = {"Depth: 1"};
      asks.push_back(std::move(r));
    }
    OPSKIT_TRY_ASSIGN(auto answers, transfer.run(asks));
    std::vector<std::string> next;
    for (std::size_t i = 0; i < answers.size(); ++i) {
      OPSKIT_TRY_ASSIGN(auto members, parse_multistatus(answers[i].body, *root, level[i]));
      for (auto& m : members)
        if (m.collection)
          next.push_back(std::move(m.path));
        else
          files.push_back(std::move(m));
    }
    level = std::move(next);
  }
  return files;
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
