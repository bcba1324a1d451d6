// SPDX-License-Identifier: MIT
#pragma once

#include <string>
#include <string_view>

#include "opskit/error.hpp"

namespace opskit::repo {

// A gzip stream of `data` with no name and modification time 0, so equal input gives equal bytes.
Result<std::string> gzip_compress(std::string_view data);

// An xz stream (preset 6, CRC64) of `data`; deterministic.
Result<std::string> xz_compress(std::string_view data);

// Decompresses a gzip stream whole; `limit` bounds the output (an error past it).
Result<std::string> gzip_decompress(std::string_view data, std::size_t limit);

} // namespace opskit::repo
