// SPDX-License-Identifier: MIT
#pragma once

// The headers an object store keeps with a file of the publication and serves it with, to
// clients and to a CDN in front of it: its Content-Type, and a Cache-Control that lets a
// cache keep a content-addressed file (by-hash/, repodata/<sha256>-*) for good and makes it
// ask the store again for any other, whose bytes a later publish changes under the same name
// (InRelease, repomd.xml, a package replaced with --replace). Without them a CDN keeps
// InRelease for its default time, often a day, and apt sees none of the publishes meanwhile.
// Not installed.

#include <string>
#include <string_view>
#include <vector>

namespace opskit::repo::publish {

// "Content-Type: ..." and "Cache-Control: ..." for `path`, relative to the publication.
std::vector<std::string> object_headers(std::string_view path);

} // namespace opskit::repo::publish
