// SPDX-License-Identifier: MIT
#include "publish/endpoint.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace opskit::repo::publish {

namespace {

// S3's rule for bucket names (3 to 63 of a-z, 0-9, '.', '-', starting and ending with a
// letter or digit), which keeps them usable in a host name.
bool bucket_ok(std::string_view b) {
  auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  return b.size() >= 3 && b.size() <= 63 && alnum(b.front()) && alnum(b.back()) &&
         std::all_of(b.begin(), b.end(), [&](char c) { return alnum(c) || c == '.' || c == '-'; });
}

std::string trimmed_slashes(std::string_view s) {
  while (s.starts_with('/'))
    s.remove_prefix(1);
  while (s.ends_with('/'))
    s.remove_suffix(1);
  return std::string(s);
}

// Where the user information of `url` ("user:password@" after "://", or at the start of one
// without a scheme) starts and ends; npos, npos when it has none. Up to the last '@': a
// password may hold '/', '?' or '#' left unescaped, which no parse can tell from a path, so an
// '@' anywhere is taken for one (a path's own is written %40).
std::pair<std::size_t, std::size_t> userinfo_of(std::string_view url) {
  std::size_t host = url.find("://");
  host = host == std::string_view::npos ? 0 : host + 3;
  std::size_t at = url.rfind('@');
  if (at == std::string_view::npos || at < host)
    return {std::string_view::npos, std::string_view::npos};
  return {host, at + 1};
}

Result<Endpoint> s3_endpoint(const PublishTarget& t, std::string_view rest,
                             const std::string& region) {
  Endpoint e;
  e.kind = Kind::s3;
  e.region = region;
  auto slash = rest.find('/');
  e.bucket = std::string(rest.substr(0, slash));
  if (!bucket_ok(e.bucket))
    return fail(fmt::format("{}: '{}' is not an S3 bucket name (3 to 63 of a-z, 0-9, '.', '-')",
                            t.url, e.bucket));
  e.prefix = slash == std::string_view::npos ? "" : trimmed_slashes(rest.substr(slash));
  if (!e.prefix.empty())
    e.prefix += '/';
  OPSKIT_TRY(no_userinfo("--endpoint", t.endpoint));
  std::string service = t.endpoint.empty() ? fmt::format("https://s3.{}.amazonaws.com", region)
                                           : trimmed_slashes(t.endpoint);
  auto scheme = service.find("://");
  if (scheme == std::string::npos ||
      !(service.starts_with("http://") || service.starts_with("https://")))
    return fail(fmt::format("--endpoint '{}': not an http:// or https:// URL", t.endpoint));
  // Path style puts the bucket in the path (what most S3-compatible servers want, and the
  // only way for a bucket with dots over https, whose host name no certificate's wildcard
  // covers: taken for one, as the AWS CLI does); the default puts it in the host name.
  bool dotted_over_tls = service.starts_with("https://") && e.bucket.find('.') != std::string::npos;
  if (t.path_style || dotted_over_tls)
    e.bucket_url = fmt::format("{}/{}/", service, e.bucket);
  else
    e.bucket_url = fmt::format("{}{}.{}/", service.substr(0, scheme + 3), e.bucket,
                               service.substr(scheme + 3));
  e.base = e.bucket_url + escape_path(e.prefix);
  return e;
}

} // namespace

bool has_dot_segment(std::string_view path) {
  for (std::size_t at = 0; at <= path.size();) {
    std::size_t end = std::min(path.find('/', at), path.size());
    std::string_view segment = path.substr(at, end - at);
    if (segment == "." || segment == "..")
      return true;
    at = end + 1;
  }
  return false;
}

std::string without_userinfo(std::string_view url) {
  auto [from, to] = userinfo_of(url);
  if (from == std::string_view::npos)
    return std::string(url);
  return fmt::format("{}{}", url.substr(0, from), url.substr(to));
}

Result<void> no_userinfo(std::string_view what, std::string_view url) {
  if (userinfo_of(url).first == std::string_view::npos)
    return {};
  std::string_view where = url.starts_with("s3://")
                               ? "S3 keys go in AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY or "
                                 "~/.aws/credentials"
                               : "give them with --user and --password-file or ~/.netrc (an "
                                 "'@' of the path is written %40)";
  return fail(fmt::format("{} {}: a user name or password in the URL would be printed and "
                          "saved; {}",
                          what, without_userinfo(url), where));
}

Result<Endpoint> endpoint_of(const PublishTarget& target, const std::string& region) {
  std::string_view url = target.url;
  OPSKIT_TRY(no_userinfo("publish target", url)); // before any message names the URL
  // Each object's path goes after the URL: after a query or a fragment, every file would be
  // put to the one resource before them.
  if (url.find_first_of("?#") != std::string_view::npos)
    return fail(fmt::format("{}: a publish target has no query (?) or fragment (#)", url));
  if (url.starts_with("s3://"))
    return s3_endpoint(target, url.substr(5), region);
  if (url.starts_with("http://") || url.starts_with("https://")) {
    Endpoint e;
    e.kind = Kind::webdav;
    e.base = std::string(url);
    if (!e.base.ends_with('/'))
      e.base += '/';
    if (std::size_t host = url.find("://") + 3; host >= url.size() || url[host] == '/')
      return fail(fmt::format("{}: no host", target.url));
    return e;
  }
  return fail(fmt::format("{}: not a publish target (s3://BUCKET/PREFIX, or the http:// or "
                          "https:// URL of a WebDAV collection)",
                          target.url));
}

namespace {

enum class Slash { keep, escaped };

std::string escape(std::string_view path, Slash slash) {
  std::string out;
  for (unsigned char c : path) {
    bool keep = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                c == '-' || c == '_' || c == '.' || c == '~' || (slash == Slash::keep && c == '/');
    if (keep)
      out += static_cast<char>(c);
    else
      out += fmt::format("%{:02X}", c);
  }
  return out;
}

} // namespace

std::string escape_path(std::string_view path) {
  return escape(path, Slash::keep);
}

std::string escape_query(std::string_view value) {
  return escape(value, Slash::escaped);
}

} // namespace opskit::repo::publish
