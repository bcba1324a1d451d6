// SPDX-License-Identifier: MIT
#pragma once

#include <string>
#include <vector>

namespace opskit::test {

// Compression of a .deb's control.tar member: "" (none), "gz", "xz" or "zst".
// Builds .deb bytes in memory: debian-binary, control.tar[.<compression>] holding ./control
// with `control` as its text, and an empty data.tar.gz. `members` overrides the member list
// (name, bytes) when not empty, for malformed packages.
std::string make_deb(const std::string& control, const std::string& compression = "gz");

// A tar (ustar) of one file, compressed as asked ("", "gz", "xz", "zst").
std::string make_tar(const std::string& name, const std::string& content,
                     const std::string& compression);
// A tar (ustar, uncompressed) of the given files (name, content), in order.
std::string make_tar(const std::vector<std::pair<std::string, std::string>>& files);

// A tar (ustar, uncompressed) of one link, `name` to `target`.
enum class Link { symbolic, hard };
std::string make_tar_link(const std::string& name, const std::string& target, Link link);

// An ar archive of the given members, in order.
std::string make_ar(const std::vector<std::pair<std::string, std::string>>& members);

// Writes `control` into <dir>/src/DEBIAN/control with one data file and runs dpkg-deb --build
// with -Z<compression>; returns the .deb's path (<dir>/<name>.deb).
std::string dpkg_deb_build(const std::string& dir, const std::string& name,
                           const std::string& control, const std::string& compression = "xz");

} // namespace opskit::test
