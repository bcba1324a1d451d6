// SPDX-License-Identifier: MIT
#include <catch2/catch.hpp>

#include <filesystem>
#include <set>

#include "temp_dir.hpp"
#include "tree/sweep.hpp"

namespace fs = std::filesystem;
using opskit::repo::tree::Depth;
using opskit::repo::tree::remove_stale_temporaries;
using opskit::repo::tree::sweep_files;
using opskit::test::make_file;

namespace {

// A publication with a package at each depth, a killed run's temporaries and two links.
void make_tree(const std::string& root) {
  make_file(root + "/deb/debian/pool/main/h/hello/hello_1.0_amd64.deb");
  make_file(root + "/deb/debian/pool/main/h/hello/.hello_1.0_amd64.deb.tmp-123");
  make_file(root + "/deb/debian/dists/bookworm/.Release.tmp-9");
  make_file(root + "/rpm/el/9/x86_64/Packages/hello-1.0-1.x86_64.rpm");
  make_file(root + "/top.txt");
  fs::create_symlink("hello_1.0_amd64.deb", root + "/deb/debian/pool/main/h/hello/link.deb");
  fs::create_directory_symlink(root + "/rpm", root + "/deb/debian/pool/rpm-dir-link");
}

} // namespace

TEST_CASE("sweep_files: every file below, links to files but not to directories, and no "
          "temporary left or reported",
          "[repo][tree]") {
  opskit::test::TempDir tmp;
  std::string root = tmp / "public";
  make_tree(root);
  std::set<std::string> found;
  sweep_files(root, [&](const std::string& dir, std::string_view name) {
    found.insert(fs::path(dir + "/" + std::string(name)).lexically_relative(root).string());
  });
  CHECK(found == std::set<std::string>{"deb/debian/pool/main/h/hello/hello_1.0_amd64.deb",
                                       "deb/debian/pool/main/h/hello/link.deb",
                                       "rpm/el/9/x86_64/Packages/hello-1.0-1.x86_64.rpm",
                                       "top.txt"});
  CHECK_FALSE(fs::exists(root + "/deb/debian/pool/main/h/hello/.hello_1.0_amd64.deb.tmp-123"));
  CHECK_FALSE(fs::exists(root + "/deb/debian/dists/bookworm/.Release.tmp-9"));
}

TEST_CASE("remove_stale_temporaries: Depth::here leaves the directories below alone",
          "[repo][tree]") {
  opskit::test::TempDir tmp;
  std::string root = tmp / "public";
  make_tree(root);
  make_file(root + "/.top.tmp-1");
  remove_stale_temporaries(root, Depth::here);
  CHECK_FALSE(fs::exists(root + "/.top.tmp-1"));
  CHECK(fs::exists(root + "/deb/debian/dists/bookworm/.Release.tmp-9"));
  remove_stale_temporaries(root);
  CHECK_FALSE(fs::exists(root + "/deb/debian/dists/bookworm/.Release.tmp-9"));
  CHECK(fs::exists(root + "/deb/debian/pool/main/h/hello/hello_1.0_amd64.deb"));
}
