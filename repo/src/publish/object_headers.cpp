// SPDX-License-Identifier: MIT
#include "publish/object_headers.hpp"

#include <array>
#include <utility>

#include <fmt/format.h>

#include "layout/paths.hpp"

namespace opskit::repo::publish {

namespace {

// By the end of the file's name; the first that matches.
constexpr std::array<std::pair<std::string_view, std::string_view>, 14> k_types{{
    {".deb", "application/vnd.debian.binary-package"},
    {".rpm", "application/x-rpm"},
    {".gz", "application/gzip"},
    {".xz", "application/x-xz"},
    {".bz2", "application/x-bzip2"},
    {".zst", "application/zstd"},
    {".xml", "application/xml"},
    {".json", "application/json"},
    {".sqlite", "application/vnd.sqlite3"},
    {"Release.gpg", "application/pgp-signature"},
    {"repomd.xml.asc", "application/pgp-signature"},
    {".asc", "application/pgp-keys"},
    {".key", "application/pgp-keys"},
    {".gpg", "application/pgp-keys"},
}};

std::string_view content_type(std::string_view path) {
  if (path.find("/by-hash/") != std::string_view::npos)
    return "application/octet-stream"; // named by its digest: Packages, or one compressed
  std::string_view name = path.substr(path.rfind('/') + 1);
  for (const auto& [end, type] : k_types)
    if (name.ends_with(end))
      return type;
  // InRelease, Release, Packages, Sources, Contents-*: text
  return "text/plain; charset=utf-8";
}

} // namespace

std::vector<std::string> object_headers(std::string_view path) {
  bool content_addressed = detail::phase_of(path) == detail::Phase::content_addressed;
  return {fmt::format("Content-Type: {}", content_type(path)),
          content_addressed ? "Cache-Control: public, max-age=31536000, immutable"
                            : "Cache-Control: no-cache"};
}

} // namespace opskit::repo::publish
