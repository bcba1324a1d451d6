// SPDX-License-Identifier: MIT
// gzip and xz streams for repository indexes (Packages.gz/.xz, primary.xml.gz).
//
// zlib and liblzma are used directly rather than through libarchive's raw writer: libarchive's
// gzip filter stamps the current time into the header, and an index must be byte-deterministic
// so that equal state gives equal files, equal hashes and no needless churn on mirrors. zlib's
// own gzip header (deflateInit2 with windowBits 15+16) carries mtime 0 and no name.
#include "opskit/repo/compress.hpp"

#include <lzma.h>
#include <zlib.h>

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
  // Preset 6's match finder, with the dictionary no larger than the input: the default 8 MiB
  // dictionary (94 MiB of encoder state) costs more to set up than a typical index takes to
  // compress, and a dictionary larger than the input gains nothing.
  lzma_options_lzma options{};
  if (lzma_lzma_preset(&options, 6))
    return fail("xz: cannot set up preset 6");
  std::uint32_t dict = LZMA_DICT_SIZE_MIN;
  while (dict < data.size() && dict < options.dict_size)
    dict *= 2;
  options.dict_size = dict;
  lzma_filter filters[] = {{LZMA_FILTER_LZMA2, &options}, {LZMA_VLI_UNKNOWN, nullptr}};
  std::string out(lzma_stream_buffer_bound(data.size()), '\0');
  std::size_t used = 0;
  lzma_ret rc = lzma_stream_buffer_encode(
      filters, LZMA_CHECK_CRC64, nullptr, reinterpret_cast<const uint8_t*>(data.data()),
      data.size(), reinterpret_cast<uint8_t*>(out.data()), &used, out.size());
  if (rc != LZMA_OK)
    return fail(fmt::format("xz: compression failed ({})", static_cast<int>(rc)));
  out.resize(used);
  return out;
}

} // namespace opskit::repo
