// SPDX-License-Identifier: MIT
// What an S3 endpoint answers `pkgcloud publish`: a ListObjectsV2 page, an
// InitiateMultipartUploadResult, an <Error>. The first byte chooses which parser reads the rest.
// A listed key is made relative to the prefix and is never the prefix itself. (Keys are names,
// not paths: "repo//x" is an object of its own, listed as "/x".)
#include "fuzz_input.hpp"
#include "publish/answers.hpp"

using namespace opskit::repo::publish;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto [which, xml] = opskit::fuzz::choose(opskit::fuzz::bytes_of(data, size), 3);
  switch (which) {
  case 0:
    if (auto page = parse_s3_listing(xml, "repo/"))
      for (const auto& o : page->objects)
        opskit::fuzz::check(!o.path.empty(), "the prefix itself listed as an object");
    break;
  case 1:
    if (auto id = parse_upload_id(xml))
      opskit::fuzz::check(!id->empty(), "an empty UploadId");
    break;
  default:
    (void)s3_error(xml);
  }
  return 0;
}
