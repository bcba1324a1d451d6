// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "opskit/error.hpp"

namespace opskit::repo {

// The digests apt's Release and Packages list, as lowercase hex, and the size they cover.
struct Digests {
  std::uint64_t size = 0;
  std::string md5, sha1, sha256, sha512;
};

// All four digests of `data` in one pass over it.
Digests digest_all(std::string_view data);

// SHA-256 of `data` as lowercase hex.
std::string sha256_hex(std::string_view data);

} // namespace opskit::repo
