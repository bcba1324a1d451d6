// SPDX-License-Identifier: MIT
// Reading a repository's tree back: rescanning the pool (index --rebuild) and checking what is
// published against the database and the signatures (verify), as apt and dnf would.
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

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "opskit/handle.hpp"
#include "opskit/repo/codec/compress.hpp"
#include "opskit/repo/format/deb/deb.hpp"
#include "opskit/repo/format/rpm/rpm.hpp"
#include "opskit/repo/index/yum/yum.hpp"
#include "ops/detail.hpp"

namespace fs = std::filesystem;

namespace opskit::repo {

using detail::add_yum_fragments;
using detail::join_path;
using detail::PackageBytes;
using detail::release_hashes;
using detail::set_other_digests;

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
std::optional<Unhashed> read_package(Scanned& s) {
  auto file = PackageBytes::open(s.path.string());
  if (!file) {
    s.record = fail(file.error());
    return std::nullopt;
  }
  std::string_view bytes = file->view();
  PackageRecord r;
  r.format = s.format;
  r.size = bytes.size();
  std::optional<RpmInfo> info;
  if (s.format == PackageFormat::deb) {
    auto deb = read_deb(bytes, s.path.string());
    if (!deb) {
      s.record = fail(deb.error());
      return std::nullopt;
    }
    r.name = deb->name;
    r.version = deb->version;
    r.arch = deb->architecture;
    r.metadata = deb->control.render();
  } else {
    auto rpm = read_rpm(bytes, s.path.string());
    if (!rpm) {
      s.record = fail(rpm.error());
      return std::nullopt;
    }
    r.name = rpm->name;
    r.version = rpm->evr();
    r.arch = rpm->arch;
    r.metadata = rpm_to_json(*rpm);
    info = std::move(*rpm);
  }
  set_other_digests(r, bytes);
  return Unhashed{std::move(*file), std::move(r), std::move(info)};
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
            auto unhashed = read_package(*s);
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

// Calls found(dir, name) for every regular file below `dir` (a symbolic link to one counts, as
// with std::filesystem's is_regular_file; one to a directory is not followed). Each directory is
// read once with readdir and its entry types: no stat per file and no path objects, which made
// most of the cost of walking a pool of one directory per package.
template <class Found>
void walk_files(const std::string& dir, const Found& found) {
  CPtr<DIR, closedir> d(::opendir(dir.c_str()));
  if (!d)
    return;
  while (const dirent* e = ::readdir(d.get())) {
    std::string_view name = e->d_name;
    if (name == "." || name == "..")
      continue;
    bool is_dir = e->d_type == DT_DIR, is_file = e->d_type == DT_REG;
    if (e->d_type == DT_UNKNOWN || e->d_type == DT_LNK) {
      bool link = e->d_type == DT_LNK;
      struct stat st {};
      std::string path = fmt::format("{}/{}", dir, name);
      if ((link ? ::stat(path.c_str(), &st) : ::lstat(path.c_str(), &st)) != 0)
        continue;
      is_file = S_ISREG(st.st_mode);
      is_dir = S_ISDIR(st.st_mode) && !link;
    }
    if (is_dir)
      walk_files(fmt::format("{}/{}", dir, name), found);
    else if (is_file)
      found(dir, name);
  }
}

// primary.xml of the largest public repositories is a few hundred MB.
constexpr std::size_t k_max_primary = std::size_t{2} << 30;

// Every package a dnf repository's primary.xml lists is where it says, with its size: what
// dnf would download (a noarch package is a link in each architecture's directory).
void check_locations(const fs::path& dir, const fs::path& shown, std::string_view primary,
                     std::vector<std::string>& problems) {
  auto locations = parse_primary_locations(primary);
  if (!locations) {
    problems.push_back(
        fmt::format("{}: primary.xml.gz: {}", shown.string(), locations.error().message()));
    return;
  }
  for (const auto& l : *locations) {
    std::error_code ec;
    auto size = fs::file_size(dir / l.href, ec);
    if (ec)
      problems.push_back(
          fmt::format("{}: listed in primary.xml but missing", (shown / l.href).string()));
    else if (size != l.size)
      problems.push_back(fmt::format("{}: size {} but primary.xml says {}",
                                     (shown / l.href).string(), size, l.size));
  }
}

} // namespace

Result<std::size_t> Repository::rescan_pool(std::vector<PackageRecord>& records) {
  OPSKIT_TRY_ASSIGN(auto default_dist, split_dist(config_.deb_dist));
  std::error_code ec;
  ParallelReader reader(
      env_.progress ? std::function<void(std::size_t, std::size_t)>(
                          [this](std::size_t n, std::size_t found) { env_.progress(n, found); })
                    : nullptr);
  std::vector<fs::path> distros;
  for (const auto& distro : fs::directory_iterator(join_path(public_, "deb"), ec)) {
    distros.push_back(distro.path());
    walk_files((distro.path() / "pool").string(),
               [&](const std::string& dir, std::string_view name) {
                 if (name.ends_with(".deb") && name.size() > 4)
                   reader.add(fmt::format("{}/{}", dir, name), PackageFormat::deb);
               });
  }
  // rpm/<distro>/<version>/<dir>/Packages/*.rpm; noarch files are linked into each arch's
  // directory, and only the copy under noarch/ counts.
  walk_files(join_path(public_, "rpm"), [&](const std::string& dir, std::string_view name) {
    if (!name.ends_with(".rpm") || name.size() == 4 || !dir.ends_with("/Packages"))
      return;
    std::string_view parent(dir.data(), dir.size() - std::string_view("/Packages").size());
    bool in_noarch = parent.ends_with("/noarch");
    if (name.ends_with(".noarch.rpm") == in_noarch)
      reader.add(fmt::format("{}/{}", dir, name), PackageFormat::rpm);
  });

  // While the packages are read: where the current indexes put each deb,
  // (distro, Filename) -> (codename, component).
  std::map<std::pair<std::string, std::string>, std::pair<std::string, std::string>> placed;
  for (const auto& distro : distros) {
    std::string distro_name = distro.filename().string();
    for (const auto& entry : fs::recursive_directory_iterator(distro / "dists", ec)) {
      if (entry.path().filename() != "Packages")
        continue;
      std::string component = entry.path().parent_path().parent_path().filename().string();
      std::string codename =
          entry.path().parent_path().parent_path().parent_path().filename().string();
      auto text = read_file(entry.path().string());
      if (!text)
        continue;
      auto stanzas = parse_stanzas(*text, entry.path().string());
      if (!stanzas)
        continue;
      for (const auto& stanza : *stanzas)
        if (const std::string* file = stanza.find("Filename"))
          placed[{distro_name, *file}] = {codename, component};
    }
  }
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
    PackageRecord& r = *s.record;
    // Paths were found below public_ + "/", so the relative path is a suffix (no canonicalising).
    std::string rel = s.path.string().substr(public_.size() + 1);
    r.file = rel;
    if (r.format == PackageFormat::deb) {
      auto pool = detail::parse_deb_pool_file(rel);
      if (!pool)
        continue; // found below deb/<distro>/pool/, so never
      auto where = placed.find({std::string(pool->distro), std::string(pool->filename)});
      std::string codename;
      if (where != placed.end()) {
        std::tie(codename, r.component) = where->second;
      } else if (pool->distro == default_dist.first) {
        codename = default_dist.second;
        r.component = std::string(pool->component);
      } else {
        continue; // a distro without indexes or default: no suite to put it in
      }
      r.dist = fmt::format("{}/{}", pool->distro, codename);
    } else {
      auto dist = detail::parse_rpm_package_dist(rel);
      if (!dist)
        continue; // found as rpm/<distro>/<version>/<repository>/Packages/*.rpm, so never
      r.dist = std::move(*dist);
    }
    ++count;
    auto same = known.find({r.format, r.dist, r.name, r.version, r.arch});
    if (same != known.end()) {
      r.id = same->second->id;
      if (r == *same->second)
        continue;
      known.erase(same); // a second file of the same package is recorded too, as before
    }
    OPSKIT_TRY(state_.put(r));
    changed = true;
  }
  if (changed) {
    OPSKIT_TRY_ASSIGN(auto updated, state_.packages());
    records = std::move(updated);
  }
  return count;
}

Result<std::vector<std::string>> Repository::verify() {
  std::vector<std::string> problems;
  OPSKIT_TRY_ASSIGN(auto signer, this->signer(SignRequest::if_key));
  OPSKIT_TRY_ASSIGN(auto records, state_.packages());

  // Pool files against their recorded size and SHA-256, hashed on every CPU, two at a time on
  // each; the problems are reported in the records' order.
  std::vector<std::string> pool_problems(records.size());
  auto differs = [&](std::size_t i) {
    const PackageRecord& r = records[i];
    pool_problems[i] = fmt::format("{}: size or SHA-256 differs from the recorded {} {}", r.file,
                                   r.name, r.version);
  };
  detail::hash_each(
      records.size(),
      [&](std::size_t i) -> std::optional<PackageBytes> {
        const PackageRecord& r = records[i];
        auto bytes = PackageBytes::open(join_path(public_, r.file));
        if (!bytes)
          pool_problems[i] = bytes.error().message();
        else if (bytes->view().size() != r.size)
          differs(i);
        else
          return std::move(*bytes);
        return std::nullopt;
      },
      [&](std::size_t i, const Sha256& digest) {
        if (hex(digest) != records[i].sha256)
          differs(i);
      });
  for (auto& problem : pool_problems)
    if (!problem.empty())
      problems.push_back(std::move(problem));

  // Every apt suite on disk: signatures, then each listed index's size and SHA-256.
  std::error_code ec;
  std::vector<fs::path> suites;
  for (const auto& distro : fs::directory_iterator(join_path(public_, "deb"), ec))
    for (const auto& suite : fs::directory_iterator(distro.path() / "dists", ec))
      suites.push_back(suite.path());
  std::sort(suites.begin(), suites.end());
  for (const auto& suite : suites) {
    std::string dir = suite.string();
    std::string shown = fs::relative(suite, public_, ec).string();
    auto release = read_file(dir + "/Release");
    if (!release) {
      problems.push_back(release.error().message());
      continue;
    }
    if (signer) {
      auto& keyring = signer->keyring;
      auto in_release = read_file(dir + "/InRelease");
      if (!in_release) {
        problems.push_back(in_release.error().message());
      } else if (auto check = keyring.verify_clear_signed(*in_release); !check) {
        problems.push_back(check.error().message());
      } else if (!check->good) {
        problems.push_back(fmt::format("{}/InRelease: bad signature: {}", shown, check->problem));
      } else if (check->signed_text != *release) {
        problems.push_back(fmt::format("{}/InRelease: signs another text than Release", shown));
      }
      auto detached = read_file(dir + "/Release.gpg");
      if (!detached) {
        problems.push_back(detached.error().message());
      } else if (auto check = keyring.verify_detached(*detached, *release); !check) {
        problems.push_back(check.error().message());
      } else if (!check->good) {
        problems.push_back(fmt::format("{}/Release.gpg: bad signature: {}", shown, check->problem));
      }
    }
    auto listed = release_hashes(*release, "SHA256");
    if (listed.empty())
      problems.push_back(fmt::format("{}/Release: no SHA256 list", shown));
    for (const auto& [path, entry] : listed) {
      auto bytes = read_file(dir + "/" + path);
      if (!bytes)
        problems.push_back(bytes.error().message());
      else if (bytes->size() != entry.first)
        problems.push_back(fmt::format("{}/{}: size {} but Release says {}", shown, path,
                                       bytes->size(), entry.first));
      else if (sha256_hex(*bytes) != entry.second)
        problems.push_back(fmt::format("{}/{}: SHA-256 differs from Release", shown, path));
    }
    // With Acquire-By-Hash apt fetches by-hash/<strongest hash>/<hash> instead of the name.
    if (release->find("\nAcquire-By-Hash: yes\n") != std::string::npos)
      for (const char* list : {"SHA256", "SHA512"})
        for (const auto& [path, entry] : release_hashes(*release, list)) {
          std::string by_hash = fmt::format(
              "{}/by-hash/{}/{}", fs::path(path).parent_path().string(), list, entry.second);
          if (::access((dir + "/" + by_hash).c_str(), F_OK) != 0)
            problems.push_back(
                fmt::format("{}/{}: missing, though Release says Acquire-By-Hash", shown, by_hash));
        }
  }
  // Every dnf repository on disk: repomd.xml's signature, then each file's size and SHA-256.
  std::vector<fs::path> repomds;
  for (const auto& e : fs::recursive_directory_iterator(join_path(public_, "rpm"), ec))
    if (e.path().filename() == "repomd.xml" && e.path().parent_path().filename() == "repodata")
      repomds.push_back(e.path());
  std::sort(repomds.begin(), repomds.end());
  for (const auto& path : repomds) {
    fs::path dir = path.parent_path().parent_path();
    std::string shown = fs::relative(path, public_, ec).string();
    auto repomd = read_file(path.string());
    if (!repomd) {
      problems.push_back(repomd.error().message());
      continue;
    }
    if (signer) {
      auto asc = read_file(path.string() + ".asc");
      if (!asc)
        problems.push_back(asc.error().message());
      else if (auto check = signer->keyring.verify_detached(*asc, *repomd); !check)
        problems.push_back(check.error().message());
      else if (!check->good)
        problems.push_back(fmt::format("{}.asc: bad signature: {}", shown, check->problem));
    }
    auto entries = parse_repomd(*repomd);
    if (!entries) {
      problems.push_back(fmt::format("{}: {}", shown, entries.error().message()));
      continue;
    }
    for (const auto& e : *entries) {
      auto bytes = read_file((dir / e.location).string());
      if (!bytes)
        problems.push_back(bytes.error().message());
      else if (bytes->size() != e.size)
        problems.push_back(fmt::format("{}: {} has size {} but repomd.xml says {}", shown,
                                       e.location, bytes->size(), e.size));
      else if (sha256_hex(*bytes) != e.checksum)
        problems.push_back(
            fmt::format("{}: {} has another SHA-256 than repomd.xml says", shown, e.location));
      else if (auto xml = gzip_decompress(*bytes, k_max_primary); !xml)
        problems.push_back(fmt::format("{}: {}: {}", shown, e.location, xml.error().message()));
      else if (!e.open_checksum.empty() &&
               (xml->size() != e.open_size || sha256_hex(*xml) != e.open_checksum))
        problems.push_back(fmt::format("{}: {} holds other text than its open-checksum and "
                                       "open-size in repomd.xml say",
                                       shown, e.location));
      else if (e.type == "primary")
        check_locations(dir, fs::relative(dir, public_, ec), *xml, problems);
    }
  }
  return problems;
}

} // namespace opskit::repo
