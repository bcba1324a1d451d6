// SPDX-License-Identifier: MIT
#include "codec/file_bytes.hpp"

#include <cerrno>
#include <memory>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>

#include <fmt/format.h>

#include "opskit/file.hpp"

namespace opskit::repo::detail {

Result<std::pair<UniqueFd, std::size_t>> open_regular(const std::string& path) {
  OPSKIT_TRY_ASSIGN(auto fd, open_file(path, O_RDONLY));
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0)
    return fail(Error::from_errno("stat", path));
  if (!S_ISREG(st.st_mode))
    return fail(fmt::format("{}: not a regular file", path));
  return std::pair{std::move(fd), static_cast<std::size_t>(st.st_size)};
}

Result<std::string> read_whole(const UniqueFd& fd, std::size_t size, const std::string& path) {
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

Result<void> read_pieces(const UniqueFd& fd, std::uint64_t from, std::uint64_t size,
                         const std::string& path,
                         const std::function<void(std::string_view)>& piece, std::size_t buffer) {
  auto bytes = std::make_unique_for_overwrite<char[]>(buffer);
  for (std::uint64_t done = 0; done < size;) {
    std::size_t want = std::min<std::uint64_t>(buffer, size - done);
    ssize_t n = ::pread(fd.get(), bytes.get(), want, static_cast<off_t>(from + done));
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return fail(n < 0 ? Error::from_errno("read", path)
                        : Error(fmt::format("{}: shorter than it was", path)));
    piece(std::string_view(bytes.get(), static_cast<std::size_t>(n)));
    done += static_cast<std::size_t>(n);
  }
  return {};
}

Result<std::pair<std::string, std::string>> md5_and_sha256(const UniqueFd& fd, std::uint64_t from,
                                                           std::uint64_t size,
                                                           const std::string& path) {
  CPtr<EVP_MD_CTX, EVP_MD_CTX_free> md5(EVP_MD_CTX_new());
  if (!md5 || EVP_DigestInit_ex(md5.get(), EVP_md5(), nullptr) != 1)
    return fail("MD5: cannot initialise the digest");
  Sha256Stream sha256;
  OPSKIT_TRY(read_pieces(fd, from, size, path, [&](std::string_view piece) {
    EVP_DigestUpdate(md5.get(), piece.data(), piece.size());
    sha256.update(piece);
  }));
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned length = 0;
  EVP_DigestFinal_ex(md5.get(), digest, &length);
  return std::pair{hex(std::string_view(reinterpret_cast<char*>(digest), length)), sha256.hex()};
}

Result<std::string> read_whole(const std::string& path) {
  OPSKIT_TRY_ASSIGN(auto file, open_regular(path));
  return read_whole(file.first, file.second, path);
}

Result<PackageBytes> PackageBytes::open(const std::string& path, std::size_t map_from) {
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

PackageBytes::~PackageBytes() {
  if (map_)
    ::munmap(map_, size_);
}

} // namespace opskit::repo::detail
