// SPDX-License-Identifier: MIT
#pragma once

#include <string>
#include <string_view>

#include "opskit/error.hpp"

namespace opskit::repo {

// A gzip stream (level 6, as gzip and createrepo_c default to) of `data` with no name and
// modification time 0, so equal input gives equal bytes.
Result<std::string> gzip_compress(std::string_view data);

// An xz stream (LZMA2 preset 6 with a dictionary fitted to the input, CRC64) of `data`, in two
// blocks compressed in parallel from 64 KiB on; deterministic: the blocks depend on the input only.
Result<std::string> xz_compress(std::string_view data);

// Decompresses a gzip stream whole; `limit` bounds the output (an error past it).
Result<std::string> gzip_decompress(std::string_view data, std::size_t limit);

} // namespace opskit::repo
