// SPDX-License-Identifier: MIT
// gzip and xz streams for repository indexes (Packages.gz/.xz, primary.xml.gz).
//
// zlib and liblzma are used directly rather than through libarchive's raw writer: libarchive's
// gzip filter stamps the current time into the header, and an index must be byte-deterministic
// so that equal state gives equal files, equal hashes and no needless churn on mirrors. zlib's
// own gzip header (deflateInit2 with windowBits 15+16) carries mtime 0 and no name.
#include "opskit/repo/codec/compress.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <memory>

#include <lzma.h>
#include <zlib.h>

#include <fmt/format.h>

namespace opskit::repo {

namespace {

// A gzip member of the concatenation of `pieces` at `level`, with `header`, `header_size` bytes.
Result<std::string> deflate_member(std::span<const std::string_view> pieces, int level,
                                   gz_header& header, std::size_t header_size) {
  z_stream z{};
  if (deflateInit2(&z, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    return fail("gzip: cannot initialise zlib");
  if (deflateSetHeader(&z, &header) != Z_OK) {
    deflateEnd(&z);
    return fail("gzip: cannot set a member header");
  }
  std::size_t total = 0;
  for (auto piece : pieces)
    total += piece.size();
  std::string out(deflateBound(&z, total) + header_size + 32, '\0');
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  int rc = Z_OK;
  for (auto piece : pieces) { // the bound holds for the whole input, so output never runs out
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(piece.data()));
    z.avail_in = static_cast<uInt>(piece.size());
    while (rc == Z_OK && z.avail_in > 0)
      rc = deflate(&z, Z_NO_FLUSH);
  }
  if (rc == Z_OK)
    rc = deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  if (rc != Z_STREAM_END)
    return fail(fmt::format("gzip: compression failed ({})", rc));
  return out;
}

} // namespace

Result<std::string> gzip_decompress(std::string_view data, std::size_t limit) {
  z_stream z{};
  if (inflateInit2(&z, 15 + 16) != Z_OK)
    return fail("gzip: cannot initialise zlib");
  std::string out;
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  int rc = Z_OK;
  char buffer[65536];
  while (rc == Z_OK) {
    z.next_out = reinterpret_cast<Bytef*>(buffer);
    z.avail_out = sizeof buffer;
    rc = inflate(&z, Z_NO_FLUSH);
    out.append(buffer, sizeof buffer - z.avail_out);
    if (out.size() > limit) {
      inflateEnd(&z);
      return fail(fmt::format("gzip: decompresses past the limit of {} bytes", limit));
    }
    if (rc == Z_STREAM_END && z.avail_in > 0 && inflateReset(&z) == Z_OK)
      rc = Z_OK; // the next member
    if (rc == Z_BUF_ERROR && z.avail_in == 0)
      break;
  }
  inflateEnd(&z);
  if (rc != Z_STREAM_END)
    return fail("gzip: corrupt or truncated stream");
  return out;
}

namespace {

// A keyed member's header: the 10 fixed bytes, XLEN, then one subfield "PC" holding the
// member's length (4 bytes, little-endian) and the key.
constexpr std::size_t k_extra_payload = 4 + k_member_key_size;
constexpr std::size_t k_extra_size = 4 + k_extra_payload;     // SI1 SI2 LEN payload
constexpr std::size_t k_length_at = 10 + 2 + 4;               // where the length sits
constexpr std::size_t k_keyed_header = 10 + 2 + k_extra_size; // up to the deflate data
constexpr unsigned char k_fextra = 0x04;

std::uint32_t le32(std::string_view bytes, std::size_t at) {
  auto b = [&](std::size_t i) {
    return static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[at + i]));
  };
  return b(0) | b(1) << 8 | b(2) << 16 | b(3) << 24;
}

} // namespace

Result<std::string> gzip_keyed_member(std::span<const std::string_view> pieces,
                                      std::string_view key, int level) {
  if (key.size() != k_member_key_size)
    return fail("gzip: a member key must have 32 bytes");
  unsigned char extra[k_extra_size] = {'P', 'C', k_extra_payload & 0xff, k_extra_payload >> 8};
  std::copy(key.begin(), key.end(), extra + 8); // the length (bytes 4..7) is set at the end
  gz_header header{};
  header.extra = extra;
  header.extra_len = sizeof extra;
  header.os = 3; // Unix, as zlib writes without a header of ours
  auto out = deflate_member(pieces, level, header, k_keyed_header);
  if (!out)
    return out;
  for (std::size_t i = 0; i < 4; ++i)
    (*out)[k_length_at + i] = static_cast<char>((out->size() >> (8 * i)) & 0xff);
  return out;
}

std::vector<GzipMember> keyed_gzip_members(std::string_view gz) {
  std::vector<GzipMember> members;
  while (gz.size() >= k_keyed_header + 8) {
    auto byte = [&](std::size_t i) { return static_cast<unsigned char>(gz[i]); };
    if (byte(0) != 0x1f || byte(1) != 0x8b || byte(2) != 8 || (byte(3) & k_fextra) == 0 ||
        byte(10) != k_extra_size || byte(11) != 0 || gz[12] != 'P' || gz[13] != 'C' ||
        byte(14) != k_extra_payload || byte(15) != 0)
      break;
    std::size_t length = le32(gz, k_length_at);
    if (length < k_keyed_header + 8 || length > gz.size())
      break;
    members.push_back({gz.substr(k_length_at + 4, k_member_key_size), gz.substr(0, length),
                       le32(gz, length - 4)});
    gz.remove_prefix(length);
  }
  return members;
}

namespace {

// liblzma asks calloc for its match finder's tables, and untouched calloc'd memory reads as the
// shared zero page: the match finder reads most pages of its tables before it writes them, so
// each page faults twice, the second time to copy, and in a process with other threads that
// flushes the TLB of every CPU it ran on, one interrupt each (on a VM, where an interrupt to an
// idle CPU wakes it, this took a quarter of the CPU time of indexing 500 small debs). Given an
// allocator of its own, liblzma zeroes what it allocates: one fault per page, and no copy.
void* lzma_malloc(void*, std::size_t count, std::size_t size) {
  return count != 0 && size > SIZE_MAX / count ? nullptr : std::malloc(count * size);
}
void lzma_release(void*, void* p) {
  std::free(p);
}
const lzma_allocator k_lzma_allocator{lzma_malloc, lzma_release, nullptr};

} // namespace

namespace {

// Preset 4's match finder, with the dictionary no larger than `size`, the data of a block: the
// default 8 MiB dictionary (94 MiB of encoder state) costs more to set up than a typical index
// takes to compress, and a dictionary larger than the input gains nothing. Preset 6 looks for
// longer matches (nice_len 64, not 16): for the Packages of 500 small debs, 0.9% smaller and
// 2.6 ms (8%) longer for their whole index.
Result<lzma_options_lzma> lzma2_options(std::uint64_t size) {
  lzma_options_lzma options{};
  if (lzma_lzma_preset(&options, 4))
    return fail("xz: cannot set up preset 4");
  std::uint32_t dict = LZMA_DICT_SIZE_MIN;
  while (dict < size && dict < options.dict_size)
    dict *= 2;
  options.dict_size = dict;
  return options;
}

struct IndexFree {
  void operator()(lzma_index* index) const noexcept { lzma_index_end(index, &k_lzma_allocator); }
};
using IndexPtr = std::unique_ptr<lzma_index, IndexFree>;

} // namespace

Result<XzBlock> xz_block(std::string_view data, std::string& out) {
  OPSKIT_TRY_ASSIGN(auto options, lzma2_options(data.size()));
  lzma_filter filters[] = {{LZMA_FILTER_LZMA2, &options}, {LZMA_VLI_UNKNOWN, nullptr}};
  lzma_block block{};
  block.version = 0;
  block.check = LZMA_CHECK_CRC64;
  block.filters = filters;
  out.assign(lzma_block_buffer_bound(data.size()), '\0');
  std::size_t written = 0;
  if (lzma_ret rc = lzma_block_buffer_encode(
          &block, &k_lzma_allocator, reinterpret_cast<const std::uint8_t*>(data.data()),
          data.size(), reinterpret_cast<std::uint8_t*>(out.data()), &written, out.size());
      rc != LZMA_OK)
    return fail(fmt::format("xz: compression failed ({})", static_cast<int>(rc)));
  out.resize(written);
  return XzBlock{out, lzma_block_unpadded_size(&block), data.size()};
}

Result<std::string> xz_stream(std::span<const XzBlock> blocks) {
  lzma_stream_flags flags{};
  flags.version = 0;
  flags.check = LZMA_CHECK_CRC64;
  IndexPtr index(lzma_index_init(&k_lzma_allocator));
  if (!index)
    return fail("xz: cannot set up an index");
  std::size_t size = 2 * LZMA_STREAM_HEADER_SIZE;
  for (const auto& b : blocks) {
    if (lzma_index_append(index.get(), &k_lzma_allocator, b.unpadded, b.uncompressed) != LZMA_OK)
      return fail("xz: a block does not fit the index");
    size += b.bytes.size();
  }
  flags.backward_size = lzma_index_size(index.get());
  std::string out(size + flags.backward_size, '\0');
  auto* at = reinterpret_cast<std::uint8_t*>(out.data());
  if (lzma_stream_header_encode(&flags, at) != LZMA_OK)
    return fail("xz: cannot write the stream header");
  std::size_t pos = LZMA_STREAM_HEADER_SIZE;
  for (const auto& b : blocks) {
    std::copy(b.bytes.begin(), b.bytes.end(), out.begin() + static_cast<std::ptrdiff_t>(pos));
    pos += b.bytes.size();
  }
  if (lzma_index_buffer_encode(index.get(), at, &pos, out.size()) != LZMA_OK ||
      lzma_stream_footer_encode(&flags, at + pos) != LZMA_OK)
    return fail("xz: cannot write the index");
  return out;
}

std::vector<XzBlock> xz_blocks(std::string_view xz) {
  constexpr std::size_t k_edge = LZMA_STREAM_HEADER_SIZE;
  if (xz.size() < 2 * k_edge)
    return {};
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(xz.data());
  lzma_stream_flags header{}, footer{};
  if (lzma_stream_header_decode(&header, bytes) != LZMA_OK ||
      lzma_stream_footer_decode(&footer, bytes + xz.size() - k_edge) != LZMA_OK ||
      lzma_stream_flags_compare(&header, &footer) != LZMA_OK || header.check != LZMA_CHECK_CRC64 ||
      footer.backward_size > xz.size() - 2 * k_edge)
    return {};
  std::size_t index_at = xz.size() - k_edge - footer.backward_size, pos = index_at;
  lzma_index* raw = nullptr;
  std::uint64_t memlimit = UINT64_MAX;
  if (lzma_index_buffer_decode(&raw, &memlimit, &k_lzma_allocator, bytes, &pos,
                               xz.size() - k_edge) != LZMA_OK)
    return {};
  IndexPtr index(raw);
  if (pos != xz.size() - k_edge || lzma_index_stream_count(index.get()) != 1)
    return {};
  std::vector<XzBlock> blocks;
  lzma_index_iter it;
  lzma_index_iter_init(&it, index.get());
  std::uint64_t expected = k_edge;
  while (!lzma_index_iter_next(&it, LZMA_INDEX_ITER_BLOCK)) {
    if (it.block.compressed_file_offset != expected || it.block.total_size > index_at - expected)
      return {};
    blocks.push_back({xz.substr(expected, it.block.total_size), it.block.unpadded_size,
                      it.block.uncompressed_size});
    expected += it.block.total_size;
  }
  return expected == index_at ? blocks : std::vector<XzBlock>{};
}

} // namespace opskit::repo
