// SPDX-License-Identifier: MIT
#pragma once

// The fragments of the packages of the runs a rewrite replaces. Not installed.

#include <array>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>

#include "opskit/repo/index/yum/runs.hpp"

namespace opskit::repo {

// The fragments held by the kept texts of runs that a rewrite replaces, by pkgid: a run
// compressed anew because one of its packages changed takes the others' fragments from the
// run it replaces, where the caller would read each from its record (a run holds 256 packages
// on average; the largest of 10,000 rpms, 1,236).
//
// A text is the run's fragments end to end, each "<package ...>" to "</package>\n" (what a
// fragment holds is escaped, so no "</package>" is inside one). The fragments are found by
// pkgid (the package file's SHA-256) and name, and a primary one is taken only where its size
// and its location's file name are the entry's too: they are what a fragment is made of. A
// name that XML escapes is not found, and its fragments come from the caller.
class ReplacedRuns {
public:
  enum Document : std::size_t { primary, filelists, other };
  // Adds the kept text of a replaced run of `document`.
  void add(Document document, std::string text);
  // Gives `e` its three fragments when the replaced runs hold them for its package file.
  bool fill(YumEntry& e) const;

private:
  struct Primary {
    std::string_view fragment, file_name, size;
  };
  std::deque<std::string> texts_;
  // by pkgid " " name
  std::unordered_map<std::string, Primary> primary_;
  std::array<std::unordered_map<std::string, std::string_view>, 2> others_;
};

} // namespace opskit::repo
