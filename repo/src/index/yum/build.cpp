// SPDX-License-Identifier: MIT
// The build of a dnf repository's metadata: primary.xml.gz, filelists.xml.gz and other.xml.gz
// from the packages' fragments, and repomd.xml naming them.
//
// The three documents are the root element around the packages' fragments, which were written
// and escaped once, when each package was pushed. Each is written as keyed gzip members: the
// start tag, one per run of packages (runs.cpp), the end tag. The key of a tag's member is the
// SHA-256 of its text; the key of a run's is the SHA-256 of what its fragments are made from
// (document, and each package's pkgid, pool file and size), so that a rewrite knows which runs
// it can copy without reading a single fragment. A copied run's text, which the document's
// open-checksum covers, comes from YumPrevious::text, streamed into the checksum as it is read;
// only the runs compressed anew need their fragments, and a carried run (see YumRun) its entries.
// Those fragments come from the texts of the runs they replace where those hold them (a push
// changes one package of a run), else from the caller.
//
// The work is one task per compressed member, one per document for its open-checksum (SHA-256
// cannot be split) and one per document to join and hash its compressed file, spread over the
// CPUs. A member's text is the concatenation of its pieces: views of the tags and the fragments
// (with a "\n" after a fragment that lacks one), or the kept text of a copied run.
#include "opskit/repo/index/yum/build.hpp"

#include <array>
#include <atomic>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "index/yum/replaced.hpp"
#include "opskit/parallel.hpp"
#include "opskit/repo/codec/compress.hpp"
#include "opskit/repo/codec/digest.hpp"
#include "opskit/repo/index/yum/repomd.hpp"

namespace opskit::repo {

namespace {

// One of the three documents: its type in repomd.xml, its root element and where its part of a
// package's fragments and of the previous generation are.
struct Kind {
  const char* type;
  const char* open; // the root element's start tag, without its packages attribute and '>'
  const char* close;
  std::string_view YumFragmentViews::*part;
  std::string_view YumPrevious::*previous;
};
constexpr Kind k_kinds[] = {
    {"primary",
     "<metadata xmlns=\"http://linux.duke.edu/metadata/common\" "
     "xmlns:rpm=\"http://linux.duke.edu/metadata/rpm\"",
     "</metadata>\n", &YumFragmentViews::primary, &YumPrevious::primary},
    {"filelists", "<filelists xmlns=\"http://linux.duke.edu/metadata/filelists\"", "</filelists>\n",
     &YumFragmentViews::filelists, &YumPrevious::filelists},
    {"other", "<otherdata xmlns=\"http://linux.duke.edu/metadata/other\"", "</otherdata>\n",
     &YumFragmentViews::other, &YumPrevious::other}};

using Pieces = std::vector<std::string_view>;

// One gzip member of a document: a tag or a run of packages.
struct Member {
  std::string key;
  Pieces pieces;
  std::optional<YumKeptText> kept; // a copied run's text
  std::size_t kept_size = 0;
  std::string_view bytes;                  // the compressed member, copied or made
  Result<std::string> made{std::string()}; // when compressed anew
  std::string text;                        // a run compressed anew: its text, to be kept
  bool fresh = false;
};

// One document as it is built: its members, and the members of its previous file by key.
struct Doc {
  std::string head;
  std::vector<Member> members; // start tag, one per run, end tag
  std::vector<GzipMember> previous;
  std::unordered_map<std::string_view, const GzipMember*> reusable;
  std::string open_sha;
  std::size_t open_size = 0;
  Result<void> read{}; // of the kept texts, for the open-checksum
};
using Docs = std::array<Doc, std::size(k_kinds)>;

// Whether the texts of the runs compressed anew go back to the caller, who keeps them.
enum class Texts { drop, keep };

std::size_t package_count(const std::vector<YumRun>& runs) {
  std::size_t packages = 0;
  for (const auto& run : runs)
    packages += run.packages;
  return packages;
}

// The member of the previous file of `doc` with this key, if any.
const GzipMember* previous_member(const Doc& doc, std::string_view key) {
  auto it = doc.reusable.find(key);
  return it == doc.reusable.end() ? nullptr : it->second;
}

// The member of a start or end tag: copied when the previous file has it, of the same size.
void add_tag(Doc& doc, std::string_view text) {
  Member& m = doc.members.emplace_back();
  m.key = Sha256Stream().update(text).raw();
  m.pieces = {text};
  const GzipMember* old = previous_member(doc, m.key);
  m.fresh = !old || old->isize != static_cast<std::uint32_t>(text.size());
  if (!m.fresh)
    m.bytes = old->bytes;
}

// The member of a run: copied when the previous file has it and its text is still kept, else
// compressed anew, from pieces pasted later.
const Member& add_run(Doc& doc, const Kind& kind, const YumRun& run, const YumPrevious& previous) {
  Member& m = doc.members.emplace_back();
  m.key = Sha256Stream().update(kind.type).update(run.key).raw();
  const GzipMember* old = previous_member(doc, m.key);
  if (old && previous.text)
    m.kept = previous.text(hex(m.key), old->isize);
  if (m.kept) {
    m.bytes = old->bytes;
    m.kept_size = old->isize;
  } else {
    m.fresh = true;
  }
  return m;
}

// The members of `doc` (built in place: its members view its head), marking in `fresh_runs`
// the runs it compresses anew.
void plan_doc(Doc& doc, const Kind& kind, const std::vector<YumRun>& runs,
              const YumPrevious& previous, std::vector<bool>& fresh_runs) {
  doc.previous = keyed_gzip_members(previous.*kind.previous);
  for (const auto& m : doc.previous)
    doc.reusable.emplace(m.key, &m);
  doc.head = fmt::format("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n{} packages=\"{}\">\n",
                         kind.open, package_count(runs));
  add_tag(doc, doc.head);
  for (std::size_t r = 0; r < runs.size(); ++r)
    if (add_run(doc, kind, runs[r], previous).fresh)
      fresh_runs[r] = true;
  add_tag(doc, kind.close);
}

// The entries of the carried runs compressed anew, which must be what the run was made of.
Result<void> load_carried_runs(std::vector<YumRun>& runs, const std::vector<bool>& fresh_runs,
                               const YumRunEntries& entries_of) {
  for (std::size_t r = 0; r < runs.size(); ++r) {
    YumRun& run = runs[r];
    if (!fresh_runs[r] || !run.entries.empty() || run.packages == 0)
      continue;
    if (!entries_of)
      return fail("yum index: a carried run without its entries");
    OPSKIT_TRY_ASSIGN(auto entries, entries_of(r));
    if (entries.size() != run.packages || yum_run_key(entries) != run.key)
      return fail("yum index: a carried run's packages have changed; run `pkgcloud index`");
    run.entries = std::move(entries);
  }
  return {};
}

// At most this many runs of a document replaced, for a rewrite to read their fragments back
// (ReplacedRuns): a push or an rm replaces one or two. A change to how fragments are written
// replaces every run, and then each package's fragments come from the caller.
constexpr std::size_t k_max_replaced = 4;

// The kept texts of the runs of `doc` that the rewrite replaces (members of the previous file
// that no new member is), to `replaced`.
void read_replaced(const Doc& doc, ReplacedRuns::Document document, const YumPrevious& previous,
                   ReplacedRuns& replaced) {
  std::unordered_set<std::string_view> keys;
  for (const auto& m : doc.members)
    keys.insert(m.key);
  std::vector<const GzipMember*> gone;
  for (const auto& old : doc.previous)
    if (!keys.contains(old.key))
      gone.push_back(&old);
  if (gone.size() > k_max_replaced + 1) // and the start tag, which counts the packages
    return;
  for (const GzipMember* old : gone) {
    auto kept = previous.text(hex(old->key), old->isize);
    if (!kept)
      continue; // a tag, or a text not kept
    std::string text;
    text.reserve(old->isize);
    if ((*kept)([&text](std::string_view piece) { text += piece; }) && text.size() == old->isize)
      replaced.add(document, std::move(text));
  }
}

// Gives the entries of the runs compressed anew that lack fragments those of the same package
// file in the runs they replace.
void splice_replaced(const Docs& docs, std::vector<YumRun>& runs,
                     const std::vector<bool>& fresh_runs, const YumPrevious& previous,
                     ReplacedRuns& replaced) {
  if (!previous.text)
    return;
  for (std::size_t k = 0; k < docs.size(); ++k)
    read_replaced(docs[k], ReplacedRuns::Document(k), previous, replaced);
  for (std::size_t r = 0; r < runs.size(); ++r)
    if (fresh_runs[r])
      for (auto& e : runs[r].entries)
        if (e.xml.primary.empty())
          replaced.fill(e);
}

// The fragments of every run compressed anew, where the caller left them out.
Result<void> fill_fragments(std::vector<YumRun>& runs, const std::vector<bool>& fresh_runs,
                            const YumFill& fill) {
  std::vector<YumEntry*> wanted;
  for (std::size_t r = 0; r < runs.size(); ++r)
    if (fresh_runs[r])
      for (auto& e : runs[r].entries)
        if (e.xml.primary.empty())
          wanted.push_back(&e);
  if (wanted.empty())
    return {};
  if (!fill)
    return fail(fmt::format("{}: no index fragments", wanted.front()->file));
  return fill(wanted);
}

// The pieces of the runs compressed anew: their packages' fragments.
void paste_fragments(Docs& docs, const std::vector<YumRun>& runs) {
  for (std::size_t k = 0; k < docs.size(); ++k)
    for (std::size_t r = 0; r < runs.size(); ++r) {
      Member& m = docs[k].members[r + 1];
      if (!m.fresh)
        continue;
      for (const auto& e : runs[r].entries) {
        std::string_view fragment = e.xml.*k_kinds[k].part;
        m.pieces.push_back(fragment);
        if (!fragment.ends_with('\n'))
          m.pieces.push_back("\n");
      }
    }
}

// Compresses `m` from its pieces, keeping their text in it with Texts::keep.
void make_member(Member& m, Texts texts) {
  if (texts == Texts::keep) {
    std::size_t size = 0;
    for (auto piece : m.pieces)
      size += piece.size();
    m.text.reserve(size);
    for (auto piece : m.pieces)
      m.text += piece;
    m.made = gzip_keyed_member(m.text, m.key);
  } else {
    m.made = gzip_keyed_member(m.pieces, m.key);
  }
  if (m.made)
    m.bytes = *m.made;
}

// The SHA-256 and size of the document's text: its members' pieces and kept texts in order.
void open_checksum(Doc& doc) {
  Sha256Stream sha;
  auto add = [&](std::string_view piece) {
    sha.update(piece);
    doc.open_size += piece.size();
  };
  for (const auto& m : doc.members) {
    for (auto piece : m.pieces)
      add(piece);
    if (!m.kept)
      continue;
    std::size_t before = doc.open_size;
    doc.read = (*m.kept)(add);
    if (doc.read && doc.open_size - before != m.kept_size)
      doc.read =
          fail(fmt::format("yum index: the kept text {} is not {} bytes", hex(m.key), m.kept_size));
    if (!doc.read)
      return;
  }
  doc.open_sha = sha.hex();
}

// A document's compressed file and its SHA-256.
struct Finished {
  Result<std::string> gz;
  std::string sha;
};
using Files = std::array<Finished, std::size(k_kinds)>;

// The compressed file: the members' bytes in order, or the first member's failure.
Result<std::string> concatenate(const Doc& doc) {
  std::size_t size = 0;
  for (const auto& m : doc.members) {
    if (!m.made)
      return fail(m.made.error());
    size += m.bytes.size();
  }
  std::string gz;
  gz.reserve(size);
  for (const auto& m : doc.members)
    gz += m.bytes;
  return gz;
}

// Compresses the members made anew, takes each document's open-checksum, and joins and hashes
// each document's compressed file, on all the CPUs. The open-checksum of primary is the
// longest task by far (its text is most of the repository's metadata): the other CPUs join the
// files meanwhile. A document's file is joined once its members are made; its task waits for
// them, and they are under way by then, as tasks are taken in order and members come first.
Files make_files(Docs& docs, Texts texts) {
  std::array<std::atomic<std::size_t>, std::size(k_kinds)> unmade{};
  std::vector<std::function<void()>> tasks;
  for (auto& doc : docs) // the longest tasks first
    tasks.emplace_back([&doc] { open_checksum(doc); });
  for (std::size_t k = 0; k < docs.size(); ++k)
    for (std::size_t i = 0; i < docs[k].members.size(); ++i) {
      if (!docs[k].members[i].fresh)
        continue;
      bool run = i > 0 && i + 1 < docs[k].members.size();
      Texts kept = run ? texts : Texts::drop;
      ++unmade[k];
      tasks.emplace_back([&member = docs[k].members[i], &left = unmade[k], kept] {
        make_member(member, kept);
        if (--left == 0)
          left.notify_all();
      });
    }
  Files files;
  for (std::size_t k = 0; k < docs.size(); ++k)
    tasks.emplace_back([&doc = docs[k], &left = unmade[k], &file = files[k]] {
      for (std::size_t n; (n = left.load()) != 0;)
        left.wait(n);
      file.gz = concatenate(doc);
      if (file.gz)
        file.sha = sha256_hex(*file.gz);
    });
  parallel_for(tasks.size(), std::thread::hardware_concurrency(),
               [&tasks](std::size_t i) { tasks[i](); });
  return files;
}

// Names the texts of the document's runs in `index`, and hands over those compressed anew.
void hand_out_texts(Doc& doc, YumIndex& index) {
  for (std::size_t i = 1; i + 1 < doc.members.size(); ++i) {
    Member& m = doc.members[i];
    index.text_names.push_back(hex(m.key));
    if (m.fresh)
      index.texts.push_back({index.text_names.back(), std::move(m.text)});
  }
}

// Adds the document's file to `index`, named by its SHA-256, and gives its repomd.xml entry.
Result<RepomdEntry> finish_doc(Doc& doc, Finished finished, const Kind& kind, Texts texts,
                               YumIndex& index) {
  OPSKIT_TRY(doc.read);
  OPSKIT_TRY_ASSIGN(auto gz, std::move(finished.gz));
  if (texts == Texts::keep)
    hand_out_texts(doc, index);
  const std::string& sha = finished.sha;
  RepomdEntry entry{.type = kind.type,
                    .location = fmt::format("repodata/{}-{}.xml.gz", sha, kind.type),
                    .checksum = sha,
                    .open_checksum = doc.open_sha,
                    .size = gz.size(),
                    .open_size = doc.open_size};
  index.files.push_back({entry.location, std::move(gz)});
  return entry;
}

} // namespace

Result<YumIndex> build_yum_repo(std::vector<YumPackage> packages, std::time_t date,
                                const YumPrevious& previous) {
  std::vector<YumFragments> fragments;
  fragments.reserve(packages.size());
  std::vector<std::string> evrs;
  evrs.reserve(packages.size());
  std::vector<YumEntry> entries;
  for (const auto& p : packages) {
    OPSKIT_TRY_ASSIGN(auto xml, yum_fragments(p));
    const YumFragments& f = fragments.emplace_back(std::move(xml));
    entries.push_back({p.rpm.name,
                       evrs.emplace_back(p.rpm.evr()),
                       p.rpm.arch,
                       p.sha256,
                       p.location,
                       p.size,
                       {f.primary, f.filelists, f.other},
                       entries.size()});
  }
  return build_yum_repo(std::move(entries), date, previous);
}

Result<YumIndex> build_yum_repo(std::vector<YumEntry> entries, std::time_t date,
                                const YumPrevious& previous, const YumFill& fill) {
  return build_yum_repo(yum_runs(std::move(entries)), date, previous, fill, {});
}

Result<YumIndex> build_yum_repo(std::vector<YumRun> runs, std::time_t date,
                                const YumPrevious& previous, const YumFill& fill,
                                const YumRunEntries& entries_of) {
  // The documents stay where they are made: their members view their heads.
  Docs docs;
  std::vector<bool> fresh_runs(runs.size(), false); // runs compressed anew in some document
  for (std::size_t k = 0; k < docs.size(); ++k)
    plan_doc(docs[k], k_kinds[k], runs, previous, fresh_runs);
  OPSKIT_TRY(load_carried_runs(runs, fresh_runs, entries_of));
  ReplacedRuns replaced; // viewed by the entries it fills
  splice_replaced(docs, runs, fresh_runs, previous, replaced);
  OPSKIT_TRY(fill_fragments(runs, fresh_runs, fill));
  paste_fragments(docs, runs);
  const Texts texts = previous.text ? Texts::keep : Texts::drop;
  auto files = make_files(docs, texts);
  YumIndex index;
  std::vector<RepomdEntry> entries;
  for (std::size_t k = 0; k < docs.size(); ++k) {
    OPSKIT_TRY_ASSIGN(auto entry,
                      finish_doc(docs[k], std::move(files[k]), k_kinds[k], texts, index));
    entries.push_back(std::move(entry));
  }
  OPSKIT_TRY_ASSIGN(index.repomd, write_repomd(entries, date));
  return index;
}

} // namespace opskit::repo
