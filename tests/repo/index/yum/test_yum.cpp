// SPDX-License-Identifier: MIT
#include <catch2/catch.hpp>

#include <set>

#include <fmt/format.h>

#include "opskit/repo/codec/compress.hpp"
#include "opskit/repo/codec/digest.hpp"
#include "opskit/repo/index/yum/yum.hpp"
#include "process.hpp"

using namespace opskit::repo;

namespace {

YumPackage package(const std::string& name, const std::string& epoch, const std::string& version) {
  YumPackage p;
  p.rpm.name = name;
  p.rpm.epoch = epoch;
  p.rpm.version = version;
  p.rpm.release = "1";
  p.rpm.arch = "noarch";
  p.rpm.summary = "a <b> & \"c\"";
  p.rpm.files = {{"/etc/x.conf", RpmFileType::file}, {"/usr/share/x", RpmFileType::dir}};
  p.rpm.requirements = {{"/bin/sh", "", "", "", "", true}};
  p.location = "Packages/" + name + ".rpm";
  p.size = 100;
  p.sha256 = std::string(64, 'a');
  return p;
}

std::string uncompressed(const YumIndex& index, const std::string& type) {
  for (const auto& f : index.files)
    if (f.path.ends_with("-" + type + ".xml.gz"))
      return *gzip_decompress(f.data, 1 << 20);
  return {};
}

const IndexFile& file_of(const YumIndex& index, const std::string& type) {
  for (const auto& f : index.files)
    if (f.path.ends_with("-" + type + ".xml.gz"))
      return f;
  FAIL("no " << type << " file");
  throw;
}

std::vector<YumPackage> numbered(int count) {
  std::vector<YumPackage> out;
  for (int i = 0; i < count; ++i)
    out.push_back(package(fmt::format("p{:05}", 10 * i), "", "1.0"));
  return out;
}

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
  return {
      {}, {}, {}, [](std::string_view, std::size_t) { return std::optional<std::string_view>(); }};
}

// The texts `index` handed out, as the caller keeps them for a rewrite.
std::function<std::optional<std::string_view>(std::string_view, std::size_t)>
kept_texts(const YumIndex& index) {
  return [&index](std::string_view name, std::size_t size) -> std::optional<std::string_view> {
    for (const auto& t : index.texts)
      if (t.path == name && t.data.size() == size)
        return t.data;
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

TEST_CASE("yum index: a rewrite asks only for the fragments of the runs it compresses",
          "[repo][rpm]") {
  auto packages = numbered(2000);
  auto before = build_yum_repo(packages, 5, keeping_texts());
  REQUIRE(before);
  const std::string primary = file_of(*before, "primary").data,
                    filelists = file_of(*before, "filelists").data,
                    other = file_of(*before, "other").data;
  packages.push_back(package("p10005", "", "1.0"));
  auto fresh = build_yum_repo(packages, 5);
  REQUIRE(fresh);
  // The same packages as entries without fragments; the fill gives them on demand.
  std::vector<YumFragments> fragments;
  std::vector<std::string> evrs;
  std::vector<YumEntry> entries;
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
  std::size_t asked = 0;
  YumFill fill = [&](std::span<YumEntry* const> wanted) -> opskit::Result<void> {
    for (YumEntry* e : wanted) {
      const YumFragments& f = fragments[e->source];
      e->xml = {f.primary, f.filelists, f.other};
    }
    asked += wanted.size();
    return {};
  };
  auto rewritten =
      build_yum_repo(entries, 5, YumPrevious{primary, filelists, other, kept_texts(*before)}, fill);
  REQUIRE(rewritten);
  CHECK(asked > 0);
  CHECK(asked < packages.size() / 4);
  CHECK(rewritten->repomd == fresh->repomd);
  // Without the texts of the previous runs, nothing can be copied: every fragment is asked for.
  asked = 0;
  auto blind = build_yum_repo(entries, 5, YumPrevious{primary, filelists, other, {}}, fill);
  REQUIRE(blind);
  CHECK(asked == packages.size());
  CHECK(blind->repomd == fresh->repomd);
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

TEST_CASE("yum index: primary carries the package count, epoch=\"0\" and escaped text",
          "[repo][rpm]") {
  auto index = build_yum_repo({package("b", "", "1.0"), package("a", "2", "1.0")}, 1764000000);
  REQUIRE(index);
  std::string primary = uncompressed(*index, "primary");
  CHECK(primary.find("packages=\"2\"") != std::string::npos);
  CHECK(primary.find("<version epoch=\"0\" ver=\"1.0\" rel=\"1\"/>") != std::string::npos);
  CHECK(primary.find("<version epoch=\"2\" ver=\"1.0\" rel=\"1\"/>") != std::string::npos);
  CHECK(primary.find("<summary>a &lt;b&gt; &amp; &quot;c&quot;</summary>") != std::string::npos);
  CHECK(primary.find("<rpm:entry name=\"/bin/sh\" pre=\"1\"/>") != std::string::npos);
  CHECK(primary.find("<name>a</name>") < primary.find("<name>b</name>"));
  // primary lists /etc files only; filelists lists every file with its type
  CHECK(primary.find("/usr/share/x") == std::string::npos);
  CHECK(uncompressed(*index, "filelists").find("<file type=\"dir\">/usr/share/x</file>") !=
        std::string::npos);
}

TEST_CASE("yum index: the locations read back from primary are each package's href and size",
          "[repo][rpm]") {
  auto packages = numbered(3);
  packages[1].location = "Packages/a&b.rpm";
  packages[2].size = 1234567;
  auto index = build_yum_repo(packages, 1764000000);
  REQUIRE(index);
  auto locations = parse_primary_locations(uncompressed(*index, "primary"));
  REQUIRE(locations);
  REQUIRE(locations->size() == 3);
  CHECK((*locations)[0].href == packages[0].location);
  CHECK((*locations)[1].href == "Packages/a&b.rpm");
  CHECK((*locations)[2].size == 1234567);
  // Only <package> elements count, and a document that breaks off is an error.
  auto other = parse_primary_locations(
      "<metadata><package><location href=\"a.rpm\"/><size package=\"1\"/></package>"
      "<other><location href=\"b.rpm\"/></other></metadata>");
  REQUIRE(other);
  REQUIRE(other->size() == 1);
  CHECK((*other)[0].href == "a.rpm");
  CHECK((*other)[0].size == 1);
  CHECK(!parse_primary_locations("<metadata><package><location href=\"a.rpm\"/>"));
}

TEST_CASE("yum index: repomd names each file by its SHA-256 with both checksums and sizes",
          "[repo][rpm]") {
  auto index = build_yum_repo({package("a", "", "1.0")}, 1764000000);
  REQUIRE(index);
  auto entries = parse_repomd(index->repomd);
  REQUIRE(entries);
  REQUIRE(entries->size() == 3);
  for (const auto& e : *entries) {
    const IndexFile* file = nullptr;
    for (const auto& f : index->files)
      if (f.path == e.location)
        file = &f;
    REQUIRE(file);
    CHECK(e.location == "repodata/" + sha256_hex(file->data) + "-" + e.type + ".xml.gz");
    CHECK(e.checksum == sha256_hex(file->data));
    CHECK(e.size == file->data.size());
    std::string open = *gzip_decompress(file->data, 1 << 20);
    CHECK(index->repomd.find("<open-checksum type=\"sha256\">" + sha256_hex(open) +
                             "</open-checksum>") != std::string::npos);
  }
  CHECK(index->repomd.find("<timestamp>1764000000</timestamp>") != std::string::npos);
}

TEST_CASE("yum index: equal input gives byte-equal metadata", "[repo][rpm]") {
  auto a = build_yum_repo({package("a", "", "1.0")}, 5),
       b = build_yum_repo({package("a", "", "1.0")}, 5);
  REQUIRE(a);
  REQUIRE(b);
  CHECK(a->repomd == b->repomd);
}
