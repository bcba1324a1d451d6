// SPDX-License-Identifier: MIT
#include "tree/generation.hpp"

#include <algorithm>

namespace opskit::repo::tree {

void Generation::add(std::string path, std::string_view bytes) {
  detail::Phase phase = detail::phase_of(path);
  // After the last file of its phase or an earlier one: the order stays that of the phases,
  // and that of the calls within one.
  auto at = std::upper_bound(files_.begin(), files_.end(), phase,
                             [](detail::Phase p, const GenerationFile& f) { return p < f.phase; });
  files_.insert(at, {std::move(path), bytes, phase});
}

} // namespace opskit::repo::tree
