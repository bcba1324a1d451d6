// SPDX-License-Identifier: MIT
// A Release file as `pkgcloud verify` and the apt index's rewrite read it: its hash lists.
// Every entry read back names a path and a hash of the list's length, in hex.
#include "fuzz_input.hpp"
#include "index/apt/release_hashes.hpp"

using namespace opskit::repo;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text = opskit::fuzz::bytes_of(data, size);
  for (const char* list : {"MD5Sum", "SHA1", "SHA256", "SHA512"})
    for (const auto& [path, entry] : release_hashes(text, list))
      opskit::fuzz::check(!path.empty() && !entry.hash.empty(), "an empty path or hash");
  return 0;
}
