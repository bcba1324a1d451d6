// SPDX-License-Identifier: MIT
//
// Each mounted Btrfs file system, under btrfs.<fsid> (the file system's UUID, as
// <sys>/fs/btrfs names its directory), as node_exporter's btrfs collector serves it:
//
//   btrfs.<fsid>.label                               <sys>/fs/btrfs/<fsid>/label (text)
//   btrfs.<fsid>.allocation.{global_rsv_size,global_rsv_reserved}
//   btrfs.<fsid>.allocation.<type>.<file>            bytes_used, total_bytes, disk_used, ...
//   btrfs.<fsid>.allocation.<type>.<profile>.{used_bytes,total_bytes}
//       <sys>/fs/btrfs/<fsid>/allocation/: the space of each block group type (data, metadata,
//       system) in bytes, in all and by the profile its chunks have (single, dup, raid1, ...)
//   btrfs.<fsid>.commit_stats.{commits,cur_commit_ms,last_commit_ms,max_commit_ms,total_commit_ms}
//       <sys>/fs/btrfs/<fsid>/commit_stats (Linux 6.0): the transactions committed and how long
//   btrfs.<fsid>.device.<devid>.{size,used,unused,write_errs,read_errs,flush_errs,
//                                corruption_errs,generation_errs}
//       each device's size and space allocated to chunks, and its error counters, as `btrfs
//       device stats` shows them: asked of a mount point of the file system (BTRFS_IOC_FS_INFO,
//       BTRFS_IOC_DEV_INFO and BTRFS_IOC_GET_DEV_STATS, see the kernel's
//       include/uapi/linux/btrfs.h), found in the machine's mountinfo. The mount point is opened
//       for each read and closed after it: a descriptor kept open would keep it from being
//       unmounted. A device is labelled with its name and its UUID.
//
// Every name is labelled with the file system's UUID as node_exporter labels it: its
// metadata_uuid file where there is one, else the directory's name. The profiles' allocation
// ratio node_exporter derives from their names is not served: a constant of the profile.

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <iterator>
#include <map>
#include <utility>

#include <fcntl.h>
#include <linux/btrfs.h>
#include <sys/ioctl.h>

#include <fmt/compile.h>
#include <fmt/format.h>

#include "emitter.hpp"
#include "opskit/file.hpp"
#include "opskit/text.hpp"

namespace opskit::counters {

namespace {

constexpr std::string_view k_block_group_types[] = {"data", "metadata", "system"};

constexpr HwFile k_label[] = {{"label", Kind::text, "", "The file system's label"}};
constexpr HwFile k_global_files[] = {
    {"global_rsv_size", Kind::gauge, "bytes", "Size of the global block reserve"},
    {"global_rsv_reserved", Kind::gauge, "bytes", "Bytes of the global block reserve in use"},
};
constexpr HwFile k_type_files[] = {
    {"bytes_used", Kind::gauge, "bytes", "Bytes used in the block group type's chunks"},
    {"total_bytes", Kind::gauge, "bytes", "Bytes of the block group type's chunks"},
    {"bytes_reserved", Kind::gauge, "bytes", "Bytes reserved in the block group type's chunks"},
    {"bytes_may_use", Kind::gauge, "bytes", "Bytes the block group type's reservations may use"},
    {"bytes_pinned", Kind::gauge, "bytes", "Bytes freed but pinned until the transaction commits"},
    {"bytes_readonly", Kind::gauge, "bytes", "Bytes of the block group type's read-only chunks"},
    {"disk_used", Kind::gauge, "bytes",
     "Bytes used on disk by the block group type, copies counted"},
    {"disk_total", Kind::gauge, "bytes",
     "Bytes of disk the block group type's chunks take, copies counted"},
};
constexpr HwFile k_profile_files[] = {
    {"used_bytes", Kind::gauge, "bytes", "Bytes used in the chunks of the profile"},
    {"total_bytes", Kind::gauge, "bytes", "Bytes of the chunks of the profile"},
};

struct CommitStat {
  std::string_view key;
  Kind kind;
  std::string_view unit;
  std::string_view description;
};
constexpr CommitStat k_commit_stats[] = {
    {"commits", Kind::counter, "commits", "Transactions committed"},
    {"cur_commit_ms", Kind::gauge, "milliseconds", "Time the commit under way has taken"},
    {"last_commit_ms", Kind::gauge, "milliseconds", "Time the last commit took"},
    {"max_commit_ms", Kind::gauge, "milliseconds", "Time the slowest commit took"},
    {"total_commit_ms", Kind::counter, "milliseconds", "Time all commits took"},
};

// The columns of a rendered device line, after its devid: see read_btrfs().
constexpr ColumnSpec k_device_columns[] = {
    {"size", Kind::gauge, "bytes", "Size of the device that the file system uses"},
    {"used", Kind::gauge, "bytes", "Bytes of the device allocated to chunks"},
    {"unused", Kind::gauge, "bytes", "Bytes of the device not allocated to chunks"},
    {"write_errs", Kind::counter, "errors", "Writes to the device that failed"},
    {"read_errs", Kind::counter, "errors", "Reads from the device that failed"},
    {"flush_errs", Kind::counter, "errors", "Flushes of the device that failed"},
    {"corruption_errs", Kind::counter, "errors",
     "Blocks read from the device with a wrong checksum or address"},
    {"generation_errs", Kind::counter, "errors",
     "Blocks read from the device older than they should be (lost writes)"},
};

using Labels = std::vector<std::pair<std::string, std::string>>;

// A UUID's sixteen bytes as text: "dff88dfe-4b20-4d50-9066-b954e9f8b71a".
std::string uuid_text(const std::uint8_t (&bytes)[BTRFS_UUID_SIZE]) {
  std::string out;
  for (std::size_t i = 0; i < BTRFS_UUID_SIZE; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10)
      out.push_back('-');
    fmt::format_to(std::back_inserter(out), FMT_COMPILE("{:02x}"), bytes[i]);
  }
  return out;
}

// The file system's UUID (its fsid) of each Btrfs mount point, the first mount point of each.
std::map<std::string, std::string> mount_point_by_fsid(const Roots& roots) {
  std::map<std::string, std::string> out;
  for (const auto& point : mount_points(roots, "btrfs")) {
    auto dir = open_file(point, O_RDONLY | O_DIRECTORY | O_NONBLOCK);
    btrfs_ioctl_fs_info_args fs{};
    if (dir && ::ioctl(dir->get(), BTRFS_IOC_FS_INFO, &fs) == 0)
      out.try_emplace(uuid_text(fs.fsid), point);
  }
  return out;
}

// The files of allocation/: the global reserve's, each block group type's, and those of the
// type's profiles, its directories ("single", "dup", "raid1", ...).
void emit_allocation(const Roots& roots, std::string_view prefix, const std::string& dir,
                     const std::string& base, const Labels& labels, std::vector<Field>& out) {
  std::string allocation = dir + "/allocation";
  emit_files(roots, prefix, allocation, base + ".allocation", "btrfs.*.allocation", k_global_files,
             labels, out);
  for (std::string_view type : k_block_group_types) {
    std::string type_dir = fmt::format("{}/{}", allocation, type);
    auto entries = list_directory(type_dir);
    if (!entries)
      continue;
    std::string type_base = fmt::format("{}.allocation.{}", base, type);
    emit_files(roots, prefix, type_dir, type_base, "btrfs.*.allocation.*", k_type_files, labels,
               out);
    for (const auto& profile : *entries) {
      std::string profile_dir = fmt::format("{}/{}", type_dir, profile);
      if (::access((profile_dir + "/used_bytes").c_str(), R_OK) == 0)
        emit_files(roots, prefix, profile_dir,
                   fmt::format("{}.{}", type_base, component_of(profile)), "btrfs.*.allocation.*.*",
                   k_profile_files, labels, out);
    }
  }
}

void emit_commit_stats(Emitter& emitter, const std::string& dir, const std::string& base,
                       const Labels& labels) {
  std::string path = dir + "/commit_stats";
  auto text = read_file(path);
  if (!text)
    return;
  // The statistics the kernel writes: cur_commit_ms came in 6.1.
  std::vector<std::string_view> keys;
  for_each_record(*text, k_fixed_lines, [&](const Record& r) { keys.push_back(r.key); });
  Emitter stats = emitter.with_source(path, k_fixed_lines);
  for (const auto& stat : k_commit_stats) {
    if (std::ranges::find(keys, stat.key) == keys.end())
      continue;
    if (Info* info = stats.emit(fmt::format("{}.commit_stats.{}", base, stat.key),
                                fmt::format("btrfs.*.commit_stats.{}", stat.key), stat.kind,
                                stat.unit, {std::string(stat.key), 0, 0})) {
      info->description = stat.description;
      info->labels = labels;
    }
  }
}

// The devices, from one read of a mount point's: each rendered line is labelled with the
// device's name and UUID, its last two tokens.
void emit_devices(Emitter& emitter, const std::string& mount_point, const std::string& base,
                  const Labels& labels) {
  detail::Source devices;
  devices.path = mount_point;
  devices.reader = Reader::btrfs;
  if (!devices.read())
    return;
  Emitter device_emitter = emitter.with_source(mount_point, k_lines, Reader::btrfs);
  for_each_record(devices.text, k_lines, [&](const Record& r) {
    std::size_t numbers = std::size(k_device_columns);
    if (r.tokens.size() != numbers + 2)
      return;
    Labels device_labels = labels;
    device_labels.emplace_back("device", r.tokens[numbers + 1]);
    device_labels.emplace_back("btrfs_dev_uuid", r.tokens[numbers]);
    for (std::size_t i = 0; i < numbers; ++i) {
      const auto& column = k_device_columns[i];
      if (Info* info = device_emitter.emit(fmt::format("{}.device.{}.{}", base, r.key, column.name),
                                           fmt::format("btrfs.*.device.*.{}", column.name),
                                           column.kind, column.unit,
                                           {std::string(r.key), static_cast<int>(i), r.offset})) {
        info->description = column.description;
        info->labels = device_labels;
      }
    }
  });
}

} // namespace

namespace detail {

// A line a device: "<devid> <size> <used> <unused> <5 error counters> <uuid> <name>", the name
// the last component of the device's path, blanks made '_'.
bool read_btrfs(Source& source) {
  auto dir = open_file(source.path, O_RDONLY | O_DIRECTORY | O_NONBLOCK);
  if (!dir) {
    source.read_error = dir.error();
    return false;
  }
  auto fail = [&](std::string_view call) {
    source.read_error = Error::from_errno(fmt::format("ioctl {}", call), source.path, errno);
    return false;
  };
  btrfs_ioctl_fs_info_args fs{};
  if (::ioctl(dir->get(), BTRFS_IOC_FS_INFO, &fs) != 0)
    return fail("BTRFS_IOC_FS_INFO");
  source.buffer.clear();
  std::uint64_t found = 0;
  for (std::uint64_t id = 0; id <= fs.max_id && found < fs.num_devices; ++id) {
    btrfs_ioctl_dev_info_args device{};
    device.devid = id;
    if (::ioctl(dir->get(), BTRFS_IOC_DEV_INFO, &device) != 0) {
      if (errno == ENODEV) // the ids need not start at 0 or be contiguous
        continue;
      return fail("BTRFS_IOC_DEV_INFO");
    }
    btrfs_ioctl_get_dev_stats stats{};
    stats.devid = id;
    stats.nr_items = BTRFS_DEV_STAT_VALUES_MAX;
    if (::ioctl(dir->get(), BTRFS_IOC_GET_DEV_STATS, &stats) != 0)
      return fail("BTRFS_IOC_GET_DEV_STATS");
    ++found;
    std::string_view path(
        reinterpret_cast<const char*>(device.path),
        ::strnlen(reinterpret_cast<const char*>(device.path), sizeof device.path));
    std::string name(path.substr(path.rfind('/') + 1));
    std::ranges::replace_if(
        name, [](char c) { return is_blank(c) || c == '\n'; }, '_');
    std::uint64_t used = std::min(device.bytes_used, device.total_bytes);
    fmt::format_to(std::back_inserter(source.buffer),
                   FMT_COMPILE("{} {} {} {} {} {} {} {} {} {} {}\n"), id, device.total_bytes, used,
                   device.total_bytes - used, stats.values[BTRFS_DEV_STAT_WRITE_ERRS],
                   stats.values[BTRFS_DEV_STAT_READ_ERRS], stats.values[BTRFS_DEV_STAT_FLUSH_ERRS],
                   stats.values[BTRFS_DEV_STAT_CORRUPTION_ERRS],
                   stats.values[BTRFS_DEV_STAT_GENERATION_ERRS], uuid_text(device.uuid),
                   name.empty() ? "-" : name);
  }
  source.text = source.buffer;
  return true;
}

} // namespace detail

void find_btrfs(const Roots& roots, std::string_view prefix, std::vector<Field>& out) {
  if (!related(prefix, "btrfs"))
    return;
  std::string btrfs = roots.sys + "/fs/btrfs";
  auto entries = list_directory(btrfs).value_or(std::vector<std::string>());
  std::map<std::string, std::string> mounted;
  bool looked = false; // for mount points, once and only when a file system is there
  for (const auto& fsid : entries) {
    if (fsid.find('-') == std::string::npos)
      continue; // "features"
    std::string base = fmt::format("btrfs.{}", component_of(fsid));
    if (!related(prefix, base))
      continue;
    std::string dir = fmt::format("{}/{}", btrfs, fsid);
    auto metadata_uuid = read_file(dir + "/metadata_uuid");
    const Labels labels{{"uuid", metadata_uuid && !trim(*metadata_uuid).empty()
                                     ? std::string(trim(*metadata_uuid))
                                     : fsid}};
    emit_files(roots, prefix, dir, base, "btrfs.*", k_label, labels, out);
    emit_allocation(roots, prefix, dir, base, labels, out);
    Emitter emitter(roots, dir, k_one_value, prefix, out);
    emit_commit_stats(emitter, dir, base, labels);
    if (!related(prefix, base + ".device"))
      continue;
    if (!std::exchange(looked, true))
      mounted = mount_point_by_fsid(roots);
    if (auto point = mounted.find(fsid); point != mounted.end())
      emit_devices(emitter, point->second, base, labels);
  }
}

} // namespace opskit::counters
