// SPDX-License-Identifier: MIT
// repomd.xml as `pkgcloud verify` reads it: its <data> entries. What it reads, written again
// and read back, is the same list.
#include "opskit/repo/index/yum/repomd.hpp"
#include "fuzz_input.hpp"

using namespace opskit::repo;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto entries = parse_repomd(opskit::fuzz::bytes_of(data, size));
  if (!entries)
    return 0;
  auto text = write_repomd(*entries, 0);
  if (!text)
    return 0; // libxml2 refuses to write what is not text (invalid UTF-8 in an attribute)
  auto back = parse_repomd(*text);
  opskit::fuzz::check(back && back->size() == entries->size(), "repomd.xml does not read back");
  for (std::size_t i = 0; i < entries->size(); ++i) {
    const RepomdEntry &a = (*entries)[i], &b = (*back)[i];
    opskit::fuzz::check(a.type == b.type && a.location == b.location && a.checksum == b.checksum &&
                            a.open_checksum == b.open_checksum && a.size == b.size &&
                            a.open_size == b.open_size,
                        "a repomd.xml entry changed");
  }
  return 0;
}
