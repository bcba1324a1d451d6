// SPDX-License-Identifier: MIT
//
// What udev knows of each disk of /proc/diskstats: disk.<dev>.{path,wwn,model,serial,revision},
// text from the disk's udev database entry, <rootfs>/run/udev/data/b<major>:<minor> (lines
// "E:ID_MODEL=Samsung_SSD_870"): its ID_PATH, ID_WWN, ID_MODEL, ID_SERIAL_SHORT (else
// SCSI_IDENT_SERIAL) and ID_REVISION, each labelled with the disk's major and minor numbers.
// node_exporter's diskstats collector serves them as node_disk_info. A disk without an entry
// (no udev, as in most containers) has none of these names.

#include <array>
#include <utility>

#include <unistd.h>

#include <fmt/format.h>

#include "emitter.hpp"
#include "opskit/file.hpp"

namespace opskit::counters {

namespace {

// The names, the udev properties they are read from (the first one there), and what they are.
struct Property {
  std::string_view name;
  std::array<std::string_view, 2> keys;
  std::string_view description;
};
constexpr Property k_properties[] = {
    {"path", {"ID_PATH"}, "Where the disk is attached, as udev names the path (by-path)"},
    {"wwn", {"ID_WWN"}, "The disk's World Wide Name"},
    {"model", {"ID_MODEL"}, "The disk's model, as udev gives it"},
    {"serial", {"ID_SERIAL_SHORT", "SCSI_IDENT_SERIAL"}, "The disk's serial number"},
    {"revision", {"ID_REVISION"}, "The disk's firmware revision"},
};

// The value of udev property `key` in a database entry, or nothing.
std::optional<std::string_view> property(std::string_view entry, std::string_view key) {
  for (std::string_view rest = entry; !rest.empty();) {
    std::string_view line = next_line(rest);
    if (line.starts_with("E:") && line.substr(2).starts_with(key) && line.size() > 2 + key.size() &&
        line[2 + key.size()] == '=')
      return line.substr(3 + key.size());
  }
  return std::nullopt;
}

} // namespace

namespace detail {

std::string_view render_udev(std::string_view raw, std::string& out) {
  out.clear();
  for (const auto& p : k_properties)
    for (std::string_view key : p.keys)
      if (auto value = key.empty() ? std::nullopt : property(raw, key); value && !value->empty()) {
        out.append(p.name).append(" ").append(*value).push_back('\n');
        break;
      }
  return out;
}

} // namespace detail

void find_disk_info(const Roots& roots, std::string_view prefix, std::vector<Field>& out) {
  if (!related(prefix, "disk"))
    return;
  auto diskstats = read_file(roots.proc + "/diskstats");
  if (!diskstats)
    return;
  for_each_record(*diskstats, {.key_token = 2}, [&](const Record& r) {
    std::string base = fmt::format("disk.{}", component_of(r.key));
    std::string_view numbers = std::string_view(*diskstats).substr(r.offset);
    Tokens tokens(numbers, {});
    auto major = tokens.next(), minor = tokens.next();
    if (!related(prefix, base) || !major || !minor)
      return;
    std::string path = fmt::format("{}/run/udev/data/b{}:{}", roots.rootfs, *major, *minor);
    auto text =
        ::access(path.c_str(), R_OK) == 0 ? read_rendered(path, Reader::udev) : std::nullopt;
    if (!text)
      return;
    Emitter emitter(roots, path, k_lines, prefix, out, Reader::udev);
    for_each_record(*text, k_lines, [&](const Record& line) {
      auto known = std::ranges::find(k_properties, line.key, &Property::name);
      if (known == std::end(k_properties))
        return;
      std::string name = fmt::format("{}.{}", base, line.key);
      if (Info* info = emitter.emit(name, fmt::format("disk.*.{}", line.key), Kind::text, "",
                                    {std::string(line.key), -1, line.offset})) {
        info->description = known->description;
        info->labels = {{"major", std::string(*major)}, {"minor", std::string(*minor)}};
      }
    });
  });
}

} // namespace opskit::counters
