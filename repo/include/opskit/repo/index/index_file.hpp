// SPDX-License-Identifier: MIT
#pragma once

#include <string>

namespace opskit::repo {

// One file of an index: its path relative to the directory of the index (dists/<suite>/,
// a dnf repository's directory) and its bytes.
struct IndexFile {
  std::string path;
  std::string data;
};

} // namespace opskit::repo
