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
lzma_vli xz_blocks(const std::string& xz) {
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

TEST_CASE("compress: xz of a large index is two blocks, decompresses to the input and repeats "
          "byte for byte",
          "[repo][compress]") {
  std::string text = packages_text(4000);
  REQUIRE(text.size() > 128 * 1024);
  auto a = xz_compress(text), b = xz_compress(text);
  REQUIRE(a);
  REQUIRE(b);
  CHECK(*a == *b);
  CHECK(xz_blocks(*a) == 2);
  CHECK(xz_decompress(*a) == text);
  CHECK(a->size() < text.size() / 4);
}

TEST_CASE("compress: xz of a small index is one block", "[repo][compress]") {
  std::string text = packages_text(100);
  auto xz = xz_compress(text);
  REQUIRE(xz);
  CHECK(xz_blocks(*xz) == 1);
  CHECK(xz_decompress(*xz) == text);
  auto empty = xz_compress("");
  REQUIRE(empty);
  CHECK(xz_decompress(*empty).empty());
}
