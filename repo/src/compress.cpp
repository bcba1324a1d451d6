// SPDX-License-Identifier: MIT
// gzip and xz streams for repository indexes (Packages.gz/.xz, primary.xml.gz).
//
// zlib and liblzma are used directly rather than through libarchive's raw writer: libarchive's
// gzip filter stamps the current time into the header, and an index must be byte-deterministic
// so that equal state gives equal files, equal hashes and no needless churn on mirrors. zlib's
// own gzip header (deflateInit2 with windowBits 15+16) carries mtime 0 and no name.
#include "opskit/repo/compress.hpp"

#include <algorithm>

#include <lzma.h>
#include <zlib.h>

#include <algorithm>

#include <fmt/format.h>

namespace opskit::repo {

Result<std::string> gzip_compress(std::string_view data) {
  z_stream z{};
  if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    return fail("gzip: cannot initialise zlib");
  std::string out(deflateBound(&z, data.size()) + 32, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  int rc = deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  if (rc != Z_STREAM_END)
    return fail(fmt::format("gzip: compression failed ({})", rc));
  return out;
}

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
    if (rc == Z_BUF_ERROR && z.avail_in == 0)
      break;
  }
  inflateEnd(&z);
  if (rc != Z_STREAM_END)
    return fail("gzip: corrupt or truncated stream");
  return out;
}

Result<std::string> xz_compress(std::string_view data) {
  // Preset 6's match finder, with the dictionary no larger than a block: the default 8 MiB
  // dictionary (94 MiB of encoder state) costs more to set up than a typical index takes to
  // compress, and a dictionary larger than the input gains nothing.
  lzma_options_lzma options{};
  if (lzma_lzma_preset(&options, 6))
    return fail("xz: cannot set up preset 6");
  // Two blocks, compressed at once by two threads: xz takes most of an index's time, and the
  // split costs about 2.5% in size. The block size depends on the input alone, so the output is
  // the same on any machine (liblzma's threaded encoder gives equal output for equal blocks);
  // small inputs stay one block, where a second thread would gain less than it costs to start.
  constexpr std::size_t k_xz_split_min = 64 * 1024;
  std::uint64_t block = data.size() < k_xz_split_min ? data.size() : (data.size() + 1) / 2;
  std::uint32_t dict = LZMA_DICT_SIZE_MIN;
  while (dict < block && dict < options.dict_size)
    dict *= 2;
  options.dict_size = dict;
  lzma_filter filters[] = {{LZMA_FILTER_LZMA2, &options}, {LZMA_VLI_UNKNOWN, nullptr}};
  lzma_mt mt{};
  mt.threads = block < data.size() ? 2 : 1;
  mt.block_size = std::max<std::uint64_t>(block, 1);
  mt.filters = filters;
  mt.check = LZMA_CHECK_CRC64;
  lzma_stream z = LZMA_STREAM_INIT;
  if (lzma_ret rc = lzma_stream_encoder_mt(&z, &mt); rc != LZMA_OK)
    return fail(fmt::format("xz: cannot set up the encoder ({})", static_cast<int>(rc)));
  std::string out(lzma_stream_buffer_bound(data.size()), '\0');
  z.next_in = reinterpret_cast<const uint8_t*>(data.data());
  z.avail_in = data.size();
  z.next_out = reinterpret_cast<uint8_t*>(out.data());
  z.avail_out = out.size();
  lzma_ret rc = LZMA_OK;
  while (rc == LZMA_OK)
    rc = lzma_code(&z, LZMA_FINISH);
  out.resize(z.total_out);
  lzma_end(&z);
  if (rc != LZMA_STREAM_END)
    return fail(fmt::format("xz: compression failed ({})", static_cast<int>(rc)));
  return out;
}

} // namespace opskit::repo
