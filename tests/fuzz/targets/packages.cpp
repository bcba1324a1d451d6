// SPDX-License-Identifier: MIT
// A Packages file as `pkgcloud rescan` reads it back: paragraphs separated by blank lines, and
// the names, versions and relations in them as the index checks them. dpkg's version order
// must be an order: antisymmetric, and reflexive on every version. And as a rewrite reads its
// last Packages back (packages_stanzas): stanzas within the text, each with its identity.
#include "fuzz_input.hpp"
#include "opskit/repo/format/deb/deb.hpp"
#include "opskit/repo/format/version.hpp"
#include "opskit/repo/index/apt/suite.hpp"

using namespace opskit::repo;

namespace {

void check_order(std::string_view a, std::string_view b) {
  int ab = compare_deb_versions(a, b), ba = compare_deb_versions(b, a);
  opskit::fuzz::check((ab < 0) == (ba > 0) && (ab == 0) == (ba == 0),
                      "dpkg version order is not antisymmetric");
  opskit::fuzz::check(compare_deb_versions(a, a) == 0, "a version differs from itself");
}

void check_read_back(std::string_view text) {
  auto stanzas = packages_stanzas(text);
  if (!stanzas)
    return;
  for (const auto& s : *stanzas) {
    opskit::fuzz::check(s.text.data() >= text.data() &&
                            s.text.data() + s.text.size() <= text.data() + text.size(),
                        "a stanza outside the text");
    opskit::fuzz::check(s.text.ends_with('\n') && !s.name.empty() && !s.version.empty() &&
                            !s.arch.empty(),
                        "a stanza without its end or its identity");
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  check_read_back(opskit::fuzz::bytes_of(data, size));
  auto stanzas = parse_stanzas(opskit::fuzz::bytes_of(data, size), "Packages");
  if (!stanzas)
    return 0;
  const std::string* previous = nullptr;
  for (const auto& stanza : *stanzas) {
    if (const auto* name = stanza.find("Package"))
      (void)check_deb_name(*name);
    if (const auto* arch = stanza.find("Architecture"))
      (void)check_deb_architecture(*arch);
    for (const char* relation : {"Depends", "Pre-Depends", "Provides", "Breaks", "Conflicts"})
      if (const auto* value = stanza.find(relation))
        (void)check_deb_relations(*value);
    const auto* version = stanza.find("Version");
    if (version == nullptr)
      continue;
    (void)check_deb_version(*version);
    (void)strip_epoch(*version);
    if (previous != nullptr)
      check_order(*previous, *version);
    previous = version;
  }
  return 0;
}
