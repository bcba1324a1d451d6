// SPDX-License-Identifier: MIT
#include <catch2/catch.hpp>

#include <algorithm>
#include <string_view>

#include <fcntl.h>

#include "opskit/file.hpp"

TEST_CASE("read_file: a missing file names the path", "[lib][file]") {
  auto r = opskit::read_file("/nonexistent/opskit");
  REQUIRE_FALSE(r);
  CHECK(r.error().message() == "open /nonexistent/opskit: No such file or directory");
}

TEST_CASE("pread_whole: grows a small buffer until the whole /proc file fits", "[lib][file]") {
  auto fd = opskit::open_file("/proc/self/maps", O_RDONLY);
  REQUIRE(fd);
  std::string buffer(16, '\0');
  auto text = opskit::pread_whole(fd->get(), buffer, "/proc/self/maps");
  REQUIRE(text);
  CHECK(text->size() > 16);
  CHECK(text->back() == '\n');
  CHECK(buffer.size() > text->size());
}

TEST_CASE("pread_whole: reads /proc/sys in one read at offset 0, again and again", "[lib][file]") {
  auto fd = opskit::open_file("/proc/sys/kernel/ostype", O_RDONLY);
  REQUIRE(fd);
  std::string buffer(64, '\0');
  for (int i = 0; i < 3; ++i) {
    auto text = opskit::pread_whole(fd->get(), buffer, "kernel.ostype");
    REQUIRE(text);
    CHECK(*text == "Linux\n");
  }
}

TEST_CASE("pread_one_record: a file the kernel writes as one record comes whole in its one read",
          "[lib][file]") {
  // /proc/net/netstat's lines run to thousands of bytes: read into 64 bytes, then 256, 1,024
  // and 4,096 from offset 0 again, each read giving what the room takes of the one record.
  auto whole = opskit::read_file("/proc/net/netstat");
  REQUIRE(whole);
  auto fd = opskit::open_file("/proc/net/netstat", O_RDONLY);
  REQUIRE(fd);
  std::string buffer(64, '\0');
  auto text = opskit::pread_one_record(fd->get(), buffer, "/proc/net/netstat");
  REQUIRE(text);
  CHECK(buffer.size() > text->size());
  CHECK(text->back() == '\n');
  auto lines = [](std::string_view s) { return std::count(s.begin(), s.end(), '\n'); };
  CHECK(lines(*text) == lines(*whole));
  CHECK(text->substr(0, text->find('\n')) == whole->substr(0, whole->find('\n'))); // the names
}
