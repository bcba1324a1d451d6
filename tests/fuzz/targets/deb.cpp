// SPDX-License-Identifier: MIT
// A .deb as `pkgcloud push` reads it: the ar archive, its compressed control.tar, the control
// paragraph and every check on its fields. What it accepts must name a pool file that stays
// below the pool and whose control paragraph reads back as the same paragraph.
#include "opskit/repo/format/deb/deb.hpp"
#include "fuzz_input.hpp"

using namespace opskit::repo;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto deb = read_deb(opskit::fuzz::bytes_of(data, size), "fuzz.deb");
  if (!deb)
    return 0;
  std::string pool = deb_pool_path(*deb, "main");
  opskit::fuzz::check(pool.find("..") == std::string::npos, "pool path holds ..");
  opskit::fuzz::check(deb_file_name(*deb).size() <= 255, "pool file name past 255 bytes");
  auto again = parse_stanza(deb->control.render(), "rendered");
  opskit::fuzz::check(again && again->render() == deb->control.render(),
                      "control paragraph does not read back");
  return 0;
}
