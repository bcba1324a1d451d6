// SPDX-License-Identifier: MIT
#include <catch2/catch.hpp>

#include <filesystem>

#include "opskit/atomic_file.hpp"
#include "opskit/file.hpp"
#include "temp_dir.hpp"

TEST_CASE("atomic file: staged files appear only at commit, and parents are created",
          "[lib][file]") {
  opskit::test::TempDir dir;
  std::string path = dir / "a/b/Release";
  {
    opskit::StagedFiles files;
    REQUIRE(files.stage(path, "new\n"));
    CHECK_FALSE(std::filesystem::exists(path));
    REQUIRE(files.commit());
  }
  CHECK(*opskit::read_file(path) == "new\n");
  CHECK(std::distance(std::filesystem::directory_iterator(dir / "a/b"), {}) == 1);
}

TEST_CASE("atomic file: an uncommitted stage leaves the old file and no temporary behind",
          "[lib][file]") {
  opskit::test::TempDir dir;
  std::string path = dir / "Packages";
  REQUIRE(opskit::write_file_atomic(path, "old\n"));
  {
    opskit::StagedFiles files;
    REQUIRE(files.stage(path, "new\n"));
  }
  CHECK(*opskit::read_file(path) == "old\n");
  CHECK(std::distance(std::filesystem::directory_iterator(dir.path()), {}) == 1);
}
