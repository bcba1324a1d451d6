// SPDX-License-Identifier: MIT
#pragma once

// What the store keeps for writing dnf metadata: the rows of a dist's rpms, read in bulk, and
// the runs of packages (see index/yum/runs.hpp) a rewrite saved, with what changed since.

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace opskit::repo {

// The part of an rpm's record that its yum metadata needs, its text held in a few large blocks
// that the rows view (an index of thousands of rpms reads megabytes of fragments): moving a
// YumRows keeps the views valid.
struct YumRows {
  struct Row {
    std::int64_t id = 0;
    std::string_view name, version, arch, file, sha256;
    std::uint64_t size = 0;
    // The fragments, when read (see State::yum_rows); the metadata only where they are missing.
    std::string_view metadata, primary, filelists, other;
    bool text_read = false;
  };
  std::vector<Row> rows;
  // A copy of `text` in the blocks, valid as long as they are.
  std::string_view hold(std::string_view text);
  // Each block is mapped with its pages populated in one call: faulting in megabytes of fresh
  // memory a page at a time cost more than reading the rows.
  struct Unmap {
    std::size_t size = 0;
    void operator()(char* p) const noexcept;
  };
  std::vector<std::unique_ptr<char[], Unmap>> blocks;

private:
  char* free_ = nullptr;
  std::size_t left_ = 0;
};

// An rpm's identity in a dist: name, version ("[epoch:]version-release") and arch.
struct YumIdentity {
  std::string name, version, arch;
};
// A run of packages of a dnf repository (see index/yum/runs.hpp) as a rewrite saved it:
// its last package, the key of what its fragments are made of and how many packages it has.
struct YumRunRecord {
  YumIdentity last;
  std::string key;
  std::uint64_t packages = 0;
};
struct YumTracked {
  std::map<std::string, std::vector<YumRunRecord>> runs; // by directory: "x86_64", "SRPMS"
  std::vector<YumIdentity> changed;                      // sorted
};

// The Packages texts of an apt suite as a rewrite saved them: the SHA-256 (hex) of each, by
// path in the suite ("main/binary-amd64/Packages"), and the identities (name, version, arch)
// of the suite's deb records changed since, sorted.
struct AptTracked {
  std::map<std::string, std::string> sha256;
  std::vector<YumIdentity> changed;
};

} // namespace opskit::repo
