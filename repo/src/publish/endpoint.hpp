// SPDX-License-Identifier: MIT
#pragma once

// A publish target's URL read: the kind of server, and the base URL every object's path is put
// after. Not installed.

#include <string>
#include <string_view>

#include "opskit/error.hpp"
#include "opskit/repo/publish.hpp"

namespace opskit::repo::publish {

enum class Kind { s3, webdav };

struct Endpoint {
  Kind kind = Kind::s3;
  std::string bucket;     // S3 only
  std::string prefix;     // S3: the key prefix, "" or ending in '/'
  std::string base;       // what an object's escaped path is appended to, ending in '/'
  std::string bucket_url; // S3 only: the bucket's, which a listing is asked of
  std::string region;     // S3 only: the region requests are signed for
};

// Reads `target.url` with its S3 settings (`region` already chosen); the error names the URL
// and what is wrong with it.
Result<Endpoint> endpoint_of(const PublishTarget& target, const std::string& region);

// `url` without the user and password it may carry ("https://u:p@host/x" -> "https://host/x"):
// what a message shows of it.
std::string without_userinfo(std::string_view url);
// Refuses a URL with a user or password in it, which would be printed and saved with the
// target; the message names `what` and the URL without them.
Result<void> no_userinfo(std::string_view what, std::string_view url);

// Whether `path` has a "." or ".." segment: below the root as text, outside it on a server.
bool has_dot_segment(std::string_view path);

// `path` with each segment percent-encoded as S3 and WebDAV want it: unreserved characters
// and '/' kept.
std::string escape_path(std::string_view path);
// `value` percent-encoded for a query string, '/' too, as SigV4's canonical query wants it.
std::string escape_query(std::string_view value);

} // namespace opskit::repo::publish
