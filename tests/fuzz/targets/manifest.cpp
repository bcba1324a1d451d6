// SPDX-License-Identifier: MIT
// The manifest a publish target holds (JSON another tool or a damaged upload may have left):
// what parses writes back to a manifest that parses to the same entries.
#include "publish/manifest.hpp"
#include "fuzz_input.hpp"

using namespace opskit::repo::publish;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto manifest = parse_manifest(opskit::fuzz::bytes_of(data, size));
  if (!manifest)
    return 0;
  auto back = parse_manifest(manifest_json(*manifest));
  opskit::fuzz::check(back && *back == *manifest, "the manifest does not read back");
  return 0;
}
