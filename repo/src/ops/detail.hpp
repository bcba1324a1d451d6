// SPDX-License-Identifier: MIT
#pragma once

// What the parts of Repository (repository.cpp, publish.cpp, scan.cpp) share: the signing key
// in hand and small helpers over the repository's files. Not installed.

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "layout/paths.hpp"
#include "tree/migrate.hpp"
#include "opskit/file.hpp"
#include "opskit/parallel.hpp"
#include "opskit/repo/format/deb/control.hpp"
#include "opskit/repo/codec/digest.hpp"
#include "opskit/repo/repository.hpp"
#include "opskit/repo/index/yum/yum.hpp"

namespace opskit::repo {

struct Repository::Signer {
  Keyring keyring;
  std::string fingerprint;
};

namespace detail {

// A regular file opened for reading, and its size.
inline Result<std::pair<UniqueFd, std::size_t>> open_regular(const std::string& path) {
  OPSKIT_TRY_ASSIGN(auto fd, open_file(path, O_RDONLY));
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0)
    return fail(Error::from_errno("stat", path));
  if (!S_ISREG(st.st_mode))
    return fail(fmt::format("{}: not a regular file", path));
  return std::pair{std::move(fd), static_cast<std::size_t>(st.st_size)};
}

// Reads the rest of open file `fd`, `size` bytes long (fewer if it shrinks); `path` names it.
inline Result<std::string> read_whole(const UniqueFd& fd, std::size_t size,
                                      const std::string& path) {
  std::string data(size, '\0');
  std::size_t got = 0;
  while (got < data.size()) {
    ssize_t n = ::read(fd.get(), data.data() + got, data.size() - got);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return fail(Error::from_errno("read", path));
    if (n == 0)
      break;
    got += static_cast<std::size_t>(n);
  }
  data.resize(got);
  return data;
}

// Reads a whole regular file with its size known up front (packages can be large).
inline Result<std::string> read_whole(const std::string& path) {
  OPSKIT_TRY_ASSIGN(auto file, open_regular(path));
  return read_whole(file.first, file.second, path);
}

// A file's bytes for reading and hashing: mapped read-only when it is large (from `map_from`
// bytes), where copying it into memory would cost as much as hashing it, else read.
class PackageBytes {
public:
  static constexpr std::size_t k_map_from = 256 * 1024;
  static constexpr std::size_t k_huge_page = 2 * 1024 * 1024;
  static Result<PackageBytes> open(const std::string& path, std::size_t map_from = k_map_from) {
    OPSKIT_TRY_ASSIGN(auto file, open_regular(path));
    PackageBytes bytes;
    auto size = file.second;
    if (size >= map_from && size > 0) {
      // A file of a huge page or more is marked before its pages are faulted in (all at once,
      // as MAP_POPULATE would): what comes from disk then enters the page cache in 2 MiB
      // folios, which this and every later reading maps with one page-table entry, not 512.
      bool huge = size >= k_huge_page;
      void* map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE | (huge ? 0 : MAP_POPULATE),
                         file.first.get(), 0);
      if (map != MAP_FAILED) {
        if (huge) {
          ::madvise(map, size, MADV_HUGEPAGE);      // advice only: small pages work too
          ::madvise(map, size, MADV_POPULATE_READ); // else pages fault in as they are read
        }
        bytes.map_ = static_cast<char*>(map);
        bytes.size_ = size;
        return bytes;
      }
    }
    OPSKIT_TRY_ASSIGN(auto read, read_whole(file.first, size, path));
    bytes.data_ = std::move(read);
    return bytes;
  }
  PackageBytes(PackageBytes&& other) noexcept
      : data_(std::move(other.data_)), map_(std::exchange(other.map_, nullptr)),
        size_(other.size_) {}
  PackageBytes& operator=(PackageBytes&&) = delete;
  PackageBytes(const PackageBytes&) = delete;
  PackageBytes& operator=(const PackageBytes&) = delete;
  ~PackageBytes() {
    if (map_)
      ::munmap(map_, size_);
  }
  std::string_view view() const noexcept {
    return map_ ? std::string_view(map_, size_) : std::string_view(data_);
  }

private:
  PackageBytes() = default;
  std::string data_;
  char* map_ = nullptr;
  std::size_t size_ = 0;
};

// Hashes items [0, count) on every CPU, two at a time on each (sha256_each): bytes(i) returns
// item i's bytes, or nothing to skip it; done(i, digest) follows while they are still held.
template <class Bytes, class Done>
void hash_each(std::size_t count, const Bytes& bytes, const Done& done) {
  std::atomic<std::size_t> next{0};
  auto workers = std::min<std::size_t>(std::max(1u, std::thread::hardware_concurrency()), count);
  parallel_for(workers, static_cast<unsigned>(workers), [&](std::size_t) {
    std::map<std::size_t, PackageBytes> held;
    sha256_each(
        [&]() -> std::optional<Sha256Job> {
          for (std::size_t i; (i = next++) < count;)
            if (std::optional<PackageBytes> b = bytes(i))
              return Sha256Job{i, held.emplace(i, std::move(*b)).first->second.view()};
          return std::nullopt;
        },
        [&](std::size_t i, const Sha256& digest) {
          done(i, digest);
          held.erase(i);
        });
  });
}

// What a package's index needs: apt's Packages MD5sum and SHA256 (SHA1 and SHA512 are optional
// and cost most of the hashing time), dnf's primary only SHA-256.
inline Hash package_hashes(PackageFormat format) {
  return format == PackageFormat::deb ? Hash::md5 | Hash::sha256 : Hash::sha256;
}

// Sets the digests `r`'s format needs but SHA-256, which hash_each or sha256_each computes two
// files at a time, from its package's `bytes`.
inline void set_other_digests(PackageRecord& r, std::string_view bytes) {
  if (auto others = package_hashes(r.format) & ~Hash::sha256; others != Hash{}) {
    Digests d = digest_all(bytes, others);
    r.md5 = std::move(d.md5);
    r.sha1 = std::move(d.sha1);
    r.sha512 = std::move(d.sha512);
  }
}

// An rpm's index fragments, for the pool file `file` (only its name counts: the package sits
// at "Packages/<name>" in each dnf repository) of `size` bytes and SHA-256 `sha256`.
inline Result<YumFragments> rpm_fragments(RpmInfo rpm, std::string_view file, std::uint64_t size,
                                          std::string sha256) {
  return yum_fragments({std::move(rpm),
                        fmt::format("Packages/{}", file.substr(file.rfind('/') + 1)), size,
                        std::move(sha256)});
}

// Writes an rpm record's index fragments from its metadata, size and SHA-256.
inline Result<void> add_yum_fragments(PackageRecord& r, RpmInfo rpm) {
  OPSKIT_TRY_ASSIGN(auto xml, rpm_fragments(std::move(rpm), r.file, r.size, r.sha256));
  r.xml_primary = std::move(xml.primary);
  r.xml_filelists = std::move(xml.filelists);
  r.xml_other = std::move(xml.other);
  return {};
}

inline std::string join_path(const std::string& root, std::string_view rel) {
  return fmt::format("{}/{}", root, rel);
}

// The lines of one hash list ("SHA256") of a Release file: path -> (size, hash).
inline std::map<std::string, std::pair<std::uint64_t, std::string>>
release_hashes(std::string_view release, std::string_view list_name) {
  std::map<std::string, std::pair<std::uint64_t, std::string>> out;
  auto stanza = parse_stanza(release, "Release");
  if (!stanza)
    return out;
  const std::string* list = stanza->find(list_name);
  if (!list)
    return out;
  std::string_view rest = *list;
  while (!rest.empty()) {
    auto nl = rest.find('\n');
    std::string_view line = rest.substr(0, nl);
    rest.remove_prefix(nl == std::string_view::npos ? rest.size() : nl + 1);
    char hash[129] = {}, path[4097] = {};
    unsigned long long size = 0;
    std::string text(line);
    if (std::sscanf(text.c_str(), " %128s %llu %4096s", hash, &size, path) == 3)
      out[path] = {size, hash};
  }
  return out;
}

} // namespace detail
} // namespace opskit::repo
