// SPDX-License-Identifier: MIT
// One deb822 paragraph (a DEBIAN/control file): what parses renders to text that parses to
// the same fields.
#include "opskit/repo/format/deb/control.hpp"
#include "fuzz_input.hpp"

using namespace opskit::repo;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto stanza = parse_stanza(opskit::fuzz::bytes_of(data, size), "control");
  if (!stanza)
    return 0;
  std::string text = stanza->render();
  auto again = parse_stanza(text, "rendered");
  opskit::fuzz::check(again.has_value(), "a rendered paragraph does not parse");
  opskit::fuzz::check(again->fields().size() == stanza->fields().size(), "fields lost");
  for (std::size_t i = 0; i < stanza->fields().size(); ++i) {
    const Field &a = stanza->fields()[i], &b = again->fields()[i];
    opskit::fuzz::check(a.name == b.name && a.value == b.value, "a field changed");
    opskit::fuzz::check(stanza->find(a.name) != nullptr, "a field is not found by its name");
  }
  return 0;
}
