// SPDX-License-Identifier: MIT
// What a WebDAV server answers `pkgcloud publish`: a PROPFIND multistatus of a collection's
// members, their hrefs percent-decoded and made relative to the target's root. The first byte
// chooses the collection listed; a member is below it, never the collection itself, and
// has no "." or ".." segment (which would climb out of the root on the server).
#include "fuzz_input.hpp"
#include "publish/answers.hpp"

using namespace opskit::repo::publish;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static constexpr std::string_view k_collections[] = {"", "deb/", "deb/pool/"};
  auto [which, xml] =
      opskit::fuzz::choose(opskit::fuzz::bytes_of(data, size), std::size(k_collections));
  std::string_view collection = k_collections[which];
  auto members = parse_multistatus(xml, "/repo/", collection);
  if (!members)
    return 0;
  for (const auto& m : *members) {
    opskit::fuzz::check(m.path.starts_with(collection) && m.path != collection,
                        "a member outside the collection");
    std::string_view rest = m.path;
    while (!rest.empty()) {
      std::string_view segment = rest.substr(0, rest.find('/'));
      opskit::fuzz::check(segment != ".." && segment != ".", "a member path with a dot segment");
      rest.remove_prefix(std::min(segment.size() + 1, rest.size()));
    }
  }
  (void)unescape(xml);
  return 0;
}
