// SPDX-License-Identifier: MIT
#include <catch2/catch.hpp>

#include "deb_builder.hpp"
#include "opskit/repo/format/deb/deb.hpp"

using opskit::repo::read_deb;
using opskit::test::Link;
using opskit::test::make_ar;
using opskit::test::make_deb;
using opskit::test::make_tar;
using opskit::test::make_tar_link;

namespace {
const std::string k_control = "Package: hello\n"
                              "Source: hello-src (1.0)\n"
                              "Version: 1:2.0-1\n"
                              "Architecture: amd64\n"
                              "Maintainer: A <a@example.com>\n"
                              "Description: greets\n"
                              " Long text.\n"
                              " .\n"
                              " More.\n";
} // namespace

TEST_CASE("deb: control.tar in every compression dpkg writes is read", "[repo][deb]") {
  for (std::string compression : {"", "gz", "xz", "zst"}) {
    INFO("control.tar." << compression);
    auto deb = read_deb(make_deb(k_control, compression), "hello.deb");
    REQUIRE(deb);
    CHECK(deb->name == "hello");
    CHECK(deb->version == "1:2.0-1");
    CHECK(deb->architecture == "amd64");
    CHECK(deb->source == "hello-src");
    CHECK(deb->control.render() == k_control);
  }
}

TEST_CASE("deb: the pool path drops the epoch and uses the source's prefix", "[repo][deb]") {
  auto deb = read_deb(make_deb(k_control), "hello.deb");
  REQUIRE(deb);
  CHECK(opskit::repo::deb_pool_path(*deb, "main") == "pool/main/h/hello-src/hello_2.0-1_amd64.deb");
  deb->source = "libfoo";
  CHECK(opskit::repo::deb_pool_path(*deb, "contrib") ==
        "pool/contrib/libf/libfoo/hello_2.0-1_amd64.deb");
}

TEST_CASE("deb: not an ar archive is refused naming the file", "[repo][deb]") {
  auto deb = read_deb("\x7f"
                      "ELF....",
                      "x.deb");
  REQUIRE_FALSE(deb);
  CHECK(deb.error().message() == "x.deb: not a .deb (no ar archive magic)");
}

TEST_CASE("deb: a truncated package is refused", "[repo][deb]") {
  std::string bytes = make_deb(k_control, "xz");
  auto deb = read_deb(bytes.substr(0, bytes.size() / 2), "cut.deb");
  REQUIRE_FALSE(deb);
  CHECK(deb.error().message().starts_with("cut.deb: "));
  // Cut in the last member, as a partial download is: the message names it.
  deb = read_deb(bytes.substr(0, bytes.size() - 10), "cut.deb");
  REQUIRE_FALSE(deb);
  CHECK(deb.error().message().starts_with("cut.deb: data.tar.gz: "));
}

TEST_CASE("deb: corrupt compression of control.tar is refused", "[repo][deb]") {
  std::string tar = make_tar("./control", k_control, "gz");
  for (std::size_t i = 20; i < tar.size() - 8; ++i)
    tar[i] = static_cast<char>(tar[i] ^ 0x5a);
  auto deb = read_deb(make_ar({{"debian-binary", "2.0\n"},
                               {"control.tar.gz", tar},
                               {"data.tar.gz", make_tar("./x", "x", "gz")}}),
                      "bad.deb");
  REQUIRE_FALSE(deb);
  CHECK(deb.error().message().starts_with("bad.deb: control.tar.gz: "));
}

TEST_CASE("deb: a control file without Package is refused", "[repo][deb]") {
  auto deb = read_deb(make_deb("Version: 1.0\nArchitecture: all\n"), "nameless.deb");
  REQUIRE_FALSE(deb);
  CHECK(deb.error().message() == "nameless.deb: control file has no Package field");
}

TEST_CASE("deb: names, versions and arches that could escape the pool are refused", "[repo][deb]") {
  auto bad = [](const std::string& field, const std::string& value) {
    std::string control = "Package: ok\nVersion: 1.0\nArchitecture: all\n";
    auto at = control.find(field + ": ");
    auto end = control.find('\n', at);
    control.replace(at, end - at, field + ": " + value);
    return read_deb(make_deb(control), "evil.deb");
  };
  CHECK(bad("Package", "../../etc")
            .error()
            .message()
            .starts_with("evil.deb: bad package name '../../etc'"));
  CHECK(bad("Version", "1.0/../../x").error().message().starts_with("evil.deb: bad version"));
  CHECK(
      bad("Architecture", "amd64/..").error().message().starts_with("evil.deb: bad architecture"));
  // The value is quoted on one line, its control characters escaped.
  CHECK(bad("Package", "a\x01"
                       "b")
            .error()
            .message()
            .starts_with("evil.deb: bad package name 'a\\x01b'"));
  CHECK(
      bad("Version", "1.0\x7f").error().message().starts_with("evil.deb: bad version '1.0\\x7f'"));
}

TEST_CASE("deb: a first member other than debian-binary is refused", "[repo][deb]") {
  auto deb =
      read_deb(make_ar({{"control.tar.gz", make_tar("./control", k_control, "gz")}}), "odd.deb");
  REQUIRE_FALSE(deb);
  CHECK(deb.error().message() == "odd.deb: first ar member is 'control.tar.gz', not debian-binary");
}

TEST_CASE("deb: a control.tar that decompresses past the limit is refused", "[repo][deb]") {
  std::string big(opskit::repo::k_deb_control_file_limit + 10, 'x');
  auto deb = read_deb(
      make_deb("Package: a\nVersion: 1\nArchitecture: all\nDescription: " + big + "\n", "xz"),
      "bomb.deb");
  REQUIRE_FALSE(deb);
  CHECK(deb.error().message().find("larger than the limit") != std::string::npos);
}

TEST_CASE("deb: a control.tar entry or link that climbs out of the package is refused",
          "[repo][deb]") {
  auto with = [](const std::string& control_tar) {
    auto deb = read_deb(
        make_ar(
            {{"debian-binary", "2.0\n"}, {"control.tar", control_tar}, {"data.tar", make_tar({})}}),
        "x.deb");
    return deb ? std::string("accepted") : deb.error().message();
  };
  CHECK(with(make_tar({{"./control", k_control}, {"../../x", "#!/bin/sh\n"}})) ==
        "x.deb: control.tar: '../../x' is outside the package");
  CHECK(with(make_tar({{"./control", k_control}, {"./a/../../x", ""}})) ==
        "x.deb: control.tar: './a/../../x' is outside the package");
  CHECK(with(make_tar_link("./postinst", "../../bin/sh", Link::symbolic)) ==
        "x.deb: control.tar: ./postinst links to '../../bin/sh', outside the package");
  CHECK(with(make_tar_link("./config", "/etc/shadow", Link::symbolic)) ==
        "x.deb: control.tar: ./config links to '/etc/shadow', outside the package");
  CHECK(with(make_tar_link("./postinst", "../x", Link::hard)) ==
        "x.deb: control.tar: ./postinst links to '../x', outside the package");
  // Inside the package, a link is no escape (tar drops a path's leading '/').
  CHECK(with(make_tar_link("./postinst", "preinst", Link::symbolic)) ==
        "x.deb: control.tar: no control file");
  CHECK(with(make_tar_link("./postinst", "/preinst", Link::hard)) ==
        "x.deb: control.tar: no control file");
}

TEST_CASE("deb: relation fields are checked as apt reads them from a Packages file",
          "[repo][deb]") {
  using opskit::repo::check_deb_relations;
  for (std::string ok : {"", "libc6 (>= 2.34)", "a, B, foo:any, bar:amd64 (<< 1:2.0~rc1+b1)",
                         "x | y (= 1.0-1) | z", "libfoo1 (>= 1.0),\n libbar2\n | libbaz3"}) {
    INFO(ok);
    CHECK(check_deb_relations(ok));
  }
  for (auto [bad, why] : std::initializer_list<std::pair<std::string, std::string>>{
           {"b [amd64]", "'b [amd64]': architecture restrictions and build profiles belong to "
                         "source packages"},
           {"c <!nocheck>", "'c <!nocheck>': architecture restrictions and build profiles belong "
                            "to source packages"},
           {"a,, b", "an empty entry (a comma too many?)"},
           {"a, b,", "an empty entry (a comma too many?)"},
           {"a | ", "an empty alternative around '|'"},
           {"foo (=> 1)", "bad relation '=>' in 'foo (=> 1)'"},
           {"foo (>= 1", "no version and ')' in 'foo (>= 1'"},
           {"foo (>= )", "no version and ')' in 'foo (>= )'"},
           {"foo bar", "unexpected 'b' in 'foo bar'"},
           {"(foo)", "bad package name in '(foo)'"},
           {"foo (>= 1_0)", "bad version in 'foo (>= 1_0)'"},
           {std::string(70000, 'a'), "a package name of 70000 bytes, past apt's limit of 65534"}}) {
    INFO(bad);
    auto checked = check_deb_relations(bad);
    REQUIRE_FALSE(checked);
    CHECK(checked.error().message() == why);
  }
}

TEST_CASE("deb: control fields apt could not read are refused in one line", "[repo][deb]") {
  auto with = [](const std::string& extra) {
    return read_deb(make_deb(k_control + extra), "x.deb");
  };
  CHECK(with("Depends: libc6 [amd64]\n").error().message() ==
        "x.deb: control field: Depends: 'libc6 [amd64]': architecture restrictions and build "
        "profiles belong to source packages");
  CHECK(with("Multi-Arch: bogus\n").error().message() ==
        "x.deb: control field: Multi-Arch: 'bogus' is none of no, same, foreign, allowed");
  CHECK(with("Essential: maybe\n").error().message() ==
        "x.deb: control field: Essential: 'maybe' is neither yes nor no");
  // Essential in any case, as apt and dpkg read it; Multi-Arch as apt reads it, in lower case.
  CHECK(with("Essential: Yes\n"));
  CHECK(with("Multi-Arch: Foreign\n").error().message() ==
        "x.deb: control field: Multi-Arch: 'Foreign' is none of no, same, foreign, allowed");
  // What dpkg would refuse to install: an empty revision, a debian-binary that is no line.
  CHECK(read_deb(make_deb("Package: hello\nVersion: 1.0-\nArchitecture: all\n"), "x.deb")
            .error()
            .message() == "x.deb: bad version '1.0-': the revision after '-' is empty");
  CHECK(read_deb(make_ar({{"debian-binary", "2.0"},
                          {"control.tar.gz", make_tar("./control", k_control, "gz")},
                          {"data.tar.gz", make_tar("./x", "x", "gz")}}),
                 "x.deb")
            .error()
            .message() == "x.deb: debian-binary '2.0' is not a line (no newline)");
  CHECK(with("Section: " + std::string(70000, 's') + "\n").error().message() ==
        "x.deb: control field: Section: 70000 bytes, past apt's limit of 65534");
  CHECK(read_deb(make_deb("Package: hello\r\nVersion: 1\r\nArchitecture: all\r\n"), "x.deb")
            .error()
            .message() == "x.deb: control: line 1: a carriage return (CRLF line ends?)");
  auto long_name = read_deb(
      make_deb("Package: " + std::string(300, 'a') + "\nVersion: 1\nArchitecture: all\n"), "x.deb");
  CHECK(long_name.error().message() == "x.deb: name, version and architecture make a pool file "
                                       "name of 310 bytes, past the limit of 255");
  // Fine: a Description apt does not keep, of any length, and Multi-Arch and Essential as apt
  // knows them.
  CHECK(with("Multi-Arch: same\nEssential: yes\n"));
}

TEST_CASE("deb: Filename, Size and the hashes in a control file are the archive's, and dropped",
          "[repo][deb]") {
  auto deb = read_deb(make_deb(k_control + "Filename: elsewhere.deb\nSize: 1\nMD5sum: 00\n"
                                           "SHA1: 00\nSHA256: 00\nSHA512: 00\nHomepage: x\n"),
                      "x.deb");
  REQUIRE(deb);
  CHECK(deb->control.render() == k_control + "Homepage: x\n");
}

TEST_CASE("deb: what dpkg would install differently from what the index shows is refused",
          "[repo][deb]") {
  auto data = make_tar("./usr/share/doc/x/README", "hello\n", "gz");
  auto control_tar = make_tar("./control", k_control, "gz");
  auto with = [](std::vector<std::pair<std::string, std::string>> members) {
    members.insert(members.begin(), {"debian-binary", "2.0\n"});
    auto deb = read_deb(make_ar(members), "x.deb");
    return deb ? std::string("accepted") : deb.error().message();
  };
  CHECK(with({{"control.tar.gz", control_tar},
              {"control.tar", control_tar},
              {"data.tar.gz", data}}) == "x.deb: two control.tar members");
  CHECK(with({{"data.tar.gz", data}, {"control.tar.gz", control_tar}}) ==
        "x.deb: data.tar before control.tar");
  CHECK(with({{"control.tar.gz", control_tar}, {"data.tar.gz", data}, {"data.tar.gz", data}}) ==
        "x.deb: two data.tar members");
  // dpkg installs from the last of two control files; the index would show the first.
  auto two = make_tar({{"./control", k_control}, {"control", "Package: other\n"}});
  CHECK(with({{"control.tar", two}, {"data.tar.gz", data}}) ==
        "x.deb: control.tar: two control files");
  // A link's target is not in its entry: the control file would read as empty.
  CHECK(with({{"control.tar", make_tar_link("./control", "other", Link::symbolic)},
              {"data.tar.gz", data}}) ==
        "x.deb: control.tar: control is a symbolic link, not a regular file");
  CHECK(with({{"control.tar", make_tar_link("./control", "other", Link::hard)},
              {"data.tar.gz", data}}) ==
        "x.deb: control.tar: control is a hard link, not a regular file");
  // Paths dpkg reads as ./control are read so.
  for (std::string path : {"control", "././control", ".//control", "/control"}) {
    INFO(path);
    CHECK(with({{"control.tar", make_tar({{path, k_control}})}, {"data.tar.gz", data}}) ==
          "accepted");
  }
}

TEST_CASE("deb: an architecture that is a set, or too long for apt's list files, is refused",
          "[repo][deb]") {
  auto arch = [](const std::string& a) {
    auto deb = read_deb(make_deb("Package: hello\nVersion: 1\nArchitecture: " + a + "\n"), "x.deb");
    return deb ? std::string("accepted") : deb.error().message();
  };
  for (std::string set : {"any", "linux-any", "any-amd64", "source"})
    CHECK(arch(set) == "x.deb: Architecture '" + set +
                           "' names a set of architectures or sources; a binary package is built "
                           "for one, or for all");
  CHECK(arch(std::string(65, 'a')) ==
        "x.deb: bad architecture '" + std::string(64, 'a') + "...': longer than 64 bytes");
  CHECK(arch("musl-linux-amd64") == "accepted");
  // Provides may not be empty, and Description-md5 is the archive's to compute.
  CHECK(read_deb(make_deb(k_control + "Provides: \n"), "x.deb").error().message() ==
        "x.deb: control field: Provides: empty, which apt cannot parse");
  auto md5 = read_deb(make_deb(k_control + "Description-md5: 1\n"), "x.deb");
  REQUIRE(md5);
  CHECK(md5->control.render() == k_control);
}
