// SPDX-License-Identifier: MIT
#pragma once

// What the fuzz targets share: the input as bytes, and a check that aborts, so that libFuzzer
// and the corpus driver both report a broken invariant as a crash with its input.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

// The entry point libFuzzer calls with each input, and driver.cpp with each corpus file.
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace opskit::fuzz {

inline std::string_view bytes_of(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// Aborts with `what` when `ok` is false.
inline void check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "fuzz: invariant broken: %s\n", what);
    std::abort();
  }
}

// The input's first byte chooses among `count` cases; the rest is the case's input.
struct Choice {
  std::size_t which = 0;
  std::string_view rest;
};
inline Choice choose(std::string_view input, std::size_t count) {
  if (input.empty())
    return {0, input};
  return {static_cast<unsigned char>(input[0]) % count, input.substr(1)};
}

} // namespace opskit::fuzz
