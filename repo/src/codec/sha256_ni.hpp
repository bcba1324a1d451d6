// SPDX-License-Identifier: MIT
#pragma once

// SHA-256 on the x86 SHA extensions, one message or two at once. Not installed; digest.cpp
// calls it only where sha_extensions() is true.

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace opskit::repo::detail {

// True when this CPU has the SHA extensions and SSE4.1, which the functions below need.
bool sha_extensions() noexcept;

// A message being hashed: the chaining value in the order the extensions keep it, and what is
// left of the message.
struct ShaNiLane {
  alignas(16) std::array<std::uint32_t, 8> state;
  std::string_view rest;
  std::uint64_t total = 0; // the message's whole length, for the padding
};

// Starts hashing `message`.
ShaNiLane sha_ni_start(std::string_view message) noexcept;

// The 64-byte blocks of a message left in a lane.
inline std::size_t sha_ni_blocks(const ShaNiLane& lane) noexcept {
  return lane.rest.size() / 64;
}

// Hashes the next `blocks` blocks of `lane`, which has at least that many.
void sha_ni_run(ShaNiLane& lane, std::size_t blocks) noexcept;

// Hashes the next `blocks` blocks of both lanes, interleaved; each has at least that many.
void sha_ni_run2(ShaNiLane& a, ShaNiLane& b, std::size_t blocks) noexcept;

// Pads and hashes the last partial block of a lane left with no whole block; the digest.
std::array<unsigned char, 32> sha_ni_finish(ShaNiLane& lane) noexcept;

} // namespace opskit::repo::detail
