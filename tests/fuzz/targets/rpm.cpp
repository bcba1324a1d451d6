// SPDX-License-Identifier: MIT
// An rpm as `pkgcloud push` reads it: lead, signature header, main header and every tag dnf's
// metadata takes from it. What it accepts must survive the database's JSON round trip.
#include "opskit/repo/format/rpm/rpm.hpp"
#include "fuzz_input.hpp"

using namespace opskit::repo;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto rpm = read_rpm(opskit::fuzz::bytes_of(data, size), "fuzz.rpm");
  if (!rpm)
    return 0;
  opskit::fuzz::check(rpm->header_start <= rpm->header_end && rpm->header_end <= size,
                      "main header outside the file");
  opskit::fuzz::check(rpm_file_name(*rpm).find('/') == std::string::npos, "file name holds /");
  std::string json = rpm_to_json(*rpm);
  auto back = rpm_from_json(json);
  opskit::fuzz::check(back && rpm_to_json(*back) == json, "database JSON does not read back");
  return 0;
}
