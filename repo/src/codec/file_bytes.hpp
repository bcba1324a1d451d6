// SPDX-License-Identifier: MIT
#pragma once

// A file's bytes for reading and hashing, and hashing many files on every CPU. Not installed.

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>

#include "opskit/error.hpp"
#include "opskit/handle.hpp"
#include "opskit/parallel.hpp"
#include "opskit/repo/codec/digest.hpp"

namespace opskit::repo::detail {

// A regular file opened for reading, and its size; an error names `path` when it cannot be
// opened or is not a regular file.
Result<std::pair<UniqueFd, std::size_t>> open_regular(const std::string& path);

// Reads the rest of open file `fd`, `size` bytes long (fewer if it shrinks); `path` names it.
Result<std::string> read_whole(const UniqueFd& fd, std::size_t size, const std::string& path);

// Gives `size` bytes of open file `fd` from `from` to `piece` in order, read `buffer` bytes at a
// time into one buffer, so that memory stays flat however large the file is and what `piece`
// reads is in cache; `path` names the file in an error, also when it is shorter than that.
Result<void> read_pieces(const UniqueFd& fd, std::uint64_t from, std::uint64_t size,
                         const std::string& path,
                         const std::function<void(std::string_view)>& piece,
                         std::size_t buffer = std::size_t{1} << 20);

// The MD5 and SHA-256 (hex) of `size` bytes of open file `fd` from `from` (see read_pieces).
Result<std::pair<std::string, std::string>>
md5_and_sha256(const UniqueFd& fd, std::uint64_t from, std::uint64_t size, const std::string& path);

// Reads a whole regular file with its size known up front (packages can be large).
Result<std::string> read_whole(const std::string& path);

// A file's bytes for reading and hashing: mapped read-only when it is large (from `map_from`
// bytes), where copying it into memory would cost as much as hashing it, else read.
class PackageBytes {
public:
  static constexpr std::size_t k_map_from = 256 * 1024;
  static constexpr std::size_t k_huge_page = 2 * 1024 * 1024;
  static Result<PackageBytes> open(const std::string& path, std::size_t map_from = k_map_from);
  PackageBytes(PackageBytes&& other) noexcept
      : data_(std::move(other.data_)), map_(std::exchange(other.map_, nullptr)),
        size_(other.size_) {}
  PackageBytes& operator=(PackageBytes&&) = delete;
  PackageBytes(const PackageBytes&) = delete;
  PackageBytes& operator=(const PackageBytes&) = delete;
  ~PackageBytes();
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

} // namespace opskit::repo::detail
