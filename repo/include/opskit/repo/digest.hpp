// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "opskit/error.hpp"

namespace opskit::repo {

// The digests apt's Release and Packages list, as lowercase hex, and the size they cover.
struct Digests {
  std::uint64_t size = 0;
  std::string md5, sha1, sha256, sha512;
};

// Which digests to compute; a bit set.
enum class Hash : unsigned { md5 = 1, sha1 = 2, sha256 = 4, sha512 = 8, all = 15 };
constexpr Hash operator|(Hash a, Hash b) noexcept {
  return static_cast<Hash>(static_cast<unsigned>(a) | static_cast<unsigned>(b));
}

// The digests named by `which` of `data` in one pass over it (the others stay empty).
Digests digest_all(std::string_view data, Hash which = Hash::all);

// `bytes` as lowercase hex.
std::string hex(std::string_view bytes);

// SHA-256 of `data` as lowercase hex.
std::string sha256_hex(std::string_view data);

// SHA-256 of data given in pieces.
class Sha256Stream {
public:
  Sha256Stream();
  Sha256Stream(Sha256Stream&&) noexcept;
  Sha256Stream& operator=(Sha256Stream&&) noexcept;
  ~Sha256Stream();
  Sha256Stream& update(std::string_view data);
  // The digest of everything given, as lowercase hex or as its raw bytes; either ends the
  // stream.
  std::string hex();
  std::string raw();

private:
  struct Context;
  std::unique_ptr<Context> ctx_;
};

} // namespace opskit::repo
