// SPDX-License-Identifier: MIT
#include "publish/webdav.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "opskit/file.hpp"
#include "publish/curl_api.hpp"

namespace opskit::repo::publish {

WebDavRemote::WebDavRemote(Endpoint endpoint, WebDavLogin login)
    : endpoint_(std::move(endpoint)), login_(std::move(login)) {}

namespace {

// `url` with `user` before its host: libcurl looks up that login's password in ~/.netrc then,
// where a user name given by CURLOPT_USERNAME goes without one.
std::string with_user(std::string_view url, std::string_view user) {
  std::size_t host = url.find("://") + 3;
  return fmt::format("{}{}@{}", url.substr(0, host), escape_query(user), url.substr(host));
}

} // namespace

void WebDavRemote::prepare(CURL* easy, const Request& r, curl_slist*& /*headers*/) const {
  const CurlApi& c = **curl_api();
  std::string url = r.url.empty() ? endpoint_.base + escape_path(r.path) : r.url;
  if (!login_.password.empty()) {
    c.easy_setopt(easy, CURLOPT_HTTPAUTH, static_cast<long>(CURLAUTH_BASIC));
    c.easy_setopt(easy, CURLOPT_USERNAME, login_.user.c_str());
    c.easy_setopt(easy, CURLOPT_PASSWORD, login_.password.c_str());
  } else { // the user's entry for the host in ~/.netrc, when there is one
    if (!login_.user.empty())
      url = with_user(url, login_.user);
    c.easy_setopt(easy, CURLOPT_NETRC, static_cast<long>(CURL_NETRC_OPTIONAL));
    c.easy_setopt(easy, CURLOPT_NETRC_FILE, login_.netrc.c_str());
  }
  c.easy_setopt(easy, CURLOPT_URL, url.c_str());
}

void WebDavRemote::holds(std::span<const std::string> paths) {
  for (const auto& path : paths)
    for (auto slash = path.find('/'); slash != std::string::npos; slash = path.find('/', slash + 1))
      made_.insert(path.substr(0, slash + 1));
}

namespace {

// What a server answers a PUT into a collection that is not there: 409 Conflict (RFC 4918,
// 9.7.1; Apache's mod_dav), 404 (some), 500 (nginx's dav module without create_full_put_path).
// Taken as answers where they may mean that, not retried: the PUT goes again after its MKCOLs.
constexpr long k_no_collection[] = {409, 404, 500};

bool is_no_collection(long status) {
  return std::find(std::begin(k_no_collection), std::end(k_no_collection), status) !=
         std::end(k_no_collection);
}

void accept_no_collection(Request& r) {
  r.also_ok.insert(r.also_ok.end(), std::begin(k_no_collection), std::end(k_no_collection));
}

std::string_view collection_of(std::string_view path) {
  auto slash = path.rfind('/');
  return slash == std::string_view::npos ? std::string_view() : path.substr(0, slash + 1);
}

} // namespace

std::vector<std::vector<Request>> WebDavRemote::mkcols(std::span<const Request> puts) {
  std::vector<std::vector<Request>> levels;
  for (const auto& put : puts) {
    const std::string& path = put.path;
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
  }
  return levels;
}

Result<void> WebDavRemote::probe(Transfer& transfer, std::vector<Request>& puts,
                                 const std::function<void()>& step) {
  auto first = std::find_if(puts.begin(), puts.end(), [&](const Request& r) {
    auto dir = collection_of(r.path);
    return !dir.empty() && !made_.contains(std::string(dir));
  });
  if (first == puts.end())
    return {}; // every collection is there: nothing to learn yet
  Request alone = *first;
  accept_no_collection(alone);
  OPSKIT_TRY_ASSIGN(auto answer, transfer.run({&alone, 1}));
  if (is_no_collection(answer[0].status)) {
    collections_ = Collections::need_mkcol;
    return {};
  }
  collections_ = Collections::made_by_put;
  puts.erase(first);
  if (step)
    step();
  return {};
}

Result<Response> WebDavRemote::put_at_root(Transfer& transfer, const Request& put) {
  Request first = put;
  accept_no_collection(first);
  OPSKIT_TRY_ASSIGN(auto answer, transfer.run({&first, 1}));
  if (!is_no_collection(answer[0].status))
    return std::move(answer[0]);
  Request mkcol;
  mkcol.method = "MKCOL";
  mkcol.also_ok = {405}; // there already
  OPSKIT_TRY(transfer.run({&mkcol, 1}));
  OPSKIT_TRY_ASSIGN(answer, transfer.run({&put, 1}));
  return std::move(answer[0]);
}

Result<void> WebDavRemote::put_all(Transfer& transfer, std::vector<Request> puts,
                                   const std::function<void()>& step) {
  if (collections_ == Collections::unknown)
    OPSKIT_TRY(probe(transfer, puts, step));
  std::function<void()> counted = step;
  if (collections_ == Collections::made_by_put) {
    for (auto& r : puts)
      accept_no_collection(r);
    OPSKIT_TRY_ASSIGN(auto answers, transfer.run(puts, step));
    std::vector<Request> again; // as they were: their failures count from here
    for (std::size_t i = 0; i < puts.size(); ++i)
      if (is_no_collection(answers[i].status)) {
        puts[i].also_ok.resize(puts[i].also_ok.size() - std::size(k_no_collection));
        again.push_back(std::move(puts[i]));
      }
    if (again.empty())
      return {};
    collections_ = Collections::need_mkcol;
    puts = std::move(again);
    counted = {}; // their steps are taken
  }
  for (auto& level : mkcols(puts))
    OPSKIT_TRY(transfer.run(level));
  OPSKIT_TRY(transfer.run(puts, counted));
  return {};
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
    if (target.user.empty())
      return fail("--password-file: give the user it is the password of with --user");
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
