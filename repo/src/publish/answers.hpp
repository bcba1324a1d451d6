// SPDX-License-Identifier: MIT
#pragma once

// What a target answers, read: an S3 ListObjectsV2 page, a multipart upload's id and outcome,
// and a WebDAV PROPFIND multistatus. All come from the network, so nothing in them is trusted.
// Not installed.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "opskit/error.hpp"

namespace opskit::repo::publish {

struct Listed {
  std::string path; // relative to the target's root, unescaped
  std::uint64_t size = 0;
  bool collection = false; // WebDAV: a directory, to list in turn
};

struct S3Page {
  std::vector<Listed> objects;
  std::string next; // the continuation token; empty on the last page
};

// A ListObjectsV2 result of keys under `prefix` (which each key's path is made relative to).
Result<S3Page> parse_s3_listing(std::string_view xml, std::string_view prefix);

// The UploadId of an InitiateMultipartUploadResult.
Result<std::string> parse_upload_id(std::string_view xml);
// An S3 <Error> document (which CompleteMultipartUpload may send with status 200): its code
// ("InternalError") and message; nothing when `xml` is not one.
struct S3Error {
  std::string code, message;
};
std::optional<S3Error> s3_error(std::string_view xml);

// A multistatus of the members of a collection; hrefs (absolute paths or URLs) are made
// relative to `root`, the target's path ("/repo/"); the collection itself is left out. Fails
// on an href outside `root` or with a "." or ".." segment, escaped or not.
Result<std::vector<Listed>> parse_multistatus(std::string_view xml, std::string_view root,
                                              std::string_view collection);

// `text` with its %XX escapes decoded; nothing when one is malformed.
std::optional<std::string> unescape(std::string_view text);

} // namespace opskit::repo::publish
