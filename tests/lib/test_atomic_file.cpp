// SPDX-License-Identifier: MIT
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

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

TEST_CASE("atomic file: a staged copy holds the source's bytes, from another file system too",
          "[lib][file]") {
  opskit::test::TempDir dir;
  std::string content(300 * 1024 + 5, '\0');
  for (std::size_t i = 0; i < content.size(); ++i)
    content[i] = static_cast<char>(i * 7 + i / 4096);
  // /dev/shm is a tmpfs where it exists: copy_file_range refuses to copy from it to another
  // file system, and the copy goes by sendfile.
  std::vector<std::string> sources{dir / "source"};
  if (std::filesystem::is_directory("/dev/shm"))
    sources.push_back("/dev/shm/opskit-test-stage-copy-" + std::to_string(::getpid()));
  for (const auto& source : sources) {
    INFO(source);
    REQUIRE(opskit::write_file_atomic(source, content));
    auto from = opskit::open_file(source, O_RDONLY);
    REQUIRE(from);
    opskit::StagedFiles files;
    auto copied = files.stage_copy(dir / "pool/copy", *from, content.size());
    REQUIRE(copied);
    CHECK(*copied == content.size());
    // A source shorter than asked is copied as far as it goes, and says so.
    auto shorter = files.stage_copy(dir / "pool/short", *from, content.size() + 10);
    REQUIRE(shorter);
    CHECK(*shorter == content.size());
    REQUIRE(files.commit());
    CHECK(*opskit::read_file(dir / "pool/copy") == content);
    std::filesystem::remove(source);
  }
}

TEST_CASE("atomic file: files staged side by side appear at commit, or none when one fails",
          "[lib][file]") {
  opskit::test::TempDir dir;
  std::string large(3 * 1024 * 1024 + 7, 'p');
  std::vector<std::pair<std::string, std::string_view>> files{
      {dir / "repodata/primary.xml.gz", large},
      {dir / "repodata/other.xml.gz", "other\n"},
      {dir / "texts/run", "run\n"}};
  {
    opskit::StagedFiles staged;
    REQUIRE(staged.stage_all(files));
    CHECK(staged.size() == 3);
    CHECK_FALSE(std::filesystem::exists(files[0].first));
    REQUIRE(staged.commit());
  }
  for (const auto& [path, bytes] : files)
    CHECK(*opskit::read_file(path) == bytes);

  // A temporary name taken by a directory: that file cannot be written, and the others' go.
  std::filesystem::create_directory(opskit::temporary_name(dir / "repodata/other.xml.gz"));
  files[0].second = "new primary\n";
  {
    opskit::StagedFiles staged;
    auto result = staged.stage_all(files);
    REQUIRE_FALSE(result);
    CHECK_THAT(result.error().message(), Catch::Contains("other.xml.gz"));
    CHECK(staged.size() == 0);
    CHECK_FALSE(std::filesystem::exists(opskit::temporary_name(files[0].first)));
    CHECK_FALSE(std::filesystem::exists(opskit::temporary_name(files[2].first)));
  }
  CHECK(*opskit::read_file(files[0].first) == large);
}
