// SPDX-License-Identifier: MIT
#pragma once

// An S3 bucket (AWS, or a store that speaks its API): objects under a prefix, each request
// signed with AWS Signature Version 4 by libcurl, the body's SHA-256 signed with it and its
// MD5 sent for the store to check. Not installed.

#include "publish/credentials.hpp"
#include "publish/transfer.hpp"

namespace opskit::repo::publish {

// The size of the parts of a multipart upload of `size` bytes: 16 MiB, or more, in whole MiB, for
// a file of more than S3's 10,000 parts of that (156.25 GiB).
std::uint64_t part_size(std::uint64_t size);

class S3Remote final : public Remote {
public:
  // Files larger than `multipart_threshold` go as multipart uploads (0: 64 MiB); it must lie
  // within S3's bounds: checked by open_remote.
  S3Remote(Endpoint endpoint, S3Credentials credentials, std::uint64_t multipart_threshold);
  void prepare(CURL* easy, const Request& r, curl_slist*& headers) const override;
  std::string name() const override;
  Result<std::vector<Listed>> list(Transfer& transfer) const override;
  // Files over the threshold go in parts (part_size), sent at once (s3_multipart.cpp).
  bool in_parts(const Request& r) const override;
  Result<std::vector<Request>> parts_of(const Request& whole) const override;
  Result<SentParts> put_parts(Transfer& transfer, const Request& whole,
                              std::vector<Request> parts) const override;

private:
  Request abort_request(const Request& whole, const std::string& id) const;

  Endpoint endpoint_;
  S3Credentials credentials_;
  std::uint64_t multipart_threshold_;
  std::string sigv4_; // "aws:amz:<region>:s3"
};

} // namespace opskit::repo::publish
