// SPDX-License-Identifier: MIT
#include "tree/generation.hpp"

namespace opskit::repo::tree {

void Generation::add(std::string path, std::string_view bytes) {
  detail::Phase phase = detail::phase_of(path);
  phases_[static_cast<std::size_t>(phase)].push_back(
      {std::move(path), bytes, phase, "", bytes.size()});
}

void Generation::add_file(std::string path, std::string source, std::uint64_t size) {
  detail::Phase phase = detail::phase_of(path);
  phases_[static_cast<std::size_t>(phase)].push_back(
      {std::move(path), {}, phase, std::move(source), size});
}

std::vector<const GenerationFile*> Generation::files() const {
  std::vector<const GenerationFile*> all;
  all.reserve(size());
  for (const auto& phase : phases_)
    for (const auto& f : phase)
      all.push_back(&f);
  return all;
}

std::size_t Generation::size() const noexcept {
  std::size_t n = 0;
  for (const auto& phase : phases_)
    n += phase.size();
  return n;
}

} // namespace opskit::repo::tree
