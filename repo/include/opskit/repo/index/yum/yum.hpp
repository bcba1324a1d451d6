// SPDX-License-Identifier: MIT
#pragma once

#include <ctime>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "opskit/error.hpp"
#include "opskit/repo/index/index_file.hpp"
#include "opskit/repo/format/rpm/rpm.hpp"

namespace opskit::repo {

// One package of a dnf repository: its headers, where it sits below the repository directory
// ("Packages/x.rpm"), its size and SHA-256 (the pkgid).
struct YumPackage {
  RpmInfo rpm;
  std::string location;
  std::uint64_t size = 0;
  std::string sha256;
};

// A dnf repository's metadata: `files` are repodata/<sha256>-{primary,filelists,other}.xml.gz
// (paths relative to the repository directory), `repomd` is repodata/repomd.xml's text.
// When the build was given YumPrevious::text, `texts` holds the text of each run of packages
// it compressed, named by its member's key in hex, for the caller to keep for the next
// rewrite, and `text_names` names the texts of every run the files hold, compressed now or
// copied.
struct YumIndex {
  std::vector<IndexFile> files;
  std::string repomd;
  std::vector<IndexFile> texts;
  std::vector<std::string> text_names;
};

// One <data> entry of repomd.xml.
struct RepomdEntry {
  std::string type, location, checksum, open_checksum;
  std::uint64_t size = 0, open_size = 0;
};

// The <data> entries of a repomd.xml; an error when it is not well-formed XML.
Result<std::vector<RepomdEntry>> parse_repomd(std::string_view text);

// Where primary.xml says each package is (relative to the repository directory), and its size.
struct YumLocation {
  std::string href;
  std::uint64_t size = 0;
};
Result<std::vector<YumLocation>> parse_primary_locations(std::string_view text);

// A package's <package> elements of primary.xml, filelists.xml and other.xml, escaped.
struct YumFragments {
  std::string primary, filelists, other;
};
Result<YumFragments> yum_fragments(const YumPackage& package);

// A package as the index writer sorts and pastes it: name, "[epoch:]version-release", arch,
// what its fragments are made from (its pkgid, pool file and size: equal ones give equal
// fragments), and its fragments, all viewed: they must outlive the build_yum_repo call. The
// fragments may be left empty for YumFill to give when they are needed.
struct YumFragmentViews {
  std::string_view primary, filelists, other;
};
struct YumEntry {
  std::string_view name, evr, arch;
  std::string_view pkgid, file;
  std::uint64_t size = 0;
  YumFragmentViews xml;
  std::size_t source = 0; // the caller's, to find the package again in YumFill
};

// What a rewrite takes from the generation before: the compressed primary, filelists and other
// files (any may be empty), whose members it copies when their key matches, and `text`, which
// gives the text of a member it copies (one a build returned in YumIndex::texts) when it is
// still kept with this size; a member whose text is not given is compressed anew.
struct YumPrevious {
  std::string_view primary, filelists, other;
  std::function<std::optional<std::string_view>(std::string_view name, std::size_t size)> text;
};

// Gives the fragments of the entries that lack them (the build asks only for the runs it
// compresses), or fails.
using YumFill = std::function<Result<void>(std::span<YumEntry* const>)>;

// True if `a` comes before `b` in the metadata: by name, rpm version order and arch.
bool yum_before(const YumEntry& a, const YumEntry& b);
// True if a run of packages (below) ends with `e`: its identity hashes to 0 mod 256. That
// depends on the package alone, so adding, changing or removing one changes the run it is in
// (or splits it, or joins it with the next) and leaves the others as they were.
bool yum_run_ends(const YumEntry& e);

// Packages that go into one gzip member of each metadata file: a rewrite copies a run's
// members or compresses them anew, whole. `key` is the SHA-256 of what the run's fragments
// are made of. A run carried from the rewrite before has its key and number of packages and
// no entries; a run made anew has its entries, sorted.
struct YumRun {
  std::string key;
  std::size_t packages = 0;
  std::vector<YumEntry> entries;
};
// `entries` sorted and split into runs: after each that yum_run_ends, and after the last.
std::vector<YumRun> yum_runs(std::vector<YumEntry> entries);

// Gives the entries of carried run `run` when its members cannot be copied, or fails.
using YumRunEntries = std::function<Result<std::vector<YumEntry>>(std::size_t run)>;

// Builds the metadata, deterministic for equal input (packages sorted by name, rpm version
// order and arch; `date` as every timestamp). Equal input gives equal bytes with or without
// `previous`, and with runs carried or made anew; they only save work.
Result<YumIndex> build_yum_repo(std::vector<YumEntry> entries, std::time_t date,
                                const YumPrevious& previous = {}, const YumFill& fill = {});
Result<YumIndex> build_yum_repo(std::vector<YumRun> runs, std::time_t date,
                                const YumPrevious& previous, const YumFill& fill,
                                const YumRunEntries& entries_of);
Result<YumIndex> build_yum_repo(std::vector<YumPackage> packages, std::time_t date,
                                const YumPrevious& previous = {});

} // namespace opskit::repo
