// SPDX-License-Identifier: MIT
#pragma once

// Packages and look-ups into a built index that the yum tests share.

#include <string>
#include <vector>

#include "opskit/repo/index/yum/build.hpp"

namespace opskit::test {

// A noarch package "<name>-[<epoch>:]<version>-1" of one /etc file and one directory, requiring
// /bin/sh before install, with a summary that needs escaping.
repo::YumPackage package(const std::string& name, const std::string& epoch,
                         const std::string& version);

// `count` packages p00000, p00010, ... (gaps left for packages to land between them).
std::vector<repo::YumPackage> numbered(int count);

// The uncompressed text of the file of `type` ("primary", "filelists", "other") in `index`, ""
// without one.
std::string uncompressed(const repo::YumIndex& index, const std::string& type);

// The file of `type` in `index`; fails the test without one.
const repo::IndexFile& file_of(const repo::YumIndex& index, const std::string& type);

} // namespace opskit::test
