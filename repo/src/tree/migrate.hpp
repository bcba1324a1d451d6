// SPDX-License-Identifier: MIT
#pragma once

// Moving a repository of the first layout to the current one. Not installed.

#include <string>

#include "opskit/error.hpp"

namespace opskit::repo::detail {

enum class Moved { nothing, publication };

// Brings the repository at `root` to the current layout. Repositories made before the
// publication had a directory of its own kept it at the top, beside .pkgcloud/; this moves it
// into public/ so that a kill at any moment leaves one layout or the other, whole, and the next
// call finishes what a killed one left. Takes the repository's lock when there is work; costs
// two system calls when there is none. Fails with the path and the reason when a file cannot
// be linked, renamed or removed.
Result<Moved> settle_layout(const std::string& root);

} // namespace opskit::repo::detail
