// SPDX-License-Identifier: MIT
// Writing dnf repositories: each built and signed in memory (its runs of packages planned by
// tree/yum_plan, copied from the generation before where they did not change), then its
// repodata/ replaced whole by tree::replace_directory, with the noarch packages linked in first.
#include <deque>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <span>

#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "codec/file_bytes.hpp"
#include "layout/paths.hpp"
#include "ops/fragments.hpp"
#include "ops/write.hpp"
#include "opskit/atomic_file.hpp"
#include "opskit/file.hpp"
#include "opskit/repo/index/yum/build.hpp"
#include "opskit/repo/index/yum/repomd.hpp"
#include "tree/generation.hpp"
#include "tree/local.hpp"

namespace fs = std::filesystem;

namespace opskit::repo::ops {

using detail::join_path;
using detail::PackageBytes;
using tree::DistPlan;
using tree::RepositoryPlan;

namespace {

// The dnf repositories of a run of index: built (and signed) one dist at a time, then placed.
class YumWriter {
public:
  YumWriter(const Context& ctx, std::optional<Signer>& signer, Reuse reuse)
      : ctx_(ctx), signer_(signer), reuse_(reuse) {}

  // Builds every repository of `dist` in memory and saves its runs for the next rewrite.
  Result<void> build_dist(const std::string& dist);
  // Writes what was built into the publication.
  Result<std::vector<WrittenIndex>> place_all();

private:
  struct Built {
    std::string dir; // rpm/<distro>/<version>/<arch>
    YumIndex index;
    std::string signature;
    std::size_t packages = 0;
    const YumRows* rows = nullptr;
    std::vector<std::size_t> links;    // rows of noarch packages to link into this repo
    std::vector<RepomdEntry> previous; // what the current repomd.xml lists
  };

  std::set<std::string> kept_repositories(const std::string& dist) const;
  Result<void> fill(YumRows& rows, std::span<YumEntry* const> entries);
  YumPrevious previous_of(const Built& b);
  Result<Built> build_repository(const std::string& dist, const std::string& arch,
                                 RepositoryPlan& plan, const DistPlan& plans, YumRows& rows);
  tree::Generation generation_of(const Built& b) const;
  Result<std::vector<std::string>> place(const Built& b);

  const Context& ctx_;
  std::optional<Signer>& signer_;
  Reuse reuse_;
  std::vector<Built> built_;
  std::deque<YumRows> dist_rows_;
  std::deque<PackageBytes> kept_files_; // the compressed files whose members new files copy
  std::deque<YumFragments> written_;    // fragments of rows recorded without them; stable
  std::vector<std::size_t> filled_;     // the rows whose fragments the build asked for
};

// The repositories configured, and those published before (see tree::plan_dist).
std::set<std::string> YumWriter::kept_repositories(const std::string& dist) const {
  std::set<std::string> kept(ctx_.config.rpm_architectures.begin(),
                             ctx_.config.rpm_architectures.end());
  std::error_code ec;
  for (const auto& e :
       fs::directory_iterator(join_path(ctx_.publication, detail::rpm_dist_dir(dist)), ec))
    if (fs::exists(e.path() / "repodata" / "repomd.xml", ec))
      kept.insert(e.path().filename().string());
  return kept;
}

// Gives the fragments of `entries` (their source is their row), written from the metadata
// where the row has none, and notes their rows in filled_.
Result<void> YumWriter::fill(YumRows& rows, std::span<YumEntry* const> entries) {
  std::vector<std::size_t> which;
  for (const YumEntry* e : entries)
    which.push_back(e->source);
  filled_.insert(filled_.end(), which.begin(), which.end());
  OPSKIT_TRY(ctx_.state.read_text(rows, which));
  for (YumEntry* e : entries) {
    const YumRows::Row& r = rows.rows[e->source];
    e->xml = {r.primary, r.filelists, r.other};
    if (!e->xml.primary.empty())
      continue;
    auto rpm = rpm_from_json(std::string(r.metadata));
    auto made = rpm ? rpm_fragments(std::move(*rpm), r.file, r.size, std::string(r.sha256))
                    : fail(rpm.error());
    if (!made)
      return fail(made.error().with_context(r.file));
    const YumFragments& f = written_.emplace_back(std::move(*made));
    e->xml = {f.primary, f.filelists, f.other};
  }
  return {};
}

constexpr std::size_t k_text_buffer = 128 * 1024; // read into, then hashed from, the CPU's cache

// What a rewrite of `b` may copy: the compressed files its repomd.xml lists, and the texts of
// the runs kept beside the state.
YumPrevious YumWriter::previous_of(const Built& b) {
  YumPrevious previous;
  std::string dir = join_path(ctx_.publication, b.dir);
  for (const auto& e : b.previous) {
    std::string_view* into = e.type == "primary"     ? &previous.primary
                             : e.type == "filelists" ? &previous.filelists
                             : e.type == "other"     ? &previous.other
                                                     : nullptr;
    if (!into)
      continue;
    if (auto bytes = PackageBytes::open(join_path(dir, e.location), 0);
        bytes && bytes->view().size() == e.size)
      *into = kept_files_.emplace_back(std::move(*bytes)).view();
  }
  // A kept text is read when the build hashes it, a buffer at a time: held whole (mapped,
  // 17 MB of them for 10,000 rpms), its pages cost more to map and unmap than to hash.
  previous.text = [texts = join_path(ctx_.root, tree::yum_text_dir(b.dir))](
                      std::string_view name, std::size_t size) -> std::optional<YumKeptText> {
    std::string path = join_path(texts, name);
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) ||
        static_cast<std::size_t>(st.st_size) != size)
      return std::nullopt;
    return [path = std::move(path), size](const YumTextSink& sink) -> Result<void> {
      OPSKIT_TRY_ASSIGN(auto file, detail::open_regular(path));
      return detail::read_pieces(file.first, 0, size, path, sink, k_text_buffer);
    };
  };
  return previous;
}

Result<YumWriter::Built> YumWriter::build_repository(const std::string& dist,
                                                     const std::string& arch, RepositoryPlan& plan,
                                                     const DistPlan& plans, YumRows& rows) {
  Built b;
  b.dir = detail::rpm_repository(dist, arch);
  bool binary = arch != detail::k_source_repository;
  // The noarch rows to link into this repository: every one in a whole index.
  if (reuse_ == Reuse::none && binary)
    for (const auto& run : plan.runs)
      for (const auto& e : run.entries)
        if (e.arch == "noarch")
          b.links.push_back(e.source);
  b.packages = plan.packages;
  if (auto old = read_file(join_path(ctx_.publication, b.dir + "/repodata/repomd.xml")))
    if (auto entries = parse_repomd(*old))
      b.previous = std::move(*entries);
  YumPrevious previous;
  if (reuse_ == Reuse::previous)
    previous = previous_of(b);
  YumRunEntries entries_of = [&](std::size_t r) {
    return tree::entries_between(ctx_.state, dist, arch, plan.ranges[r].first,
                                 plan.ranges[r].second, rows);
  };
  YumFill fill = [&](std::span<YumEntry* const> entries) { return this->fill(rows, entries); };
  filled_.clear();
  OPSKIT_TRY_ASSIGN(b.index,
                    build_yum_repo(std::move(plan.runs), ctx_.env.now, previous, fill, entries_of));
  // A rewrite links the packages of the runs it wrote anew, or of those the ones changed
  // since the last rewrite when it knows them (a --replace'd noarch package among them,
  // whose old link still holds its old content); the others were linked before.
  if (reuse_ == Reuse::previous && binary)
    for (std::size_t i : filled_)
      if (rows.rows[i].arch == "noarch" && plans.changed_since(rows.rows[i]))
        b.links.push_back(i);
  b.rows = &rows;
  if (signer_) {
    auto signature = signer_->keyring.detach_sign(signer_->fingerprint, b.index.repomd);
    if (!signature)
      return fail(
          signature.error().with_context(fmt::format("sign {}/repodata/repomd.xml", b.dir)));
    b.signature = std::move(*signature);
  }
  return b;
}

Result<void> YumWriter::build_dist(const std::string& dist) {
  // A rewrite reads the rows only of the runs that changed since the last one saved them
  // (see tree::plan_dist), and their fragments only where it compresses them anew. A whole
  // index reads everything, and drops the saved runs as it drops the kept texts.
  YumRows& rows = dist_rows_.emplace_back();
  if (reuse_ == Reuse::none)
    OPSKIT_TRY(ctx_.state.drop_yum_runs(dist));
  OPSKIT_TRY_ASSIGN(auto plans,
                    tree::plan_dist(ctx_.state, dist, kept_repositories(dist), reuse_, rows));
  std::map<std::string, std::vector<YumRunRecord>> saved;
  for (auto& [arch, plan] : plans.repositories)
    saved.emplace(arch, std::move(plan.records));
  for (auto& [arch, plan] : plans.repositories) {
    OPSKIT_TRY_ASSIGN(auto built, build_repository(dist, arch, plan, plans, rows));
    built_.push_back(std::move(built));
  }
  if (reuse_ == Reuse::previous)
    OPSKIT_TRY(ctx_.state.save_yum_runs(dist, saved));
  return {};
}

// Files the previous repomd.xml of `b` names, which stay for clients that hold it.
std::vector<std::string> previous_files(const std::vector<RepomdEntry>& previous) {
  std::vector<std::string> kept;
  for (const auto& e : previous)
    if (std::string_view name = e.location; name.starts_with("repodata/")) {
      name.remove_prefix(std::string_view("repodata/").size());
      if (!name.empty() && name[0] != '.' && name.find('/') == std::string_view::npos)
        kept.emplace_back(name);
    }
  return kept;
}

// The files of `b`'s repodata/, by phase: the compressed indexes, then repomd.xml.asc and
// repomd.xml; views into `b`.
tree::Generation YumWriter::generation_of(const Built& b) const {
  tree::Generation generation;
  for (const auto& f : b.index.files) // "repodata/<sha256>-primary.xml.gz", ...
    generation.add(join_path(b.dir, f.path), f.data);
  if (signer_)
    generation.add(join_path(b.dir, "repodata/repomd.xml.asc"), b.signature);
  generation.add(join_path(b.dir, "repodata/repomd.xml"), b.index.repomd);
  return generation;
}

Result<std::vector<std::string>> YumWriter::place(const Built& b) {
  std::string dir = join_path(ctx_.publication, b.dir);
  OPSKIT_TRY_ASSIGN(auto linked, tree::link_packages(ctx_.publication, b.dir, *b.rows, b.links,
                                                     reuse_ == Reuse::previous ? tree::Check::no
                                                                               : tree::Check::yes));
  std::string repodata = join_path(b.dir, "repodata");
  std::vector<std::pair<std::string, std::string_view>> files; // names in repodata/
  tree::Generation generation = generation_of(b);
  for (const auto* f : generation.files())
    files.emplace_back(f->path.substr(repodata.size() + 1), f->bytes);
  // A rewrite keeps the texts of the runs it compressed, for the next one, on disk before
  // the files that hold them are published; the texts of runs no longer published go after
  // them. A whole index keeps none and drops those there were: the first rewrite after it
  // compresses everything.
  std::string texts = join_path(ctx_.root, tree::yum_text_dir(b.dir));
  StagedFiles staged;
  if (reuse_ == Reuse::previous) {
    std::vector<std::pair<std::string, std::string_view>> kept;
    for (const auto& t : b.index.texts)
      kept.emplace_back(join_path(texts, t.path), t.data);
    OPSKIT_TRY(staged.stage_all(kept));
  }
  // Links made for packages the new index adds go when it cannot be put in place.
  if (auto replaced = tree::replace_directory(dir, join_path(dir, "repodata"),
                                              previous_files(b.previous), files, std::move(staged));
      !replaced) {
    for (const auto& link : linked)
      ::unlink(link.c_str());
    return fail(replaced.error());
  }
  if (reuse_ == Reuse::previous) {
    std::set<std::string_view> live(b.index.text_names.begin(), b.index.text_names.end());
    for (const auto& [name, inode] : tree::file_inodes(texts))
      if (name != "." && name != ".." && !live.contains(name))
        ::unlink(join_path(texts, name).c_str());
  } else { // a damaged text must not outlive the index that repairs what it caused
    std::error_code ec;
    fs::remove_all(texts, ec);
  }
  std::vector<std::string> written;
  for (const auto& [name, data] : files)
    written.push_back("repodata/" + name);
  return written;
}

Result<std::vector<WrittenIndex>> YumWriter::place_all() {
  std::vector<WrittenIndex> report;
  for (const auto& b : built_) {
    OPSKIT_TRY_ASSIGN(auto files, place(b));
    report.push_back({PackageFormat::rpm, b.dir, b.packages, std::move(files)});
  }
  return report;
}

} // namespace

Result<std::vector<WrittenIndex>> write_rpm_dists(const Context& ctx,
                                                  const std::set<std::string>& dists,
                                                  std::optional<Signer>& signer, Reuse reuse) {
  YumWriter writer(ctx, signer, reuse);
  for (const auto& dist : dists)
    OPSKIT_TRY(writer.build_dist(dist));
  return writer.place_all();
}

Result<Placing> build_rpm_rewrite(const Context& ctx, const std::set<std::string>& dists,
                                  std::optional<Signer>& signer) {
  auto writer = std::make_shared<YumWriter>(ctx, signer, Reuse::previous);
  for (const auto& dist : dists)
    OPSKIT_TRY(writer->build_dist(dist));
  return [writer]() -> Result<void> {
    OPSKIT_TRY(writer->place_all());
    return {};
  };
}

} // namespace opskit::repo::ops
