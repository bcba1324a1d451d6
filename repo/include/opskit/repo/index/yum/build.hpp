// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <ctime>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "opskit/error.hpp"
#include "opskit/repo/index/index_file.hpp"
#include "opskit/repo/index/yum/fragments.hpp"
#include "opskit/repo/index/yum/runs.hpp"

namespace opskit::repo {

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

// The text of a member a rewrite copies, kept by the caller: gives it to `sink` in order, in
// pieces (a file read a buffer at a time need not be held whole), or fails.
using YumTextSink = std::function<void(std::string_view)>;
using YumKeptText = std::function<Result<void>(const YumTextSink& sink)>;

// What a rewrite takes from the generation before: the compressed primary, filelists and other
// files (any may be empty), whose members it copies when their key matches, and `text`, which
// gives the text of a member it copies (one a build returned in YumIndex::texts) when it is
// still kept with this size; a member whose text is not given is compressed anew.
struct YumPrevious {
  std::string_view primary, filelists, other;
  std::function<std::optional<YumKeptText>(std::string_view name, std::size_t size)> text;
};

// Gives the fragments of the entries that lack them (the build asks only for the runs it
// compresses), or fails.
using YumFill = std::function<Result<void>(std::span<YumEntry* const>)>;

// Gives the entries of carried run `run` when its members cannot be copied, or fails.
using YumRunEntries = std::function<Result<std::vector<YumEntry>>(std::size_t run)>;

// Builds the metadata, deterministic for equal input (packages sorted by name, rpm version
// order and arch; `date` as every timestamp). Equal input gives equal bytes with or without
// `previous`, and with runs carried or made anew; they only save work. Fails when a run
// compressed anew lacks fragments and `fill` cannot give them, when a carried run must be
// compressed and `entries_of` is missing or gives other packages than the run was made of, or
// when compressing or writing XML fails.
Result<YumIndex> build_yum_repo(std::vector<YumEntry> entries, std::time_t date,
                                const YumPrevious& previous = {}, const YumFill& fill = {});
Result<YumIndex> build_yum_repo(std::vector<YumRun> runs, std::time_t date,
                                const YumPrevious& previous, const YumFill& fill,
                                const YumRunEntries& entries_of);
Result<YumIndex> build_yum_repo(std::vector<YumPackage> packages, std::time_t date,
                                const YumPrevious& previous = {});

} // namespace opskit::repo
