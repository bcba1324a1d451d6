// SPDX-License-Identifier: MIT
#include "publish/manifest.hpp"

#include <nlohmann/json.hpp>

#include "opskit/version.hpp"
#include "publish/endpoint.hpp"

namespace opskit::repo::publish {

namespace {

bool sha256_ok(const std::string& s) {
  return s.size() == 64 && s.find_first_not_of("0123456789abcdef") == std::string::npos;
}

} // namespace

std::string manifest_json(const Manifest& manifest) {
  nlohmann::ordered_json files = nlohmann::ordered_json::object();
  for (const auto& [path, e] : manifest) {
    files[path] = {{"sha256", e.sha256}, {"size", e.size}};
    if (e.superseded)
      files[path]["superseded"] = true;
  }
  nlohmann::ordered_json doc = {
      {"manifest", 1}, {"generator", std::string("pkgcloud ") + k_version}, {"files", files}};
  return doc.dump(1) + "\n";
}

Result<Manifest> parse_manifest(std::string_view json) {
  auto doc = nlohmann::json::parse(json, nullptr, false);
  if (doc.is_discarded() || !doc.is_object())
    return fail("not JSON");
  if (!doc.contains("manifest") || doc["manifest"] != 1)
    return fail("not a version 1 pkgcloud manifest");
  const auto& files = doc["files"];
  if (!files.is_object())
    return fail("no files");
  Manifest manifest;
  for (const auto& [path, e] : files.items()) {
    // Each is put and deleted under the target's URL: never above it, or at it.
    if (path.empty() || path.starts_with('/') || path.ends_with('/') ||
        path.find("//") != std::string::npos || has_dot_segment(path))
      return fail("a path that is not a file below the target: " + path);
    if (!e.is_object() || !e.contains("sha256") || !e["sha256"].is_string() ||
        !e.contains("size") || !e["size"].is_number_unsigned())
      return fail("an entry without sha256 and size: " + path);
    ManifestEntry entry{e["sha256"].get<std::string>(), e["size"].get<std::uint64_t>(),
                        e.contains("superseded") && e["superseded"] == true};
    if (!sha256_ok(entry.sha256))
      return fail("not a SHA-256: " + entry.sha256);
    manifest.emplace(path, std::move(entry));
  }
  return manifest;
}

} // namespace opskit::repo::publish
