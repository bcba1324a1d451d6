// SPDX-License-Identifier: MIT
#pragma once

// Writing a publication's metadata into a local directory tree (see the top of local.cpp for
// the order that keeps every reader safe). Not installed.

#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <sys/types.h>

#include "opskit/atomic_file.hpp"
#include "opskit/error.hpp"
#include "opskit/repo/store/yum_rows.hpp"

namespace opskit::repo::tree {

// The names in directory `dir` with their inode numbers, sorted; none when it cannot be read.
std::vector<std::pair<std::string, ino_t>> file_inodes(const std::string& dir);

enum class Check { no, yes };
// Links the noarch packages `which` of `rows` into `dir`/Packages/ (`dir` below `root`),
// leaving alone a link already there to the same file: Check::yes finds them by listing the
// directories (a whole index links thousands), Check::no with a stat of each. Returns the
// links it made where there was no file, for the caller to take away when what needs them
// fails.
Result<std::vector<std::string>> link_packages(const std::string& root, const std::string& dir,
                                               const YumRows& rows,
                                               std::span<const std::size_t> which, Check check);

// Where the texts of the runs of packages of dnf repository `dir` ("rpm/el/9/x86_64") are kept
// between rewrites (see build_yum_repo), named by their member's key.
std::string yum_text_dir(std::string_view dir);

// Writes `files` (name -> bytes; a name may hold directories, "main/binary-amd64/Packages")
// and hard links to `kept` files of `current` into a new directory beside it, then puts that
// directory in its place with one exchange (see the top of local.cpp). `current` may not exist
// yet. Files with equal bytes are written once and linked. Files already in `staged` are
// committed with the new directory's, before the exchange.
Result<void> replace_directory(const std::string& parent, const std::string& current,
                               const std::vector<std::string>& kept,
                               const std::vector<std::pair<std::string, std::string_view>>& files,
                               StagedFiles staged);

} // namespace opskit::repo::tree
