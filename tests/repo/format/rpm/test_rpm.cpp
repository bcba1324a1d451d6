// SPDX-License-Identifier: MIT
#include <catch2/catch.hpp>

#include <cstdint>
#include <map>

#include "opskit/repo/codec/digest.hpp"
#include "opskit/repo/format/rpm/rpm.hpp"
#include "rpm_builder.hpp"

using namespace opskit::repo;
using opskit::test::make_rpm;
using opskit::test::RpmTag;

namespace {

std::vector<RpmTag> basic() {
  return {{1000, 6, {"hello"}, {}},
          {1001, 6, {"1.0"}, {}},
          {1002, 6, {"1.el9"}, {}},
          {1004, 9, {"Greets & <waves>"}, {}},
          {1022, 6, {"x86_64"}, {}},
          {1047, 8, {"hello", "hello(x86-64)"}, {}},
          {1112, 4, {}, {8, 8}},
          {1113, 8, {"1.0-1.el9", "1.0-1.el9"}, {}},
          {1048, 4, {}, {0, 16777226, 1 << 9}},
          {1049, 8, {"libc.so.6()(64bit)", "rpmlib(CompressedFileNames)", "/bin/sh"}, {}},
          {1050, 8, {"", "3.0.4-1", ""}, {}},
          {1030, 4, {}, {040755, 0100644}},
          {1037, 4, {}, {0, 64}},
          {1116, 4, {}, {0, 1}},
          {1117, 8, {"hello", "hello.log"}, {}},
          {1118, 8, {"/usr/share/", "/var/log/"}, {}}};
}

} // namespace

TEST_CASE("rpm: name, EVR, provides and requires come from the main header", "[repo][rpm]") {
  auto r = read_rpm(make_rpm(basic()), "hello.rpm");
  REQUIRE(r);
  CHECK(r->name == "hello");
  CHECK(r->evr() == "1.0-1.el9");
  CHECK(r->epoch.empty());
  CHECK(r->arch == "x86_64");
  CHECK(r->summary == "Greets & <waves>");
  REQUIRE(r->provides.size() == 2);
  CHECK(r->provides[1].name == "hello(x86-64)");
  CHECK(r->provides[1].flags == "EQ");
  CHECK(r->provides[1].epoch == "0");
  CHECK(r->provides[1].version == "1.0");
  CHECK(r->provides[1].release == "1.el9");
  // rpmlib() requirements are rpm's own and stay out; SCRIPT_PRE makes pre="1"
  REQUIRE(r->requirements.size() == 2);
  CHECK(r->requirements[0].name == "libc.so.6()(64bit)");
  CHECK_FALSE(r->requirements[0].pre);
  CHECK(r->requirements[1].name == "/bin/sh");
  CHECK(r->requirements[1].pre);
}

TEST_CASE("rpm: files join dirnames and basenames, and directories and ghosts are told apart",
          "[repo][rpm]") {
  auto r = read_rpm(make_rpm(basic()), "hello.rpm");
  REQUIRE(r);
  REQUIRE(r->files.size() == 2);
  CHECK(r->files[0].path == "/usr/share/hello");
  CHECK(r->files[0].type == RpmFileType::dir);
  CHECK(r->files[1].path == "/var/log/hello.log");
  CHECK(r->files[1].type == RpmFileType::ghost);
}

TEST_CASE("rpm: a %ghost %dir is a directory, as createrepo_c tells it", "[repo][rpm]") {
  auto tags = basic();
  for (auto& tag : tags)
    if (tag.tag == 1037)
      tag.numbers = {64, 64}; // FILEFLAGS: both %ghost
  auto r = read_rpm(make_rpm(tags), "hello.rpm");
  REQUIRE(r);
  REQUIRE(r->files.size() == 2);
  CHECK(r->files[0].type == RpmFileType::dir);
  CHECK(r->files[1].type == RpmFileType::ghost);
}

TEST_CASE("rpm: a file longer or shorter than its signature header says is refused",
          "[repo][rpm]") {
  auto sha256 = [](std::string_view bytes) { return opskit::repo::sha256_hex(bytes); };
  std::string bytes = opskit::test::make_built_rpm(basic(), sha256);
  REQUIRE(read_rpm(bytes, "hello.rpm"));
  auto padded = read_rpm(bytes + std::string(20, 'x'), "hello.rpm");
  REQUIRE_FALSE(padded);
  CHECK(padded.error().message().starts_with("hello.rpm: not a whole rpm: its header and payload "
                                             "take "));
}

TEST_CASE("rpm: source or binary is decided as rpm does when neither tag says so", "[repo][rpm]") {
  // rpmbuild -bs's layout without RPMTAG_SOURCEPACKAGE: the spec and the sources in one
  // directory with an empty name, and no SOURCERPM
  auto source = basic();
  source.resize(4);
  source.push_back({1022, 6, {"x86_64"}, {}});
  source.push_back({1030, 4, {}, {0100644, 0100644}});
  source.push_back({1116, 4, {}, {0, 0}});
  source.push_back({1117, 8, {"hello.spec", "hello-1.0.tar.gz"}, {}});
  source.push_back({1118, 8, {""}, {}});
  auto r = read_rpm(make_rpm(source), "hello.src.rpm");
  REQUIRE(r);
  CHECK(r->arch == "src");
  CHECK(rpm_file_name(*r) == "hello-1.0-1.el9.src.rpm");
  // SOURCERPM names the source a binary package came from, whatever its file list
  auto binary = source;
  binary.insert(binary.begin() + 5, {1044, 6, {"hello-1.0-1.el9.src.rpm"}, {}});
  r = read_rpm(make_rpm(binary), "hello.rpm");
  REQUIRE(r);
  CHECK(r->arch == "x86_64");
  // SOURCEPACKAGE marks a source package, whatever its file list
  auto marked = basic();
  marked.push_back({1106, 4, {}, {1}});
  r = read_rpm(make_rpm(marked), "marked.src.rpm");
  REQUIRE(r);
  CHECK(r->arch == "src");
  // neither tag and files in named directories: a binary package
  r = read_rpm(make_rpm(basic()), "hello.rpm");
  REQUIRE(r);
  CHECK(r->arch == "x86_64");
}

TEST_CASE("rpm: the header range covers the main header after the padded signature",
          "[repo][rpm]") {
  std::string bytes = make_rpm(basic());
  auto r = read_rpm(bytes, "hello.rpm");
  REQUIRE(r);
  CHECK(r->header_start == 96 + 16 + 0);
  CHECK(r->header_end == bytes.size());
}

TEST_CASE("rpm: a wrong magic, a truncated header and a path in the name are refused",
          "[repo][rpm]") {
  CHECK(read_rpm("!<arch>\n", "x.rpm").error().message() == "x.rpm: not an rpm (no lead magic)");
  std::string bytes = make_rpm(basic());
  CHECK(read_rpm(bytes.substr(0, bytes.size() - 10), "cut.rpm").error().message() ==
        "cut.rpm: truncated rpm header at byte 112");
  std::string huge = bytes;
  huge[112 + 8] = '\x7f'; // an index of two billion entries
  auto message = read_rpm(huge, "huge.rpm").error().message();
  CHECK(message.starts_with("huge.rpm: rpm header at byte 112 claims "));
  CHECK(message.ends_with(" bytes, past the limit of 256 MiB"));
  auto tags = basic();
  tags[0].strings = {"../../etc/passwd"};
  CHECK(read_rpm(make_rpm(tags), "evil.rpm")
            .error()
            .message()
            .starts_with("evil.rpm: bad name '../../etc/passwd'"));
  tags = basic();
  tags.erase(tags.begin() + 1);
  CHECK(read_rpm(make_rpm(tags), "nover.rpm").error().message() ==
        "nover.rpm: rpm header has no version");
}

TEST_CASE("rpm: the metadata survives the database's JSON round trip", "[repo][rpm]") {
  auto r = read_rpm(make_rpm(basic()), "hello.rpm");
  REQUIRE(r);
  auto back = rpm_from_json(rpm_to_json(*r));
  REQUIRE(back);
  CHECK(rpm_to_json(*back) == rpm_to_json(*r));
  CHECK(back->requirements == r->requirements);
}

TEST_CASE("rpm: text that is not UTF-8 is read as ISO-8859-1, as createrepo_c reads it",
          "[repo][rpm]") {
  auto tags = basic();
  tags[3].strings = {"Gr\xfc\xdf"
                     "e"};                         // Latin-1 "Grüße"
  tags[14].strings = {"hello", "caf\xc3\xa9.log"}; // UTF-8 already: kept
  auto r = read_rpm(make_rpm(tags), "latin1.rpm");
  REQUIRE(r);
  CHECK(r->summary == "Gr\xc3\xbc\xc3\x9f"
                      "e");
  CHECK(r->files[1].path == "/var/log/caf\xc3\xa9.log");
  // The database keeps it as JSON, which must be UTF-8.
  auto back = rpm_from_json(rpm_to_json(*r));
  REQUIRE(back);
  CHECK(back->summary == r->summary);
}

TEST_CASE("rpm: a bad name is quoted on one line, cut short, and must be ASCII", "[repo][rpm]") {
  auto tags = basic();
  tags[0].strings = {"two\nlines"};
  CHECK(read_rpm(make_rpm(tags), "x.rpm")
            .error()
            .message()
            .starts_with("x.rpm: bad name 'two\\nlines'"));
  tags[0].strings = {std::string(100, 'a') + "/"};
  CHECK(read_rpm(make_rpm(tags), "x.rpm")
            .error()
            .message()
            .starts_with("x.rpm: bad name '" + std::string(64, 'a') + "...'"));
  tags[0].strings = {std::string(250, 'a')};
  CHECK(read_rpm(make_rpm(tags), "x.rpm").error().message() ==
        "x.rpm: name, version, release and architecture make a pool file name of 271 bytes, past "
        "the limit of 255");
  tags[0].strings = {"caf\xc3\xa9"};
  CHECK(read_rpm(make_rpm(tags), "x.rpm").error().message().find("non-ASCII") != std::string::npos);
}

TEST_CASE("rpm: a source package is told by its SOURCEPACKAGE tag and gets arch src",
          "[repo][rpm]") {
  auto tags = basic();
  tags.push_back({1106, 4, {}, {1}});
  auto r = read_rpm(make_rpm(tags), "hello.src.rpm");
  REQUIRE(r);
  CHECK(r->arch == "src");
  CHECK(rpm_file_name(*r) == "hello-1.0-1.el9.src.rpm");
}
