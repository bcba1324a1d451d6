// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "opskit/error.hpp"
#include "opskit/repo/format/deb/control.hpp"

namespace opskit::repo {

// Limits past which a .deb is refused as hostile or broken.
inline constexpr std::size_t k_deb_control_tar_limit = 64u << 20; // control.tar, decompressed
// apt reads a Packages stanza of up to about 1 MiB, and the index adds its fields to the
// control file's: real control files are a few KiB.
inline constexpr std::size_t k_deb_control_file_limit = 512u << 10; // ./control

// What a repository needs from a .deb: its control paragraph, as written, and the fields that
// name it. `source` is the Source field's name (without a version), else the package name.
struct DebInfo {
  Stanza control;
  std::string name, version, architecture, source;
};

// Reads a .deb held in memory. `what` names it in errors ("x.deb: control.tar.zst: ...").
// Fails on: not an ar archive, a first member other than debian-binary 2.x, no control.tar.*
// or data.tar.* member, two of either or data.tar first (dpkg refuses those), corrupt or
// truncated compression, a control.tar past k_deb_control_tar_limit (its entries' headers
// counted) or a control file past k_deb_control_file_limit, a control.tar entry or link with a
// ".." component or a symbolic link to an absolute path, no ./control or two, a control file that
// is not one deb822 paragraph or holds a carriage return or NUL, a missing
// Package/Version/Architecture, a name, version or architecture that breaks Debian policy (and so
// could escape the pool: '/', "..", control characters), an Architecture that is a set (any,
// linux-any, source), a pool file name past 255 bytes, or a field apt could not read (a relation
// field, Multi-Arch, Essential and the like; Section, Source or a name or version in a relation
// past 65,534 bytes). Filename, Size, the hashes and Description-md5, which the archive computes,
// are dropped from the control paragraph.
Result<DebInfo> read_deb(std::string_view bytes, std::string_view what);

// Debian policy's rules for the three names, as checks that return "why not" or nothing.
Result<void> check_deb_name(std::string_view name);
Result<void> check_deb_version(std::string_view version);
Result<void> check_deb_architecture(std::string_view arch);
// A relation field of a binary package (Depends, Provides, ...) as apt reads it from a Packages
// file: "name[:arch] [(op version)]" alternatives joined by '|', entries by ','; architecture
// restrictions and build profiles, which belong to source packages, are refused.
Result<void> check_deb_relations(std::string_view value);

// The version without its epoch ("1:2.0-1" -> "2.0-1"), as pool file names carry it.
std::string_view strip_epoch(std::string_view version) noexcept;

// The pool file's name: "<name>_<version without epoch>_<arch>.deb".
std::string deb_file_name(const DebInfo& deb);

// The pool path below the repository's deb/<distro>/ directory:
// "pool/<component>/<prefix>/<source>/<name>_<version without epoch>_<arch>.deb", where prefix
// is the source's first letter, or "lib" and its fourth letter for lib* sources, as Debian does.
std::string deb_pool_path(const DebInfo& deb, std::string_view component);

} // namespace opskit::repo
