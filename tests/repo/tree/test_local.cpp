// SPDX-License-Identifier: MIT
#include <catch2/catch.hpp>

#include <filesystem>

#include <sys/stat.h>

#include "opskit/file.hpp"
#include "temp_dir.hpp"
#include "tree/local.hpp"

namespace fs = std::filesystem;
using opskit::repo::tree::replace_directory;
using opskit::test::make_file;

namespace {

ino_t inode(const std::string& path) {
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  return st.st_ino;
}

} // namespace

TEST_CASE("replace_directory: new files below, kept links and one exchange, equal bytes as one "
          "file, and what a killed run left swept",
          "[repo][tree]") {
  opskit::test::TempDir tmp;
  std::string current = tmp / "dists/bookworm";
  make_file(current + "/Release", "old release\n");
  make_file(current + "/main/binary-amd64/by-hash/SHA256/aaa", "old packages\n");
  make_file(current + "/main/binary-amd64/by-hash/SHA256/gone", "older packages\n");
  make_file(tmp / "dists/.bookworm.next-999/Release", "a killed run's\n");
  ino_t kept_before = inode(current + "/main/binary-amd64/by-hash/SHA256/aaa");

  std::string packages = "new packages\n";
  REQUIRE(replace_directory(tmp / "dists", current, {"main/binary-amd64/by-hash/SHA256/aaa"},
                            {{"main/binary-amd64/by-hash/SHA256/bbb", packages},
                             {"main/binary-amd64/Packages", packages},
                             {"Release", "new release\n"}},
                            opskit::StagedFiles()));
  CHECK(opskit::read_file(current + "/Release") == "new release\n");
  CHECK(opskit::read_file(current + "/main/binary-amd64/Packages") == packages);
  CHECK(inode(current + "/main/binary-amd64/Packages") ==
        inode(current + "/main/binary-amd64/by-hash/SHA256/bbb"));
  CHECK(inode(current + "/main/binary-amd64/by-hash/SHA256/aaa") == kept_before);
  CHECK_FALSE(fs::exists(current + "/main/binary-amd64/by-hash/SHA256/gone"));
  std::vector<std::string> left;
  for (const auto& e : fs::directory_iterator(tmp / "dists"))
    left.push_back(e.path().filename().string());
  CHECK(left == std::vector<std::string>{"bookworm"});
}

TEST_CASE("replace_directory: a directory that is not there yet is made", "[repo][tree]") {
  opskit::test::TempDir tmp;
  std::string current = tmp / "dists/trixie";
  REQUIRE(replace_directory(tmp / "dists", current, {}, {{"main/binary-amd64/Packages", ""}},
                            opskit::StagedFiles()));
  CHECK(opskit::read_file(current + "/main/binary-amd64/Packages") == "");
}
