// SPDX-License-Identifier: MIT
// index --rebuild: the pool read back into state. Package files are read and hashed on every CPU
// while the pool is still being walked, and only what differs from state is written.
#include <algorithm>
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <tuple>

#include <fmt/format.h>

#include "codec/file_bytes.hpp"
#include "format/read_package.hpp"
#include "index/apt/release_hashes.hpp"
#include "layout/paths.hpp"
#include "ops/fragments.hpp"
#include "ops/ops.hpp"
#include "opskit/file.hpp"
#include "opskit/repo/codec/compress.hpp"
#include "opskit/repo/format/deb/control.hpp"
#include "opskit/repo/format/deb/deb.hpp"
#include "opskit/repo/format/rpm/rpm.hpp"
#include "tree/sweep.hpp"

namespace fs = std::filesystem;

namespace opskit::repo::ops {

using detail::join_path;
using detail::PackageBytes;

namespace {

// A package file found in the pool and what reading it gave.
struct Scanned {
  fs::path path;
  PackageFormat format = PackageFormat::deb;
  Result<PackageRecord> record = PackageRecord{};
};

// A package read, parsed and hashed but for its SHA-256.
struct Unhashed {
  PackageBytes file;
  PackageRecord record;
  std::optional<RpmInfo> rpm;
};

// Reads and parses one package file and computes the digests it needs but SHA-256, which
// every package needs and sha256_each computes two files at a time. A package that cannot be
// read ends here, with the error in s.record.
std::optional<Unhashed> read_scanned(Scanned& s) {
  auto file = PackageBytes::open(s.path.string());
  if (!file) {
    s.record = fail(file.error());
    return std::nullopt;
  }
  auto read = read_package(file->view(), s.path.string(), s.format);
  if (!read) {
    s.record = fail(read.error());
    return std::nullopt;
  }
  return Unhashed{std::move(*file), std::move(read->record), std::move(read->rpm)};
}

// Sets s.record to the record of package `u`, given its SHA-256, with an rpm's index fragments.
void complete(Scanned& s, Unhashed u, const Sha256& sha256) {
  PackageRecord& r = u.record;
  r.sha256 = hex(sha256);
  if (u.rpm) {
    r.file = s.path.filename().string(); // only the name matters to the fragments
    if (auto ok = add_yum_fragments(r, std::move(*u.rpm)); !ok) {
      s.record = fail(ok.error().with_context(s.path.string()));
      return;
    }
  }
  s.record = std::move(r);
}

// Reads package files on every CPU while the pool is still being walked: reading, parsing and
// hashing dominate a rescan, and the walk (one directory per package) would otherwise come first.
class ParallelReader {
public:
  // progress(read, found so far) is called after each file, under the reader's lock.
  explicit ParallelReader(std::function<void(std::size_t, std::size_t)> progress)
      : progress_(std::move(progress)) {
    unsigned workers = std::max(1u, std::thread::hardware_concurrency());
    for (unsigned i = 0; i < workers; ++i)
      threads_.emplace_back([this] { work(); });
  }
  ParallelReader(const ParallelReader&) = delete;
  ParallelReader& operator=(const ParallelReader&) = delete;
  ~ParallelReader() { close(); }

  void add(fs::path path, PackageFormat format) {
    {
      std::lock_guard hold(lock_);
      files_.push_back({std::move(path), format});
    }
    more_.notify_one();
  }

  // Waits until every file added is read; returns them in the order they were added.
  std::deque<Scanned> finish() {
    close();
    threads_.clear(); // joins
    return std::move(files_);
  }

private:
  void close() {
    {
      std::lock_guard hold(lock_);
      closed_ = true;
    }
    more_.notify_all();
  }

  // Reads the files added one after the other, while sha256_each hashes them two at a time.
  void work() {
    std::map<std::size_t, std::pair<Scanned*, Unhashed>> hashing; // by place in files_
    sha256_each(
        [&]() -> std::optional<Sha256Job> {
          for (;;) {
            auto [at, s] = take();
            if (!s)
              return std::nullopt;
            auto unhashed = read_scanned(*s);
            if (!unhashed) {
              report_read();
              continue;
            }
            auto& placed = hashing.try_emplace(at, s, std::move(*unhashed)).first->second;
            return Sha256Job{at, placed.second.file.view()};
          }
        },
        [&](std::size_t at, const Sha256& digest) {
          auto node = hashing.extract(at);
          auto& [s, u] = node.mapped();
          complete(*s, std::move(u), digest);
          report_read();
        });
  }

  // The next file to read and its place in files_, once there is one; none when all are taken
  // and no more will come.
  std::pair<std::size_t, Scanned*> take() {
    std::unique_lock hold(lock_);
    more_.wait(hold, [this] { return next_ < files_.size() || closed_; });
    if (next_ == files_.size())
      return {next_, nullptr};
    std::size_t at = next_++;
    return {at, &files_[at]}; // a deque keeps its elements in place as it grows
  }

  void report_read() {
    if (progress_) {
      std::lock_guard hold(lock_);
      progress_(++read_, files_.size());
    }
  }

  std::function<void(std::size_t, std::size_t)> progress_;
  std::mutex lock_;
  std::condition_variable more_;
  std::deque<Scanned> files_;
  std::size_t next_ = 0, read_ = 0;
  bool closed_ = false;
  std::vector<std::jthread> threads_; // last: joined before the members they use go
};

// The apt archives' directories of the publication (deb/<distro>).
std::vector<fs::path> deb_distros(const Context& ctx) {
  std::error_code ec;
  std::vector<fs::path> distros;
  for (const auto& distro : fs::directory_iterator(join_path(ctx.publication, "deb"), ec))
    distros.push_back(distro.path());
  return distros;
}

// Adds every package file of the publication to `reader`: debs below deb/<distro>/pool/, rpms
// in rpm/<distro>/<version>/<dir>/Packages/ (noarch files are linked into each arch's
// directory, and only the copy under noarch/ counts). The same walk removes the temporaries a
// killed run left.
void walk_pool(const Context& ctx, ParallelReader& reader) {
  const std::size_t root = ctx.publication.size() + 1;
  tree::sweep_files(ctx.publication, [&](const std::string& dir, std::string_view name) {
    if (dir.size() < root)
      return; // a file of the publication's top
    std::string_view rel = std::string_view(dir).substr(root);
    if (name.ends_with(".deb") && name.size() > 4 && rel.starts_with("deb/")) {
      auto slash = rel.find('/', 4); // after deb/<distro>
      std::string_view below = slash == std::string_view::npos ? "" : rel.substr(slash);
      if (below == "/pool" || below.starts_with("/pool/"))
        reader.add(fmt::format("{}/{}", dir, name), PackageFormat::deb);
    } else if (name.ends_with(".rpm") && name.size() > 4 && rel.starts_with("rpm/") &&
               rel.ends_with("/Packages")) {
      std::string_view parent = rel.substr(0, rel.size() - std::string_view("/Packages").size());
      bool in_noarch = parent.ends_with("/noarch");
      if (name.ends_with(".noarch.rpm") == in_noarch)
        reader.add(fmt::format("{}/{}", dir, name), PackageFormat::rpm);
    }
  });
}

// Where the current indexes of `distros` put each deb: (distro, Filename) -> each (codename,
// component) whose Packages lists it, of the Packages files its suite's Release lists (a
// component emptied may have left one behind).
using Placed =
    std::map<std::pair<std::string, std::string>, std::vector<std::pair<std::string, std::string>>>;
Placed placed_debs(const std::vector<fs::path>& distros) {
  std::error_code ec;
  Placed placed;
  for (const auto& distro : distros) {
    std::string distro_name = distro.filename().string();
    for (const auto& suite : fs::directory_iterator(distro / "dists", ec)) {
      std::string codename = suite.path().filename().string();
      if (codename.starts_with('.')) // being built
        continue;
      auto release = read_file((suite.path() / "Release").string());
      if (!release)
        continue;
      for (const auto& [name, entry] : release_hashes(*release, "SHA256")) {
        if (!name.ends_with("/Packages"))
          continue;
        auto text = read_file((suite.path() / name).string());
        auto stanzas = text ? parse_stanzas(*text, name) : Result<std::vector<Stanza>>();
        if (!text || !stanzas)
          continue;
        std::string component = name.substr(0, name.find('/'));
        for (const auto& stanza : *stanzas)
          if (const std::string* file = stanza.find("Filename"))
            placed[{distro_name, *file}].emplace_back(codename, component);
      }
    }
  }
  return placed;
}

// The records of `r`, found at `rel` in the publication: a deb's one for each suite (and
// component) whose index lists it, else in the default suite; an rpm's in its dist. None when it
// belongs to no suite: a deb of a distro without indexes or default.
std::vector<PackageRecord> locate(PackageRecord r, const std::string& rel, const Placed& placed,
                                  const std::pair<std::string, std::string>& default_dist) {
  std::vector<PackageRecord> located;
  if (r.format == PackageFormat::deb) {
    auto pool = detail::parse_deb_pool_file(rel);
    if (!pool)
      return located; // found below deb/<distro>/pool/, so never
    auto where = placed.find({std::string(pool->distro), std::string(pool->filename)});
    std::vector<std::pair<std::string, std::string>> suites;
    if (where != placed.end())
      suites = where->second;
    else if (pool->distro == default_dist.first)
      suites.emplace_back(default_dist.second, std::string(pool->component));
    for (const auto& [codename, component] : suites) {
      located.push_back(r);
      located.back().dist = fmt::format("{}/{}", pool->distro, codename);
      located.back().component = component;
    }
  } else if (auto dist = detail::parse_rpm_package_dist(rel)) {
    r.dist = std::move(*dist); // found as rpm/<distro>/<version>/<repository>/Packages/*.rpm
    located.push_back(std::move(r));
  }
  return located;
}

} // namespace

Result<std::size_t> rescan_pool(const Context& ctx, std::vector<PackageRecord>& records) {
  OPSKIT_TRY_ASSIGN(auto default_dist, split_dist(ctx.config.deb_dist));
  std::error_code ec;
  ParallelReader reader(ctx.env.progress ? std::function<void(std::size_t, std::size_t)>(
                                               [&ctx](std::size_t n, std::size_t found) {
                                                 ctx.env.progress(n, found);
                                               })
                                         : nullptr);
  walk_pool(ctx, reader);
  // While the packages are read: where the current indexes put each deb.
  Placed placed = placed_debs(deb_distros(ctx));
  std::deque<Scanned> files = reader.finish();
  std::sort(files.begin(), files.end(),
            [](const Scanned& a, const Scanned& b) { return a.path < b.path; });

  // A rebuild of an intact repository finds what state holds: only differences are written.
  std::map<std::tuple<PackageFormat, std::string_view, std::string_view, std::string_view,
                      std::string_view>,
           const PackageRecord*>
      known;
  for (const auto& r : records)
    known.emplace(std::tuple{r.format, std::string_view(r.dist), std::string_view(r.name),
                             std::string_view(r.version), std::string_view(r.arch)},
                  &r);
  std::size_t count = 0;
  bool changed = false;
  for (auto& s : files) {
    if (!s.record)
      return fail(s.record.error());
    // Paths were found below ctx.publication + "/", so the relative path is a suffix (no
    // canonicalising).
    std::string rel = s.path.string().substr(ctx.publication.size() + 1);
    s.record->file = rel;
    auto located = locate(std::move(*s.record), rel, placed, default_dist);
    count += located.empty() ? 0 : 1;
    for (auto& r : located) {
      auto same = known.find({r.format, r.dist, r.name, r.version, r.arch});
      if (same != known.end()) {
        r.id = same->second->id;
        if (r == *same->second)
          continue;
        known.erase(same); // a second file of the same package is recorded too, as before
      }
      OPSKIT_TRY(ctx.state.put(r));
      changed = true;
    }
  }
  if (changed) {
    OPSKIT_TRY_ASSIGN(auto updated, ctx.state.packages());
    records = std::move(updated);
  }
  return count;
}

} // namespace opskit::repo::ops
