// SPDX-License-Identifier: MIT
#include <catch2/catch.hpp>

#include "opskit/table.hpp"

using opskit::Align;

TEST_CASE("table: columns line up, numbers right-aligned", "[lib][table]") {
  opskit::Table t({{"syscall", Align::left}, {"calls", Align::right}});
  t.add_row({"newfstatat", "826"});
  t.add_row({"statx", "3"});
  CHECK(t.render() == "syscall     calls\n"
                      "newfstatat    826\n"
                      "statx           3\n");
}

TEST_CASE("table: a long path column is cut at the front to fit the width", "[lib][table]") {
  opskit::Table t({{"path", Align::left}, {"calls", Align::right}});
  t.add_row({"/usr/share/perl/5.36/very/long/module/path.pm", "7"});
  std::string out = t.render(30);
  CHECK(out.find("...") != std::string::npos);
  CHECK(out.find("path.pm") != std::string::npos);
  for (std::size_t start = 0, end; (end = out.find('\n', start)) != std::string::npos;
       start = end + 1)
    CHECK(end - start <= 30);
}

TEST_CASE("table: a control byte in a cell is escaped and the row stays one line", "[lib][table]") {
  opskit::Table t({{"path", Align::left}, {"calls", Align::right}});
  t.add_row({"/tmp/a\nb\tc\x1b", "1"});
  CHECK(t.render() == "path              calls\n"
                      "/tmp/a\\nb\\tc\\x1b      1\n");
}
