// SPDX-License-Identifier: MIT
#pragma once

// What pkgcloud prints for what the library returns: text for people, JSON for programs.

#include <string>
#include <string_view>
#include <vector>

#include "opskit/repo/repository.hpp"

namespace opskit::cmd::pkgcloud {

// ls, rm and prune --json: an array of package records (name, version, arch, format, dist,
// component, file, size, sha256); push --json: the same, each with its action (added,
// replaced, unchanged).
std::string records_json(const std::vector<repo::PackageRecord>& records);
std::string pushed_json(const std::vector<repo::PushedPackage>& pushed);

// The word push prints for what it did with a package: added, replaced or unchanged.
std::string_view action_word(repo::PushAction action);

// index: one line per index ("deb/debian/dists/bookworm: 3 packages, signed"), after the rescan.
std::string index_text(const repo::IndexReport& report, bool rebuilt);
std::string index_json(const repo::IndexReport& report, bool rebuilt);

// verify: one line per problem; JSON: an array of objects (file, what, expected, found, message).
std::string problems_text(const std::vector<repo::Problem>& problems);
std::string problems_json(const std::vector<repo::Problem>& problems);

// sources: the apt deb822 and one-line entries and the dnf .repo file, for `publication` served
// at `url`, each under a comment naming the file it goes in.
std::string sources_text(const repo::Sources& sources, const std::string& publication,
                         const std::string& url);

// publish: with dry_run, a line per file to send ("send PATH (SIZE bytes)") and to delete;
// then a summary of files, bytes, requests by method, retries and time.
std::string publish_text(const repo::PublishReport& report);
std::string publish_json(const repo::PublishReport& report);

} // namespace opskit::cmd::pkgcloud
