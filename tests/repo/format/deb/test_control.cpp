// SPDX-License-Identifier: MIT
#include <catch2/catch.hpp>

#include "opskit/repo/format/deb/control.hpp"

using opskit::repo::parse_stanza;
using opskit::repo::parse_stanzas;

TEST_CASE("deb control: fields keep their order and multi-line values byte for byte",
          "[repo][deb]") {
  const std::string text = "Package: hello\n"
                           "Version: 1.0-1\n"
                           "Architecture: amd64\n"
                           "Description: greets\n"
                           " First line.  \n"
                           " .\n"
                           "   indented  text\n"
                           "Conffiles:\n"
                           " /etc/hello.conf 0123\n";
  auto stanza = parse_stanza(text, "control");
  REQUIRE(stanza);
  REQUIRE(stanza->fields().size() == 5);
  CHECK(stanza->fields()[3].name == "Description");
  CHECK(*stanza->find("description") == "greets\n First line.  \n .\n   indented  text");
  CHECK(stanza->render() == text);
}

TEST_CASE("deb control: a value ends at its last non-blank byte, as apt-ftparchive reads it",
          "[repo][deb]") {
  auto stanza = parse_stanza("Package: hello \n"
                             "Architecture: amd64\t\n"
                             "Depends:  \n"
                             "Description: greets  \n"
                             " kept  \n"
                             " last  \n",
                             "control");
  REQUIRE(stanza);
  CHECK(*stanza->find("Package") == "hello");
  CHECK(*stanza->find("Architecture") == "amd64");
  CHECK(stanza->find("Depends")->empty());
  CHECK(*stanza->find("Description") == "greets  \n kept  \n last");
}

TEST_CASE("deb control: continuation before first field is an error", "[repo][deb]") {
  auto stanza = parse_stanza(" oops\nPackage: x\n", "x.deb: control");
  REQUIRE_FALSE(stanza);
  CHECK(stanza.error().message() ==
        "x.deb: control: line 1: continuation line before the first field");
}

TEST_CASE("deb control: duplicate fields, lines without colon and second paragraphs are errors",
          "[repo][deb]") {
  CHECK(parse_stanza("Package: a\npackage: b\n", "c").error().message() ==
        "c: line 2: duplicate field 'package'");
  CHECK(parse_stanza("Package: a\nnonsense\n", "c").error().message() ==
        "c: line 2: no ':' in a field line");
  CHECK(parse_stanza("Package: a\n\nPackage: b\n", "c").error().message() ==
        "c: more than one paragraph");
  CHECK(parse_stanza("\n\n", "c").error().message() == "c: empty");
}

TEST_CASE("deb control: a Packages file splits into paragraphs at blank lines", "[repo][deb]") {
  auto stanzas = parse_stanzas("Package: a\nVersion: 1\n\nPackage: b\nVersion: 2\n \n", "Packages");
  REQUIRE(stanzas);
  REQUIRE(stanzas->size() == 2);
  CHECK(*(*stanzas)[1].find("Version") == "2");
}
