// SPDX-License-Identifier: MIT
// push: read, validate and hash every file first, on every CPU, so that nothing changes when
// one is bad; then, under the lock and one transaction, record each package, stage its copy
// into the pool, check every staged copy against the hash recorded (an input rewritten while
// it was pushed is refused), build and sign every index it touches, then make the pool files
// visible together, put the indexes in place and commit. A key that cannot sign leaves the
// pool as it was, a package replaced (--replace) in it too; a failure after the pool files are
// in place (a disk that fills while the indexes are written) leaves them, as an index placed
// before may name them, and a file a replaced record leaves goes only after the commit.
//
// A pool file shared with another record (another dist's, or a version of the same package
// that differs only in its epoch, which pool names leave out) must not change under it. Under
// --replace, the file under its published name holds the new content once committed: a
// replacement cannot be atomic for a client holding the old index.
#include <atomic>
#include <map>
#include <mutex>
#include <set>

#include <unistd.h>

#include <fmt/format.h>

#include "codec/file_bytes.hpp"
#include "format/detect.hpp"
#include "format/read_package.hpp"
#include "layout/paths.hpp"
#include "ops/config.hpp"
#include "ops/fragments.hpp"
#include "ops/ops.hpp"
#include "ops/write.hpp"
#include "opskit/atomic_file.hpp"
#include "tree/pool_journal.hpp"

namespace opskit::repo::ops {

using detail::join_path;
using detail::PackageBytes;

namespace {

// Where this push files packages.
struct Target {
  const std::string& deb_dist;
  const std::string& rpm_dist;
  const std::string& component;
  std::string deb_distro;
};

// A parsed input, ready to be recorded.
struct Candidate {
  std::string input;
  PackageRecord record;
  std::string pool_path; // relative to the publication
  std::optional<RpmInfo> rpm;
};

std::string changed_while_pushed(const std::string& input) {
  return fmt::format("{}: changed while it was being pushed; nothing was added", input);
}

Result<Target> target_of(const Context& ctx, const PushOptions& options) {
  const auto& config = ctx.config;
  Target t{options.dist ? *options.dist : config.deb_dist,
           options.dist ? *options.dist : config.rpm_dist,
           options.component ? *options.component : config.component, ""};
  OPSKIT_TRY_ASSIGN(auto deb_parts, split_dist(t.deb_dist));
  OPSKIT_TRY(split_dist(t.rpm_dist));
  if (!dist_part_ok(t.component))
    return fail(fmt::format("bad component '{}': must be [a-z0-9.+_-]", t.component));
  t.deb_distro = deb_parts.first;
  return t;
}

// Reads `path` into `c`, all but its SHA-256; returns its bytes for hashing.
Result<PackageBytes> read_candidate(const std::string& path, const Target& target, Candidate& c) {
  OPSKIT_TRY_ASSIGN(auto bytes, PackageBytes::open(path));
  std::string_view view = bytes.view();
  auto format = detect_format(view);
  if (!format)
    return fail(fmt::format("{}: not a .deb or .rpm package (unknown magic)", path));
  OPSKIT_TRY_ASSIGN(auto read, read_package(view, path, *format));
  c.input = path;
  c.record = std::move(read.record);
  if (read.deb) {
    c.record.dist = target.deb_dist;
    c.record.component = target.component;
    c.pool_path =
        detail::deb_pool_file(target.deb_distro, deb_pool_path(*read.deb, target.component));
  } else {
    c.record.dist = target.rpm_dist;
    c.pool_path =
        detail::rpm_package_file(target.rpm_dist, read.rpm->arch, rpm_file_name(*read.rpm));
    c.rpm = std::move(read.rpm);
  }
  c.record.file = c.pool_path;
  return bytes;
}

// Every file read and hashed, in order; the first failure in order when one fails (those
// after it are skipped).
Result<std::vector<Candidate>>
read_candidates(const Context& ctx, const std::vector<std::string>& files, const Target& target) {
  std::vector<Result<Candidate>> read(files.size());
  std::atomic<std::size_t> first_failed = files.size();
  auto failed = [&](std::size_t i, Error error) {
    read[i] = fail(std::move(error));
    for (auto at = first_failed.load(); i < at && !first_failed.compare_exchange_weak(at, i);)
      ;
  };
  std::mutex progress_lock;
  std::size_t progress_done = 0;
  detail::hash_each(
      files.size(),
      [&](std::size_t i) -> std::optional<PackageBytes> {
        if (i > first_failed)
          return std::nullopt;
        auto bytes = read_candidate(files[i], target, *read[i]);
        if (bytes)
          return std::move(*bytes);
        failed(i, bytes.error());
        return std::nullopt;
      },
      [&](std::size_t i, const Sha256& digest) {
        Candidate& c = *read[i];
        c.record.sha256 = hex(digest);
        if (c.rpm)
          if (auto ok = add_yum_fragments(c.record, std::move(*c.rpm)); !ok)
            failed(i, ok.error().with_context(c.input));
        if (ctx.env.progress) {
          std::lock_guard hold(progress_lock);
          ctx.env.progress(++progress_done, files.size() * 2);
        }
      });
  std::vector<Candidate> candidates;
  for (auto& c : read) {
    if (!c)
      return fail(c.error());
    candidates.push_back(std::move(*c));
  }
  return candidates;
}

// The pool files a push adds where there were none, removed again (with the directories that
// then hold nothing) when the push fails before it places them: nothing refers to them then.
class AddedFiles {
public:
  AddedFiles(const std::string& publication) : publication_(publication) {}
  AddedFiles(const AddedFiles&) = delete;
  AddedFiles& operator=(const AddedFiles&) = delete;
  ~AddedFiles() {
    for (const auto& file : files_) {
      ::unlink(join_path(publication_, file).c_str());
      for (auto slash = file.rfind('/'); slash != std::string::npos;
           slash = file.rfind('/', slash - 1))
        if (slash == 0 || ::rmdir(join_path(publication_, file.substr(0, slash)).c_str()) != 0)
          break;
    }
  }
  void add(std::string file) { files_.push_back(std::move(file)); }
  void keep() noexcept { files_.clear(); }

private:
  const std::string& publication_;
  std::vector<std::string> files_; // relative to the publication
};

// What the recording of a push has done so far.
struct Batch {
  Batch(const std::string& publication, tree::PoolJournal staging)
      : journal(std::move(staging)), added(publication) {}
  tree::PoolJournal journal; // the pool directories staged in
  StagedFiles pool_files;
  AddedFiles added;
  std::vector<const Candidate*> staged;          // what each pool file staged holds
  std::map<std::string, std::string> staged_sha; // pool path -> SHA-256
  std::vector<std::string> replaced_files;       // pool files the records pushed leave behind
  Touched touched;
  std::vector<PushedPackage> pushed;
};

// Whether `c`'s pool file already holds its bytes (staged by this push, or in the pool); an
// error when it holds other bytes that another record or package of this push needs.
Result<bool> in_pool(const Context& ctx, const Candidate& c,
                     const std::optional<PackageRecord>& existing, const Batch& batch) {
  const PackageRecord& r = c.record;
  if (auto in_push = batch.staged_sha.find(c.pool_path); in_push != batch.staged_sha.end()) {
    if (in_push->second != r.sha256)
      return fail(fmt::format("{}: {} is also the pool file of another package of this push, "
                              "with other content",
                              c.input, c.pool_path));
    return true;
  }
  auto on_disk = PackageBytes::open(join_path(ctx.publication, c.pool_path));
  if (!on_disk)
    return false;
  if (on_disk->view().size() == r.size && sha256_hex(on_disk->view()) == r.sha256)
    return true;
  OPSKIT_TRY_ASSIGN(auto refs, ctx.state.references(c.pool_path));
  int own = existing && existing->file == c.pool_path ? 1 : 0;
  if (refs > own)
    return fail(fmt::format("{}: {} is already in the pool with other content, for another dist "
                            "or for a version that differs only in its epoch",
                            c.input, c.pool_path));
  return false;
}

// Records `c` and stages its pool file, unless state holds it already as it is.
Result<void> add_candidate(const Context& ctx, const Candidate& c, Replace replace, Batch& batch) {
  const PackageRecord& r = c.record;
  OPSKIT_TRY(check_dist_format(ctx, r, c.input));
  OPSKIT_TRY_ASSIGN(auto existing, ctx.state.find(r.format, r.dist, r.name, r.version, r.arch));
  PushAction action = PushAction::added;
  if (existing) {
    if (existing->sha256 == r.sha256 && existing->component == r.component) {
      batch.pushed.push_back({c.input, *existing, PushAction::unchanged});
      return {};
    }
    if (replace == Replace::no && existing->sha256 == r.sha256)
      return fail(fmt::format("{}: {} {} {} is already in {}, in component {} (use --replace to "
                              "move it to {})",
                              c.input, r.name, r.version, r.arch, r.dist, existing->component,
                              r.component));
    if (replace == Replace::no)
      return fail(fmt::format("{}: {} {} {} is already in {} with other content (use --replace)",
                              c.input, r.name, r.version, r.arch, r.dist));
    action = PushAction::replaced;
  }
  OPSKIT_TRY_ASSIGN(auto placed, in_pool(ctx, c, existing, batch));
  if (!placed) {
    std::string pool_file = join_path(ctx.publication, c.pool_path);
    if (::access(pool_file.c_str(), F_OK) != 0)
      batch.added.add(c.pool_path);
    OPSKIT_TRY(batch.journal.note(c.pool_path.substr(0, c.pool_path.rfind('/'))));
    OPSKIT_TRY_ASSIGN(auto input, detail::open_regular(c.input));
    OPSKIT_TRY_ASSIGN(auto copied, batch.pool_files.stage_copy(pool_file, input.first, r.size));
    if (copied != r.size)
      return fail(changed_while_pushed(c.input));
    batch.staged.push_back(&c);
    batch.staged_sha.emplace(c.pool_path, r.sha256);
  }
  OPSKIT_TRY(ctx.state.put(r));
  if (existing && existing->file != c.pool_path)
    batch.replaced_files.push_back(existing->file);
  batch.touched.add(r);
  batch.pushed.push_back({c.input, r, action});
  return {};
}

// What was copied is what was hashed, or an input changed since it was read.
Result<void> check_staged(const Context& ctx, const Batch& batch) {
  const auto& staged = batch.staged;
  std::vector<char> differs(staged.size(), 0); // not vector<bool>: set from two threads
  detail::hash_each(
      staged.size(),
      [&](std::size_t i) -> std::optional<PackageBytes> {
        auto bytes =
            PackageBytes::open(temporary_name(join_path(ctx.publication, staged[i]->pool_path)));
        if (bytes)
          return std::move(*bytes);
        differs[i] = 1;
        return std::nullopt;
      },
      [&](std::size_t i, const Sha256& digest) {
        differs[i] = hex(digest) != staged[i]->record.sha256;
      });
  for (std::size_t i = 0; i < staged.size(); ++i)
    if (differs[i])
      return fail(changed_while_pushed(staged[i]->input));
  return {};
}

} // namespace

Result<std::vector<PushedPackage>> push(const Context& ctx, const std::vector<std::string>& files,
                                        const PushOptions& options) {
  OPSKIT_TRY_ASSIGN(auto target, target_of(ctx, options));
  OPSKIT_TRY_ASSIGN(auto candidates, read_candidates(ctx, files, target));
  OPSKIT_TRY_ASSIGN(auto lock, lock_repository(ctx));
  OPSKIT_TRY_ASSIGN(auto txn, ctx.state.begin());
  // what a killed push left half copied goes before this push stages its own
  OPSKIT_TRY_ASSIGN(auto journal,
                    tree::PoolJournal::open(detail::pool_journal(ctx.root), ctx.publication));
  Batch batch(ctx.publication, std::move(journal));
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    OPSKIT_TRY(add_candidate(ctx, candidates[i], options.replace, batch));
    if (ctx.env.progress)
      ctx.env.progress(candidates.size() + i + 1, candidates.size() * 2);
  }
  OPSKIT_TRY(check_staged(ctx, batch));
  // The pool files go in place once every index is built and signed, before the first is; and
  // stay from then on, also when a later index or the database cannot be written (a full disk):
  // an index placed before names them.
  auto place_pool_files = [&]() -> Result<void> {
    OPSKIT_TRY(batch.pool_files.commit());
    batch.added.keep();
    return batch.journal.clear();
  };
  OPSKIT_TRY(rewrite(ctx, batch.touched, place_pool_files));
  // The files replaced records leave go once nothing can bring those records back.
  std::vector<std::string> unreferenced;
  for (const auto& file : batch.replaced_files)
    if (auto refs = ctx.state.references(file);
        refs && *refs == 0 && !batch.staged_sha.contains(file))
      unreferenced.push_back(file);
  OPSKIT_TRY(txn.commit());
  for (const auto& file : unreferenced)
    ::unlink(join_path(ctx.publication, file).c_str());
  return std::move(batch.pushed);
}

} // namespace opskit::repo::ops
