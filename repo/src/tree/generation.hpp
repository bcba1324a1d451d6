// SPDX-License-Identifier: MIT
#pragma once

// A generation of a publication, or of one part of it (an apt suite, a dnf repository): the
// files it is made of, each with its phase, in the order a target puts them in place. The
// writers of ops/ build one in memory, signed, before the first file is touched; the local
// writer (local.hpp) and the remote targets take it. Not installed.

#include <string>
#include <string_view>
#include <vector>

#include "layout/paths.hpp"

namespace opskit::repo::tree {

// One file: where it goes, relative to the publication, and its bytes, which the generation's
// builder owns.
struct GenerationFile {
  std::string path;
  std::string_view bytes;
  detail::Phase phase;
};

class Generation {
public:
  // Adds `path` with `bytes`, in the phase its path gives (detail::phase_of).
  void add(std::string path, std::string_view bytes);
  // The files by phase, in the order they were added within one.
  const std::vector<GenerationFile>& files() const& noexcept { return files_; }
  void files() && = delete; // of a temporary: would dangle in a range-for

private:
  std::vector<GenerationFile> files_;
};

} // namespace opskit::repo::tree
