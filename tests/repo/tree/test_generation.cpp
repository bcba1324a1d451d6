// SPDX-License-Identifier: MIT
// A generation keeps its files in the order a target puts them in place.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "tree/generation.hpp"

using opskit::repo::detail::Phase;
using opskit::repo::tree::Generation;

TEST_CASE("generation: files come by phase, in the order added within one", "[tree]") {
  Generation g;
  std::string dists = "deb/debian/dists/bookworm";
  g.add(dists + "/InRelease", "signed");
  g.add(dists + "/Release", "release");
  g.add(dists + "/main/binary-amd64/Packages.xz", "xz");
  g.add(dists + "/main/binary-amd64/by-hash/SHA256/aa", "xz");
  g.add("rpm/el/9/x86_64/repodata/repomd.xml", "repomd");
  g.add("rpm/el/9/x86_64/repodata/repomd.xml.asc", "asc");
  g.add("rpm/el/9/x86_64/repodata/bb-primary.xml.gz", "gz");
  g.add(dists + "/main/binary-amd64/Packages", "text");
  g.add("deb/debian/pool/main/h/hello/hello_1.0_amd64.deb", "deb");
  g.add("gpg.key", "key");

  std::vector<std::string> paths;
  std::vector<Phase> phases;
  for (const auto* f : g.files()) {
    paths.push_back(f->path);
    phases.push_back(f->phase);
  }
  CHECK(paths == std::vector<std::string>{
                     "deb/debian/pool/main/h/hello/hello_1.0_amd64.deb",
                     dists + "/main/binary-amd64/by-hash/SHA256/aa",
                     "rpm/el/9/x86_64/repodata/bb-primary.xml.gz",
                     dists + "/main/binary-amd64/Packages.xz",
                     dists + "/main/binary-amd64/Packages",
                     "gpg.key",
                     dists + "/Release",
                     "rpm/el/9/x86_64/repodata/repomd.xml.asc",
                     dists + "/InRelease",
                     "rpm/el/9/x86_64/repodata/repomd.xml",
                 });
  CHECK(std::is_sorted(phases.begin(), phases.end()));
  CHECK(g.files().front()->bytes == "deb");
  CHECK(g.in(Phase::top_level).size() == 2);
  CHECK(g.size() == 10);
}
