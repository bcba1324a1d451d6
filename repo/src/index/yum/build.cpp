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
// open-checksum covers, comes from YumPrevious::text; only the runs compressed anew need their
// fragments, and a carried run (see YumRun) its entries.
//
// The work is one task per compressed member plus one per document for its open-checksum
// (SHA-256 cannot be split), spread over the CPUs. A member's text is the concatenation of its
// pieces: views of the tags, the kept texts and the fragments (with a "\n" after a fragment that
// lacks one).
#include "opskit/repo/index/yum/build.hpp"

#include <array>
#include <functional>
#include <thread>
#include <unordered_map>

#include <fmt/format.h>

#include "index/yum/xml.hpp"
#include "opskit/parallel.hpp"
#include "opskit/repo/codec/compress.hpp"
#include "opskit/repo/codec/digest.hpp"

namespace opskit::repo {

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
  std::size_t packages = 0;
  for (const auto& run : runs)
    packages += run.packages;
  YumIndex index;
  detail::Xml repomd;
  repomd.open("repomd")
      .attr("xmlns", "http://linux.duke.edu/metadata/repo")
      .attr("xmlns:rpm", "http://linux.duke.edu/metadata/rpm");
  repomd.element("revision", std::to_string(date));
  struct Kind {
    const char* type;
    const char* open; // the root element's start tag, without its packages attribute and '>'
    const char* close;
    std::string_view YumFragmentViews::*part;
    std::string_view YumPrevious::*previous;
  };
  static const Kind k_kinds[] = {
      {"primary",
       "<metadata xmlns=\"http://linux.duke.edu/metadata/common\" "
       "xmlns:rpm=\"http://linux.duke.edu/metadata/rpm\"",
       "</metadata>\n", &YumFragmentViews::primary, &YumPrevious::primary},
      {"filelists", "<filelists xmlns=\"http://linux.duke.edu/metadata/filelists\"",
       "</filelists>\n", &YumFragmentViews::filelists, &YumPrevious::filelists},
      {"other", "<otherdata xmlns=\"http://linux.duke.edu/metadata/other\"", "</otherdata>\n",
       &YumFragmentViews::other, &YumPrevious::other}};
  using Pieces = std::vector<std::string_view>;
  struct Member {
    std::string key;
    Pieces pieces;
    std::string_view bytes;                  // the compressed member, copied or made
    Result<std::string> made{std::string()}; // when compressed anew
    std::string text;                        // a run compressed anew: its text, to be kept
    bool fresh = false;
  };
  struct Doc {
    std::string head;
    std::vector<Member> members; // start tag, one per run, end tag
    std::vector<GzipMember> previous;
    std::unordered_map<std::string_view, const GzipMember*> reusable;
    std::string open_sha;
    std::size_t open_size = 0;
  };
  // The member of the previous file of `doc` with this key, if any.
  auto previous_member = [](const Doc& doc, std::string_view key) -> const GzipMember* {
    auto it = doc.reusable.find(key);
    return it == doc.reusable.end() ? nullptr : it->second;
  };
  std::array<Doc, std::size(k_kinds)> docs;
  std::vector<bool> fill_run(runs.size(), false); // runs compressed anew in some document
  for (std::size_t k = 0; k < docs.size(); ++k) {
    const Kind& kind = k_kinds[k];
    Doc& doc = docs[k];
    doc.previous = keyed_gzip_members(previous.*kind.previous);
    for (const auto& m : doc.previous)
      doc.reusable.emplace(m.key, &m);
    doc.head = fmt::format("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n{} packages=\"{}\">\n",
                           kind.open, packages);
    auto tag = [&](std::string_view text) {
      Member& m = doc.members.emplace_back();
      m.key = Sha256Stream().update(text).raw();
      m.pieces = {text};
      const GzipMember* old = previous_member(doc, m.key);
      m.fresh = !old || old->isize != static_cast<std::uint32_t>(text.size());
      if (!m.fresh)
        m.bytes = old->bytes;
    };
    tag(doc.head);
    for (std::size_t r = 0; r < runs.size(); ++r) {
      Member& m = doc.members.emplace_back();
      m.key = Sha256Stream().update(kind.type).update(runs[r].key).raw();
      const GzipMember* old = previous_member(doc, m.key);
      std::optional<std::string_view> text;
      if (old && previous.text)
        text = previous.text(hex(m.key), old->isize);
      if (text) {
        m.bytes = old->bytes;
        m.pieces = {*text};
      } else {
        m.fresh = true;
        fill_run[r] = true;
      }
    }
    tag(kind.close);
  }
  // The entries of the carried runs compressed anew, which must be what the run was made of,
  // and the fragments of every run compressed anew, where the caller left them out.
  for (std::size_t r = 0; r < runs.size(); ++r) {
    YumRun& run = runs[r];
    if (!fill_run[r] || !run.entries.empty() || run.packages == 0)
      continue;
    if (!entries_of)
      return fail("yum index: a carried run without its entries");
    OPSKIT_TRY_ASSIGN(auto entries, entries_of(r));
    if (entries.size() != run.packages || yum_run_key(entries) != run.key)
      return fail("yum index: a carried run's packages have changed; run `pkgcloud index`");
    run.entries = std::move(entries);
  }
  std::vector<YumEntry*> wanted;
  for (std::size_t r = 0; r < runs.size(); ++r)
    if (fill_run[r])
      for (auto& e : runs[r].entries)
        if (e.xml.primary.empty())
          wanted.push_back(&e);
  if (!wanted.empty()) {
    if (!fill)
      return fail(fmt::format("{}: no index fragments", wanted.front()->file));
    OPSKIT_TRY(fill(wanted));
  }
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
  // The texts of the runs compressed anew go back to a caller that keeps them.
  const bool keep_texts = static_cast<bool>(previous.text);
  auto make_member = [keep_texts](Member& m, bool run) {
    if (run && keep_texts) {
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
  };
  auto open_checksum = [](Doc& doc) {
    Sha256Stream sha;
    for (const auto& m : doc.members)
      for (auto piece : m.pieces) {
        sha.update(piece);
        doc.open_size += piece.size();
      }
    doc.open_sha = sha.hex();
  };
  std::vector<std::function<void()>> tasks;
  for (auto& doc : docs) // the longest tasks first
    tasks.emplace_back([&doc, &open_checksum] { open_checksum(doc); });
  for (auto& doc : docs)
    for (std::size_t i = 0; i < doc.members.size(); ++i)
      if (doc.members[i].fresh)
        tasks.emplace_back([&doc, &make_member, i] {
          make_member(doc.members[i], i > 0 && i + 1 < doc.members.size());
        });
  parallel_for(tasks.size(), std::thread::hardware_concurrency(),
               [&tasks](std::size_t i) { tasks[i](); });
  for (std::size_t k = 0; k < docs.size(); ++k) {
    const Kind& kind = k_kinds[k];
    Doc& doc = docs[k];
    std::string gz;
    std::size_t size = 0;
    for (const auto& m : doc.members) {
      if (!m.made)
        return fail(m.made.error());
      size += m.bytes.size();
    }
    gz.reserve(size);
    for (std::size_t i = 0; i < doc.members.size(); ++i) {
      Member& m = doc.members[i];
      gz += m.bytes;
      if (!keep_texts || i == 0 || i + 1 == doc.members.size())
        continue;
      index.text_names.push_back(hex(m.key));
      if (m.fresh)
        index.texts.push_back({index.text_names.back(), std::move(m.text)});
    }
    std::string sha = sha256_hex(gz);
    std::string path = fmt::format("repodata/{}-{}.xml.gz", sha, kind.type);
    repomd.open("data").attr("type", kind.type);
    repomd.open("checksum").attr("type", "sha256").text(sha).close();
    repomd.open("open-checksum").attr("type", "sha256").text(doc.open_sha).close();
    repomd.open("location").attr("href", path).close();
    repomd.element("timestamp", std::to_string(date));
    repomd.element("size", std::to_string(gz.size()));
    repomd.element("open-size", std::to_string(doc.open_size));
    repomd.close();
    index.files.push_back({std::move(path), std::move(gz)});
  }
  repomd.close();
  OPSKIT_TRY_ASSIGN(auto text, repomd.finish("repomd.xml"));
  index.repomd = std::move(text);
  return index;
}

} // namespace opskit::repo
