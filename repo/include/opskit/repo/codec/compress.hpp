// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "opskit/error.hpp"

namespace opskit::repo {

// A gzip stream (level 6, as gzip and createrepo_c default to) of `data` with no name and
// modification time 0, so equal input gives equal bytes.
Result<std::string> gzip_compress(std::string_view data);

// An xz stream (LZMA2 preset 4 with a dictionary fitted to the input, CRC64) of `data`, in two
// blocks compressed in parallel from 64 KiB on; deterministic: the blocks depend on the input only.
Result<std::string> xz_compress(std::string_view data);

// Decompresses a gzip file whole, every member of it (RFC 1952 lets a file be a series of
// members, read as the concatenation of their contents); `limit` bounds the output.
Result<std::string> gzip_decompress(std::string_view data, std::size_t limit);

// Keyed gzip members. A gzip file made of several members reads as one stream in every
// decompressor (zlib's gzread, libsolv, Python, gzip -d). A keyed member also carries in its
// header's extra field (FEXTRA, subfield "PC") its own length and a caller's key, typically a
// hash of its content, so that a later writer can find each member of a published file without
// decompressing anything and copy the ones whose content it would write again.
constexpr std::size_t k_member_key_size = 32;

// One keyed gzip member of the concatenation of `pieces` (mtime 0). `key` is
// k_member_key_size bytes.
Result<std::string> gzip_keyed_member(std::span<const std::string_view> pieces,
                                      std::string_view key, int level = 6);
inline Result<std::string> gzip_keyed_member(std::string_view data, std::string_view key,
                                             int level = 6) {
  return gzip_keyed_member({&data, 1}, key, level);
}

// A keyed member found in a gzip file: its key, its bytes, and the size (mod 2^32) of its
// content, from its trailer.
struct GzipMember {
  std::string_view key, bytes;
  std::uint32_t isize = 0;
};

// The keyed members a gzip file starts with, up to the first one that is not keyed or not
// well-formed; views into `gz`.
std::vector<GzipMember> keyed_gzip_members(std::string_view gz);

} // namespace opskit::repo
