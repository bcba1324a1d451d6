// SPDX-License-Identifier: MIT
// primary.xml(.gz) as `pkgcloud verify` reads it: gunzipped when it is gzip, then the location
// and size of each <package>.
#include "fuzz_input.hpp"
#include "opskit/repo/codec/compress.hpp"
#include "opskit/repo/index/yum/repomd.hpp"

using namespace opskit::repo;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text = opskit::fuzz::bytes_of(data, size);
  std::string unpacked;
  if (text.starts_with("\x1f\x8b")) {
    auto xml = gzip_decompress(text, 16u << 20);
    if (!xml)
      return 0;
    unpacked = std::move(*xml);
    text = unpacked;
  }
  if (auto locations = parse_primary_locations(text))
    for (const auto& l : *locations)
      opskit::fuzz::check(!l.href.empty(), "a package without a location");
  return 0;
}
