// SPDX-License-Identifier: MIT
#include <catch2/catch.hpp>

#include "layout/paths.hpp"

using namespace opskit::repo::detail;

TEST_CASE("layout: a deb pool file's path reads back as its distro, Filename and component",
          "[repo][layout]") {
  std::string path = deb_pool_file("ubuntu", "pool/contrib/h/hello/hello_1.0_amd64.deb");
  CHECK(path == "deb/ubuntu/pool/contrib/h/hello/hello_1.0_amd64.deb");
  CHECK(parse_deb_pool_file(path) ==
        DebPoolFile{"ubuntu", "pool/contrib/h/hello/hello_1.0_amd64.deb", "contrib"});
  CHECK(deb_archive("ubuntu") == "deb/ubuntu");
  CHECK(deb_suite("ubuntu", "noble") == "deb/ubuntu/dists/noble");
  for (const char* other : {"rpm/el/9/x86_64/Packages/x.rpm", "deb/ubuntu/dists/noble/Release",
                            "deb//pool/main/x.deb", "deb/ubuntu/pool/main", "deb/ubuntu/pool//x"})
    CHECK_FALSE(parse_deb_pool_file(other));
}

TEST_CASE("layout: an rpm's path names its dist and the repository of its arch", "[repo][layout]") {
  CHECK(rpm_package_file("el/9", "x86_64", "a-1-1.x86_64.rpm") ==
        "rpm/el/9/x86_64/Packages/a-1-1.x86_64.rpm");
  CHECK(rpm_package_file("el/9", "src", "a-1-1.src.rpm") ==
        "rpm/el/9/SRPMS/Packages/a-1-1.src.rpm");
  CHECK(rpm_package_file("el/9", "noarch", "a-1-1.noarch.rpm") ==
        "rpm/el/9/noarch/Packages/a-1-1.noarch.rpm");
  for (const char* arch : {"x86_64", "src", "noarch"})
    CHECK(parse_rpm_package_dist(rpm_package_file("fedora/41", arch, "f.rpm")) == "fedora/41");
  CHECK(rpm_dist_dir("el/9") == "rpm/el/9");
  CHECK(rpm_repository("el/9", rpm_repository_of("src")) == "rpm/el/9/SRPMS");
  for (const char* other : {"rpm/el/9/x86_64/repodata/repomd.xml", "rpm/el/x86_64/Packages/f.rpm",
                            "deb/el/9/x86_64/Packages/f.rpm", "rpm/el//x86_64/Packages/f.rpm"})
    CHECK_FALSE(parse_rpm_package_dist(other));
}

TEST_CASE("layout: each published file's phase puts what a file names before it",
          "[repo][layout]") {
  struct Case {
    const char* path;
    Phase phase;
  };
  for (auto [path, phase] : {
           Case{"deb/debian/pool/main/h/hello/hello_1.0_amd64.deb", Phase::package},
           Case{"rpm/el/9/noarch/Packages/a-1-1.noarch.rpm", Phase::package},
           Case{"deb/debian/dists/bookworm/main/binary-amd64/by-hash/SHA256/ab12",
                Phase::content_addressed},
           Case{"rpm/el/9/x86_64/repodata/ab12-primary.xml.gz", Phase::content_addressed},
           Case{"deb/debian/dists/bookworm/main/binary-amd64/Packages.xz", Phase::index},
           Case{"gpg.key", Phase::index},
           Case{"deb/debian/dists/bookworm/Release", Phase::signature},
           Case{"deb/debian/dists/bookworm/Release.gpg", Phase::signature},
           Case{"rpm/el/9/x86_64/repodata/repomd.xml.asc", Phase::signature},
           Case{"deb/debian/dists/bookworm/InRelease", Phase::top_level},
           Case{"rpm/el/9/x86_64/repodata/repomd.xml", Phase::top_level},
       }) {
    INFO(path);
    CHECK(phase_of(path) == phase);
  }
  CHECK(Phase::package < Phase::content_addressed);
  CHECK(Phase::content_addressed < Phase::index);
  CHECK(Phase::index < Phase::signature);
  CHECK(Phase::signature < Phase::top_level);
}
