// SPDX-License-Identifier: MIT
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
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
constexpr Hash operator&(Hash a, Hash b) noexcept {
  return static_cast<Hash>(static_cast<unsigned>(a) & static_cast<unsigned>(b));
}
constexpr Hash operator~(Hash a) noexcept {
  return static_cast<Hash>(~static_cast<unsigned>(a) & static_cast<unsigned>(Hash::all));
}

// The digests named by `which` of `data` in one pass over it (the others stay empty).
Digests digest_all(std::string_view data, Hash which = Hash::all);

// `bytes` as lowercase hex.
std::string hex(std::string_view bytes);

// SHA-256 of `data` as lowercase hex.
std::string sha256_hex(std::string_view data);

// A SHA-256 digest's bytes.
using Sha256 = std::array<unsigned char, 32>;

// A digest as lowercase hex.
std::string hex(const Sha256& digest);

// A message for sha256_each: its bytes and the caller's number for it.
struct Sha256Job {
  std::size_t id = 0;
  std::string_view bytes;
};

// The SHA-256 of every message next() gives, until it gives none, each handed to
// done(id, digest) as soon as it is known; all on the calling thread. A message's bytes must
// stay valid until its done(). With the CPU's SHA extensions two messages are hashed at once,
// nearly twice as fast as one after the other; done() may therefore come for a later message
// first, and next() is called again before the previous message is done.
void sha256_each(const std::function<std::optional<Sha256Job>()>& next,
                 const std::function<void(std::size_t id, const Sha256& digest)>& done);

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
