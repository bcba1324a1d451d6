// SPDX-License-Identifier: MIT
#include <catch2/catch.hpp>

#include <set>

#include "index/yum/packages.hpp"
#include "opskit/repo/codec/compress.hpp"
#include "opskit/repo/codec/digest.hpp"
#include "opskit/repo/index/yum/build.hpp"
#include "opskit/repo/index/yum/repomd.hpp"
#include "process.hpp"

using namespace opskit::repo;
using opskit::test::file_of;
using opskit::test::numbered;
using opskit::test::package;

namespace {

// The same members as `gz` (keys, sizes), each compressed at level 1: what a rewrite
// copies from it shows in its output.
std::string recompressed(const std::string& gz) {
  std::string out;
  for (const auto& m : keyed_gzip_members(gz))
    out += *gzip_keyed_member(*gzip_decompress(m.bytes, 1 << 24), m.key, 1);
  return out;
}

// A first build that hands out the texts of its runs (there are none to copy yet).
YumPrevious keeping_texts() {
  return {{}, {}, {}, [](std::string_view, std::size_t) { return std::optional<YumKeptText>(); }};
}

// The texts `index` handed out, as the caller keeps them for a rewrite.
std::function<std::optional<YumKeptText>(std::string_view, std::size_t)>
kept_texts(const YumIndex& index) {
  return [&index](std::string_view name, std::size_t size) -> std::optional<YumKeptText> {
    for (const auto& t : index.texts)
      if (t.path == name && t.data.size() == size)
        return [&t](const YumTextSink& sink) -> opskit::Result<void> {
          sink(t.data);
          return {};
        };
    return std::nullopt;
  };
}

std::size_t members_copied(std::string_view from, std::string_view into) {
  std::set<std::string_view> old;
  for (const auto& m : keyed_gzip_members(from))
    old.insert(m.bytes);
  std::size_t n = 0;
  for (const auto& m : keyed_gzip_members(into))
    n += old.contains(m.bytes);
  return n;
}

} // namespace

TEST_CASE("yum index: the .xml.gz files are keyed gzip members that gzip itself reads",
          "[repo][rpm]") {
  auto index = build_yum_repo(numbered(2000), 5);
  REQUIRE(index);
  const IndexFile& primary = file_of(*index, "primary");
  auto members = keyed_gzip_members(primary.data);
  CHECK(members.size() > 4); // start tag, runs of packages, end tag
  std::size_t total = 0;
  for (const auto& m : members)
    total += m.bytes.size();
  CHECK(total == primary.data.size());
  auto gunzip = opskit::test::run({"gzip", "-dc"}, primary.data);
  REQUIRE(gunzip.exit_status == 0);
  CHECK(gunzip.out == *gzip_decompress(primary.data, 1 << 24));
  CHECK(gunzip.out.find("packages=\"2000\"") != std::string::npos);
}

TEST_CASE("yum index: a rewrite copies the previous file's unchanged members", "[repo][rpm]") {
  auto packages = numbered(2000);
  auto before = build_yum_repo(packages, 5, keeping_texts());
  REQUIRE(before);
  const std::string primary = recompressed(file_of(*before, "primary").data),
                    filelists = recompressed(file_of(*before, "filelists").data),
                    other = recompressed(file_of(*before, "other").data);
  YumPrevious previous{primary, filelists, other, kept_texts(*before)};
  packages.push_back(package("p10005", "", "1.0")); // lands inside one run of packages
  auto fresh = build_yum_repo(packages, 5);
  auto rewritten = build_yum_repo(packages, 5, previous);
  REQUIRE(fresh);
  REQUIRE(rewritten);
  for (const char* type : {"primary", "filelists", "other"}) {
    INFO(type);
    std::string_view old = type == std::string("primary")     ? previous.primary
                           : type == std::string("filelists") ? previous.filelists
                                                              : previous.other;
    const std::string& data = file_of(*rewritten, type).data;
    CHECK(*gzip_decompress(data, 1 << 24) == *gzip_decompress(file_of(*fresh, type).data, 1 << 24));
    // All but the start tag (its package count changed) and the run that took the new package
    // (two when it also moved a run boundary).
    std::size_t members = keyed_gzip_members(data).size();
    std::size_t copied = members_copied(old, data);
    CHECK(copied >= members - 3);
    CHECK(copied < members);
  }
  // repomd.xml describes the bytes written, copied or not.
  auto entries = parse_repomd(rewritten->repomd);
  REQUIRE(entries);
  for (const auto& e : *entries)
    CHECK(e.checksum == sha256_hex(file_of(*rewritten, e.type).data));
}

namespace {

// `packages` as entries without fragments, and a fill that gives them on demand and counts the
// packages it was asked for.
struct Unfilled {
  explicit Unfilled(const std::vector<YumPackage>& packages) {
    for (const auto& p : packages) {
      fragments.push_back(*yum_fragments(p));
      evrs.push_back(p.rpm.evr());
    }
    for (std::size_t i = 0; i < packages.size(); ++i)
      entries.push_back({packages[i].rpm.name,
                         evrs[i],
                         packages[i].rpm.arch,
                         packages[i].sha256,
                         packages[i].location,
                         packages[i].size,
                         {},
                         i});
  }
  YumFill fill() {
    return [this](std::span<YumEntry* const> wanted) -> opskit::Result<void> {
      for (YumEntry* e : wanted) {
        const YumFragments& f = fragments[e->source];
        e->xml = {f.primary, f.filelists, f.other};
        asked.insert(std::string(e->name));
      }
      return {};
    };
  }
  std::vector<YumFragments> fragments;
  std::vector<std::string> evrs;
  std::vector<YumEntry> entries;
  std::set<std::string> asked;
};

// A first build of `packages` that hands out the texts of its runs, and what a rewrite takes
// from it.
struct Before {
  explicit Before(const std::vector<YumPackage>& packages)
      : index(*build_yum_repo(packages, 5, keeping_texts())),
        primary(file_of(index, "primary").data), filelists(file_of(index, "filelists").data),
        other(file_of(index, "other").data) {}
  YumPrevious previous() const { return {primary, filelists, other, kept_texts(index)}; }
  YumPrevious without_texts() const { return {primary, filelists, other, {}}; }
  YumIndex index;
  std::string primary, filelists, other;
};

// The packages a rewrite of `packages` after `previous` asks the caller for; its output is a
// whole build's.
std::set<std::string> asked_in_rewrite(const std::vector<YumPackage>& packages,
                                       const YumPrevious& previous) {
  Unfilled unfilled(packages);
  auto rewritten = build_yum_repo(unfilled.entries, 5, previous, unfilled.fill());
  REQUIRE(rewritten);
  CHECK(rewritten->repomd == build_yum_repo(packages, 5)->repomd);
  return unfilled.asked;
}

} // namespace

TEST_CASE("yum index: a rewrite takes the fragments of the run it replaces from its kept text, "
          "and asks only for the package it adds",
          "[repo][rpm]") {
  auto packages = numbered(2000);
  Before before(packages);
  packages.push_back(package("p10005", "", "1.0"));
  CHECK(asked_in_rewrite(packages, before.previous()) == std::set<std::string>{"p10005"});
  // Without the texts of the previous runs, nothing can be copied: every fragment is asked for.
  CHECK(asked_in_rewrite(packages, before.without_texts()).size() == packages.size());
}

TEST_CASE("yum index: a fragment of a replaced run made from another file is not taken",
          "[repo][rpm]") {
  auto packages = numbered(2000);
  Before before(packages);
  SECTION("a package of another size in a run") {
    packages[1000].size = 200; // p10000: its run is replaced
    CHECK(asked_in_rewrite(packages, before.previous()) == std::set<std::string>{"p10000"});
  }
  SECTION("a package moved to another file in a run") {
    packages[1000].location = "Packages/elsewhere.rpm";
    CHECK(asked_in_rewrite(packages, before.previous()) == std::set<std::string>{"p10000"});
  }
  SECTION("every run replaced, as a change to how fragments are written replaces them") {
    for (auto& p : packages)
      p.size = 200;
    CHECK(asked_in_rewrite(packages, before.previous()).size() == packages.size());
  }
}

TEST_CASE("yum index: a previous member whose size disagrees is compressed anew", "[repo][rpm]") {
  auto packages = numbered(600);
  auto before = build_yum_repo(packages, 5, keeping_texts());
  REQUIRE(before);
  std::string damaged = recompressed(file_of(*before, "primary").data);
  for (const auto& m : keyed_gzip_members(damaged)) { // flip a bit of each stored size
    auto at = static_cast<std::size_t>(m.bytes.data() - damaged.data()) + m.bytes.size() - 4;
    damaged[at] = static_cast<char>(damaged[at] ^ 1);
  }
  auto rewritten = build_yum_repo(packages, 5, YumPrevious{damaged, "", "", kept_texts(*before)});
  REQUIRE(rewritten);
  CHECK(file_of(*rewritten, "primary").data == file_of(*before, "primary").data);
}

TEST_CASE("yum index: a kept text that reads short or fails fails the rewrite", "[repo][rpm]") {
  auto packages = numbered(600);
  auto before = build_yum_repo(packages, 5, keeping_texts());
  REQUIRE(before);
  const std::string primary = file_of(*before, "primary").data;
  packages.push_back(package("p10005", "", "1.0"));
  // The text was there, of its size, when the build planned; what the open-checksum reads is not.
  auto short_text = [](std::string_view, std::size_t) -> std::optional<YumKeptText> {
    return [](const YumTextSink& sink) -> opskit::Result<void> {
      sink("<package/>\n");
      return {};
    };
  };
  auto rewritten = build_yum_repo(packages, 5, YumPrevious{primary, "", "", short_text});
  REQUIRE_FALSE(rewritten);
  CHECK_THAT(rewritten.error().message(), Catch::Contains("kept text"));
  auto failing = [](std::string_view, std::size_t) -> std::optional<YumKeptText> {
    return [](const YumTextSink&) -> opskit::Result<void> { return opskit::fail("x: gone"); };
  };
  rewritten = build_yum_repo(packages, 5, YumPrevious{primary, "", "", failing});
  REQUIRE_FALSE(rewritten);
  CHECK_THAT(rewritten.error().message(), Catch::Contains("x: gone"));
}

TEST_CASE("yum index: equal input gives byte-equal metadata", "[repo][rpm]") {
  auto a = build_yum_repo({package("a", "", "1.0")}, 5),
       b = build_yum_repo({package("a", "", "1.0")}, 5);
  REQUIRE(a);
  REQUIRE(b);
  CHECK(a->repomd == b->repomd);
}
