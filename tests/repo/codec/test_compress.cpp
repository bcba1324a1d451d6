// SPDX-License-Identifier: MIT
#include <catch2/catch.hpp>

#include <lzma.h>

#include <string>

#include "opskit/repo/codec/compress.hpp"

using namespace opskit::repo;

namespace {

// An index-like text of `stanzas` paragraphs, each with a field no other repeats.
std::string packages_text(int stanzas) {
  std::string out;
  for (int i = 0; i < stanzas; ++i)
    out += "Package: p" + std::to_string(i) +
           "\nVersion: 1.0-1\nArchitecture: amd64\nSHA256: " + std::to_string(i * 2654435761u) +
           "\nDescription: a package\n\n";
  return out;
}

std::string xz_decompress(const std::string& xz) {
  std::string out(1 << 22, '\0');
  std::uint64_t limit = UINT64_MAX;
  std::size_t in_pos = 0, out_pos = 0;
  lzma_ret rc = lzma_stream_buffer_decode(
      &limit, 0, nullptr, reinterpret_cast<const uint8_t*>(xz.data()), &in_pos, xz.size(),
      reinterpret_cast<uint8_t*>(out.data()), &out_pos, out.size());
  REQUIRE(rc == LZMA_OK);
  out.resize(out_pos);
  return out;
}

// The number of blocks the stream's index lists (one stream, no padding).
lzma_vli block_count(const std::string& xz) {
  const auto* bytes = reinterpret_cast<const uint8_t*>(xz.data());
  lzma_stream_flags footer{};
  REQUIRE(lzma_stream_footer_decode(&footer, bytes + xz.size() - LZMA_STREAM_HEADER_SIZE) ==
          LZMA_OK);
  std::size_t at = xz.size() - LZMA_STREAM_HEADER_SIZE - footer.backward_size;
  lzma_index* index = nullptr;
  std::uint64_t limit = UINT64_MAX;
  REQUIRE(lzma_index_buffer_decode(&index, &limit, nullptr, bytes, &at,
                                   xz.size() - LZMA_STREAM_HEADER_SIZE) == LZMA_OK);
  lzma_vli blocks = lzma_index_block_count(index);
  lzma_index_end(index, nullptr);
  return blocks;
}

} // namespace

TEST_CASE("compress: xz blocks made one at a time make a stream of their data in order, read "
          "back block by block",
          "[repo][compress]") {
  std::string texts[] = {packages_text(300), "", packages_text(7), packages_text(2000)};
  std::string storage[4];
  std::vector<XzBlock> blocks;
  std::string whole;
  for (std::size_t i = 0; i < 4; ++i) {
    if (texts[i].empty())
      continue;
    auto block = xz_block(texts[i], storage[i]);
    REQUIRE(block);
    CHECK(block->uncompressed == texts[i].size());
    CHECK(block->unpadded <= block->bytes.size());
    CHECK(block->bytes.size() % 4 == 0);
    blocks.push_back(*block);
    whole += texts[i];
  }
  auto xz = xz_stream(blocks);
  REQUIRE(xz);
  CHECK(block_count(*xz) == 3);
  CHECK(xz_decompress(*xz) == whole);
  CHECK(xz->size() < whole.size() / 4);
  auto read = opskit::repo::xz_blocks(*xz);
  REQUIRE(read.size() == 3);
  for (std::size_t i = 0; i < 3; ++i) {
    CHECK(read[i].bytes == blocks[i].bytes);
    CHECK(read[i].unpadded == blocks[i].unpadded);
    CHECK(read[i].uncompressed == blocks[i].uncompressed);
  }
  // Deterministic: the same data makes the same block.
  std::string again;
  auto same = xz_block(texts[0], again);
  REQUIRE(same);
  CHECK(same->bytes == blocks[0].bytes);
}

TEST_CASE("compress: an xz stream of no blocks is an empty file's", "[repo][compress]") {
  auto xz = xz_stream({});
  REQUIRE(xz);
  CHECK(xz_decompress(*xz).empty());
  CHECK(opskit::repo::xz_blocks(*xz).empty());
}

TEST_CASE("compress: blocks are read only from one whole stream with CRC64 checks",
          "[repo][compress]") {
  std::string storage, text = packages_text(50);
  auto block = xz_block(text, storage);
  REQUIRE(block);
  auto xz = xz_stream({&*block, 1});
  REQUIRE(xz);
  REQUIRE(opskit::repo::xz_blocks(*xz).size() == 1);
  CHECK(opskit::repo::xz_blocks(*xz + *xz).empty());                     // two streams
  CHECK(opskit::repo::xz_blocks(xz->substr(0, xz->size() - 1)).empty()); // cut short
  std::string damaged = *xz;
  damaged[damaged.size() - 20] ^= 0x55; // in the index
  CHECK(opskit::repo::xz_blocks(damaged).empty());
  std::string crc32(lzma_stream_buffer_bound(text.size()), '\0');
  std::size_t size = 0;
  REQUIRE(lzma_easy_buffer_encode(4, LZMA_CHECK_CRC32, nullptr,
                                  reinterpret_cast<const uint8_t*>(text.data()), text.size(),
                                  reinterpret_cast<uint8_t*>(crc32.data()), &size,
                                  crc32.size()) == LZMA_OK);
  crc32.resize(size);
  CHECK(opskit::repo::xz_blocks(crc32).empty());
}
