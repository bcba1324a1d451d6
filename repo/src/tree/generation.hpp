// SPDX-License-Identifier: MIT
#pragma once

// A generation of a publication, or of one part of it (an apt suite, a dnf repository): the
// files it is made of, each with its phase, in the order a target puts them in place. The
// writers of ops/ build one in memory, signed, before the first file is touched, and place it
// in a local tree (local.hpp); publish builds one of the whole local publication and sends it
// to a remote target (publish/). Not installed.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "layout/paths.hpp"

namespace opskit::repo::tree {

// One file: where it goes, relative to the publication, and what it holds: `bytes`, which the
// generation's builder owns, or the file at `source`, `size` bytes long.
struct GenerationFile {
  std::string path;
  std::string_view bytes;
  detail::Phase phase;
  std::string source;
  std::uint64_t size = 0;
};

class Generation {
public:
  static constexpr std::size_t k_phases = static_cast<std::size_t>(detail::Phase::top_level) + 1;

  // Adds `path` with `bytes`, in the phase its path gives (detail::phase_of).
  void add(std::string path, std::string_view bytes);
  // Adds `path` with the bytes of the file `source`, `size` long.
  void add_file(std::string path, std::string source, std::uint64_t size);

  // The files of `phase`, in the order they were added.
  const std::vector<GenerationFile>& in(detail::Phase phase) const noexcept {
    return phases_[static_cast<std::size_t>(phase)];
  }
  // Every file by phase, in the order added within one.
  std::vector<const GenerationFile*> files() const;
  std::size_t size() const noexcept;

private:
  std::array<std::vector<GenerationFile>, k_phases> phases_;
};

} // namespace opskit::repo::tree
