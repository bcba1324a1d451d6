// SPDX-License-Identifier: MIT
#pragma once

// Walking a local tree for the temporaries that a killed run left. Not installed.

#include <functional>
#include <string>
#include <string_view>

namespace opskit::repo::tree {

// Removes temporary files that a killed run left in `dir`, and with Depth::below in every
// directory below it (".<name>.tmp-<pid>", see StagedFiles). Only called under the
// repository's lock, so no live writer owns any of them.
enum class Depth { here, below };
void remove_stale_temporaries(const std::string& dir, Depth depth = Depth::below);

// remove_stale_temporaries(dir) that also calls found(directory, name) for every other regular
// file below `dir`, a symbolic link to one included (one to a directory is not followed):
// index --rebuild finds the packages in the walk that sweeps the publication.
using FoundFile = std::function<void(const std::string& directory, std::string_view name)>;
void sweep_files(const std::string& dir, const FoundFile& found);

} // namespace opskit::repo::tree
