// SPDX-License-Identifier: MIT
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "opskit/text.hpp"

TEST_CASE("natural_less: numbers inside names sort by value", "[lib][text]") {
  std::vector<std::string> names{"cpu.10.user", "cpu.2.user", "cpu.all.user", "cpu.1.user"};
  std::sort(names.begin(), names.end(),
            [](const auto& a, const auto& b) { return opskit::natural_less(a, b); });
  CHECK(names ==
        std::vector<std::string>{"cpu.1.user", "cpu.2.user", "cpu.10.user", "cpu.all.user"});
  CHECK(opskit::natural_less("vm.stats", "vm.stats.pgfault"));
  CHECK_FALSE(opskit::natural_less("a", "a"));
  CHECK(opskit::natural_less("x1", "x01")); // equal value: fewer zeros first, still a strict order
  CHECK_FALSE(opskit::natural_less("x01", "x1"));
  // A start both share that ends inside a number: the whole numbers compare.
  CHECK(opskit::natural_less("disk.sda9.reads", "disk.sda10.reads"));
  CHECK_FALSE(opskit::natural_less("disk.sda10.reads", "disk.sda9.reads"));
  CHECK(opskit::natural_less("cgroup.slice1.x", "cgroup.slice12.x"));
  CHECK(opskit::natural_less("x.07", "x.007"));
  CHECK_FALSE(opskit::natural_less("x.007", "x.07"));
  CHECK(opskit::natural_less("x.100b", "x.0100a")); // the same value: fewer zeros first
}

TEST_CASE("natural_less: a strict weak order over names that share long starts", "[lib][text]") {
  std::vector<std::string> names;
  for (std::string_view unit : {"1", "01", "2", "10", "a", "1a", "10a", "100"})
    for (std::string_view file : {"memory/stat.pgfault", "memory/stat.anon", "cpu/stat.usage_usec"})
      names.push_back(fmt::format("cgroup.system/slice.unit{}.{}", unit, file));
  for (const auto& a : names) {
    CHECK_FALSE(opskit::natural_less(a, a));
    for (const auto& b : names) {
      if (a != b)
        CHECK(opskit::natural_less(a, b) != opskit::natural_less(b, a));
      for (const auto& c : names)
        if (opskit::natural_less(a, b) && opskit::natural_less(b, c))
          CHECK(opskit::natural_less(a, c));
    }
  }
}

TEST_CASE("compare_digit_runs: runs of any length compare by value and are consumed",
          "[lib][text]") {
  std::string_view a = "0099999999999999999999x", b = "100000000000000000000y";
  CHECK(opskit::compare_digit_runs(a, b) < 0); // past 64 bits, leading zeros skipped
  CHECK(a == "x");
  CHECK(b == "y");
  a = "007a";
  b = "7b";
  CHECK(opskit::compare_digit_runs(a, b) == 0);
  CHECK(a == "a");
  a = "abc";
  b = "0";
  CHECK(opskit::compare_digit_runs(a, b) == 0); // no digits: the run 0
  CHECK(a == "abc");
}

TEST_CASE("closest_match: suggests a near name and nothing for a far one", "[lib][text]") {
  std::vector<std::string> children{"stats", "swappiness", "meminfo"};
  CHECK(opskit::closest_match("stat", children) == "stats");
  CHECK(opskit::closest_match("swapiness", children) == "swappiness");
  CHECK_FALSE(opskit::closest_match("network", children));
  CHECK(opskit::edit_distance("kitten", "sitting") == 3);
}

TEST_CASE("trim: strips spaces, tabs and newlines at both ends", "[lib][text]") {
  CHECK(opskit::trim("  4\t4 1 7\n") == "4\t4 1 7");
  CHECK(opskit::trim(" \n") == "");
}

TEST_CASE("words: split at spaces, a run of them making no empty word", "[lib][text]") {
  CHECK(opskit::words("x86_64  aarch64 SRPMS") ==
        std::vector<std::string>{"x86_64", "aarch64", "SRPMS"});
  CHECK(opskit::words(" amd64 ") == std::vector<std::string>{"amd64"});
  CHECK(opskit::words("").empty());
}

TEST_CASE("is_utf8: well-formed sequences only", "[lib][text]") {
  CHECK(opskit::is_utf8(""));
  CHECK(opskit::is_utf8("plain ASCII"));
  CHECK(opskit::is_utf8("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80")); // é € 😀
  CHECK_FALSE(opskit::is_utf8("caf\xe9"));                             // Latin-1 é
  CHECK_FALSE(opskit::is_utf8("\xc0\x80"));                            // overlong NUL
  CHECK_FALSE(opskit::is_utf8("\xed\xa0\x80"));                        // a surrogate
  CHECK_FALSE(opskit::is_utf8("\xf4\x90\x80\x80"));                    // past U+10FFFF
  CHECK_FALSE(opskit::is_utf8("\xe2\x82"));                            // cut off
  CHECK_FALSE(opskit::is_utf8("\x80"));                                // a stray continuation
}

TEST_CASE("utf8_or_latin1: UTF-8 kept, anything else read as ISO-8859-1", "[lib][text]") {
  CHECK(opskit::utf8_or_latin1("caf\xc3\xa9") == "caf\xc3\xa9");
  CHECK(opskit::utf8_or_latin1("caf\xe9") == "caf\xc3\xa9");
  CHECK(opskit::utf8_or_latin1("\xff\x80") == "\xc3\xbf\xc2\x80");
}

TEST_CASE("printable: one line, escapes for controls and stray bytes, cut at a character",
          "[lib][text]") {
  CHECK(opskit::printable("a\nb\tc\r") == "a\\nb\\tc\\r");
  CHECK(opskit::printable(std::string("\x01\x7f\0", 3)) == "\\x01\\x7f\\x00");
  CHECK(opskit::printable("caf\xc3\xa9 caf\xe9") == "caf\xc3\xa9 caf\\xe9");
  CHECK(opskit::printable("abcdef", 3) == "abc...");
  CHECK(opskit::printable("ab\xc3\xa9", 3) == "ab..."); // é does not fit whole
  CHECK(opskit::printable("abc", 3) == "abc");
  CHECK(opskit::excerpt(std::string(100, 'x')) == std::string(64, 'x') + "...");
}
