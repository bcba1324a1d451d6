// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "opskit/error.hpp"

namespace opskit::repo {

// xz made of blocks. An xz stream is a header, blocks compressed each on its own, an index of
// their sizes and a footer; a file made of several blocks reads as one stream in every
// decompressor (liblzma, xz -d, apt, Python). Blocks made once can be copied into a later stream
// that holds the same data at the same place in its run of blocks.
struct XzBlock {
  std::string_view bytes;         // the block as it sits in a stream, its padding included
  std::uint64_t unpadded = 0;     // its size without the padding, as the index records it
  std::uint64_t uncompressed = 0; // the size of its data
};

// One block (LZMA2 preset 4, a dictionary fitted to the data, CRC64) of `data`, into `out`;
// deterministic. The returned view points into `out`.
Result<XzBlock> xz_block(std::string_view data, std::string& out);

// An xz stream of `blocks` in this order, with the CRC64 check its blocks carry.
Result<std::string> xz_stream(std::span<const XzBlock> blocks);

// The blocks of a file that is one xz stream with CRC64 checks, in order, as views into `xz`;
// nothing when it is not one (several streams, another check, damage).
std::vector<XzBlock> xz_blocks(std::string_view xz);

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
