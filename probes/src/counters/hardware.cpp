// SPDX-License-Identifier: MIT
//
// What the hardware reports through sysfs, a small file a value, under "hw":
//
//   hw.edac.<mc>.{ce_count,ue_count,ce_noinfo_count,ue_noinfo_count}
//   hw.edac.<mc>.csrow.<row>.{ce_count,ue_count}
//       <sys>/devices/system/edac/mc/mc<mc>/: the memory controllers' corrected and uncorrected
//       errors (ECC), in all and by chip-select row; "noinfo" counts those the driver could not
//       place on a row. node_exporter's edac collector serves them.
//   hw.thermal.zone.<n>.temp
//       <sys>/class/thermal/thermal_zone<n>/temp: a thermal zone's temperature in millidegrees
//       Celsius, its kind (<zone>/type: "x86_pkg_temp", "acpitz") a label.
//   hw.thermal.cooling.<n>.{cur_state,max_state}
//       <sys>/class/thermal/cooling_device<n>/: a fan's or a throttle's state, of max_state
//       ("Processor", "intel_powerclamp" in <device>/type). node_exporter's thermal_zone collector
//       serves both.
//   hw.cpufreq.<cpu>.{cpuinfo_cur_freq,cpuinfo_min_freq,cpuinfo_max_freq}
//   hw.cpufreq.<cpu>.{scaling_cur_freq,scaling_min_freq,scaling_max_freq,scaling_governor}
//       <sys>/devices/system/cpu/cpu<cpu>/cpufreq/ (the kernel's Documentation/admin-guide/pm/
//       cpufreq.rst): a CPU's frequency in kHz as the hardware reports it (cpuinfo_cur_freq,
//       readable by root only, and not given by every driver) and as the driver last set or
//       measured it (scaling_cur_freq), the limits of each, and the governor that chooses it
//       (text). node_exporter's cpufreq collector serves the frequencies.
//   hw.throttle.<package>.package_throttle_count
//   hw.throttle.<package>.core.<core>.core_throttle_count
//       <sys>/devices/system/cpu/cpu<n>/thermal_throttle/ (x86): the times a CPU package, and
//       each of its cores, ran hot enough to be slowed down; read from the first CPU of each
//       package and core (by topology/physical_package_id and core_id), the others giving the
//       same counts. node_exporter's cpu collector serves them.
//   hw.rapl.<domain>.<index>.energy_uj
//       <sys>/class/powercap/<zone>/energy_uj (the kernel's Documentation/power/powercap/
//       powercap.rst): the energy a RAPL domain (package, core, uncore, dram, psys) has used, in
//       microjoules, a counter that wraps at max_energy_range_uj; readable by root only. The
//       domain is the zone's name file, its index the number after a '-' ("package-1"), else how
//       many zones of that name came before it in the directory's order, as node_exporter's rapl
//       collector names them; the zone's directory is the path label.
//   hw.nvme.<controller>.{firmware_rev,model,serial,state}
//       <sys>/class/nvme/<controller>/: each NVMe controller's firmware, model and serial
//       number, and its state ("live", "resetting", "dead"), as text: node_exporter's nvme
//       collector serves them as one annotation.
//   hw.dmi.<file>
//       <sys>/class/dmi/id/<file>: the firmware's DMI strings, vendor, product, board, chassis
//       and BIOS (text; the serial numbers and UUID readable by root only), read once: they
//       change with the firmware, not while the machine runs. node_exporter's dmi collector
//       serves them as one annotation.
//
//   hw.tape.<st>.{in_flight,io_ns,other_cnt,read_byte_cnt,read_cnt,read_ns,resid_cnt,
//                 write_byte_cnt,write_cnt,write_ns}
//       <sys>/class/scsi_tape/st<N>/stats/: each SCSI tape drive's reads and writes, their bytes
//       and time (nanoseconds), other commands, and residuals (transfers the drive cut short);
//       the drive's other nodes (nst0, st0a, ...) count the same and are left out. node_exporter's
//       tapestats collector serves them.
//
// Hardware monitoring chips, hw.hwmon, are hwmon.cpp's; InfiniBand devices, hw.infiniband,
// infiniband.cpp's; Fibre Channel ports, hw.fibrechannel, fibrechannel.cpp's; power supplies,
// hw.power_supply, power_supply.cpp's. The controllers,
// rows, zones and devices are found when names are resolved; each file is then read once a scrape.
// Some zones' sensors fail every read (a radio that is off): a zone whose temperature cannot be
// read when it is found is left out, as node_exporter leaves it out.

#include <algorithm>
#include <charconv>
#include <map>
#include <set>
#include <utility>

#include <unistd.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "driver_reads.hpp"
#include "emitter.hpp"
#include "opskit/file.hpp"
#include "opskit/text.hpp"

namespace opskit::counters {

namespace {

// All of `text` as an unsigned number; nothing otherwise ("", "-1", "3a").
std::optional<unsigned> unsigned_of(std::string_view text) {
  unsigned n = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size())
    return std::nullopt;
  return n;
}

constexpr HwFile k_controller_files[] = {
    {"ce_count", Kind::counter, "errors", "Corrected memory errors on the controller"},
    {"ue_count", Kind::counter, "errors", "Uncorrected memory errors on the controller"},
    {"ce_noinfo_count", Kind::counter, "errors",
     "Corrected memory errors on the controller that no row was given for"},
    {"ue_noinfo_count", Kind::counter, "errors",
     "Uncorrected memory errors on the controller that no row was given for"},
};
constexpr HwFile k_csrow_files[] = {
    {"ce_count", Kind::counter, "errors", "Corrected memory errors on the chip-select row"},
    {"ue_count", Kind::counter, "errors", "Uncorrected memory errors on the chip-select row"},
};
constexpr HwFile k_zone_files[] = {
    {"temp", Kind::gauge, "millicelsius", "Temperature of the thermal zone"},
};
constexpr HwFile k_cpufreq_files[] = {
    {"cpuinfo_cur_freq", Kind::gauge, "kilohertz",
     "Frequency of the CPU, as the hardware reports it"},
    {"cpuinfo_min_freq", Kind::gauge, "kilohertz", "Lowest frequency the CPU runs at"},
    {"cpuinfo_max_freq", Kind::gauge, "kilohertz", "Highest frequency the CPU runs at"},
    {"scaling_cur_freq", Kind::gauge, "kilohertz",
     "Frequency of the CPU, as its cpufreq driver last set or measured it"},
    {"scaling_min_freq", Kind::gauge, "kilohertz", "Lowest frequency the governor may choose"},
    {"scaling_max_freq", Kind::gauge, "kilohertz", "Highest frequency the governor may choose"},
    {"scaling_governor", Kind::text, "", "The governor that chooses the CPU's frequency"},
};
constexpr HwFile k_package_throttle_files[] = {
    {"package_throttle_count", Kind::counter, "events",
     "Times the CPU package ran hot enough to be slowed down"},
};
constexpr HwFile k_core_throttle_files[] = {
    {"core_throttle_count", Kind::counter, "events",
     "Times the CPU core ran hot enough to be slowed down"},
};
constexpr HwFile k_cooling_files[] = {
    {"cur_state", Kind::gauge, "", "Throttle state of the cooling device, 0 to its max_state"},
    {"max_state", Kind::gauge, "", "Highest throttle state of the cooling device"},
};

void find_edac(const Roots& roots, std::string_view prefix, std::vector<Field>& out) {
  if (!related(prefix, "hw.edac"))
    return;
  std::string controllers = roots.sys + "/devices/system/edac/mc";
  for (unsigned mc : numbered(controllers, "mc")) {
    std::string dir = fmt::format("{}/mc{}", controllers, mc);
    std::string base = fmt::format("hw.edac.{}", mc);
    emit_files(roots, prefix, dir, base, "hw.edac.*", k_controller_files, {}, out);
    for (unsigned row : numbered(dir, "csrow"))
      emit_files(roots, prefix, fmt::format("{}/csrow{}", dir, row),
                 fmt::format("{}.csrow.{}", base, row), "hw.edac.*.csrow.*", k_csrow_files, {},
                 out);
  }
}

// A thermal zone's or cooling device's kind, from its type file, as a label.
std::vector<std::pair<std::string, std::string>> type_label(const std::string& dir) {
  auto type = read_file(dir + "/type");
  return {{"type", type ? std::string(trim(*type)) : std::string()}};
}

void find_thermal(const Roots& roots, std::string_view prefix, std::vector<Field>& out) {
  if (!related(prefix, "hw.thermal"))
    return;
  std::string thermal = roots.sys + "/class/thermal";
  for (unsigned n : numbered(thermal, "thermal_zone")) {
    std::string dir = fmt::format("{}/thermal_zone{}", thermal, n);
    emit_files(roots, prefix, dir, fmt::format("hw.thermal.zone.{}", n), "hw.thermal.zone.*",
               k_zone_files, type_label(dir), out, true);
  }
  for (unsigned n : numbered(thermal, "cooling_device")) {
    std::string dir = fmt::format("{}/cooling_device{}", thermal, n);
    emit_files(roots, prefix, dir, fmt::format("hw.thermal.cooling.{}", n), "hw.thermal.cooling.*",
               k_cooling_files, type_label(dir), out);
  }
}

void find_cpufreq(const Roots& roots, std::string_view prefix, std::vector<Field>& out) {
  if (!related(prefix, "hw.cpufreq"))
    return;
  std::string cpus = roots.sys + "/devices/system/cpu";
  for (unsigned cpu : numbered(cpus, "cpu"))
    emit_files(roots, prefix, fmt::format("{}/cpu{}/cpufreq", cpus, cpu),
               fmt::format("hw.cpufreq.{}", cpu), "hw.cpufreq.*", k_cpufreq_files, {}, out);
}

constexpr HwFile k_rapl_files[] = {
    {"energy_uj", Kind::counter, "microjoules", "Energy the RAPL domain has used"},
};

void find_rapl(const Roots& roots, std::string_view prefix, std::vector<Field>& out) {
  if (!related(prefix, "hw.rapl"))
    return;
  std::string powercap = roots.sys + "/class/powercap";
  auto dirs = list_directory(powercap).value_or(std::vector<std::string>());
  std::ranges::sort(dirs);
  std::map<std::string, unsigned> seen; // a name without an index: how many so far
  for (const auto& entry : dirs) {
    std::string dir = fmt::format("{}/{}", powercap, entry);
    auto name_file = read_file(dir + "/name");
    if (!name_file)
      continue; // the control type's own directory ("intel-rapl")
    std::string name(trim(*name_file));
    std::size_t dash = name.find('-');
    auto numbered_as = dash != std::string::npos
                           ? unsigned_of(std::string_view(name).substr(dash + 1))
                           : std::nullopt;
    if (numbered_as)
      name.resize(dash);                                      // "package-1": package, index 1
    unsigned index = numbered_as ? *numbered_as : seen[name]; // "dram"; and "a-b" whole
    seen[name] = index + 1;
    emit_files(roots, prefix, dir, fmt::format("hw.rapl.{}.{}", component_of(name), index),
               "hw.rapl.*.*", k_rapl_files, {{"path", dir}}, out);
  }
}

constexpr HwFile k_nvme_files[] = {
    {"firmware_rev", Kind::text, "", "The NVMe controller's firmware revision"},
    {"model", Kind::text, "", "The NVMe controller's model"},
    {"serial", Kind::text, "", "The NVMe controller's serial number"},
    {"state", Kind::text, "", "The NVMe controller's state: live, resetting, dead, ..."},
};

constexpr HwFile k_tape_files[] = {
    {"in_flight", Kind::gauge, "requests", "Requests the tape drive is working on now"},
    {"io_ns", Kind::counter, "nanoseconds", "Time the tape drive spent on requests"},
    {"other_cnt", Kind::counter, "requests", "Requests other than reads and writes"},
    {"read_byte_cnt", Kind::counter, "bytes", "Bytes read from the tape"},
    {"read_cnt", Kind::counter, "requests", "Reads completed"},
    {"read_ns", Kind::counter, "nanoseconds", "Time spent reading"},
    {"resid_cnt", Kind::counter, "requests", "Transfers the drive ended short (residuals)"},
    {"write_byte_cnt", Kind::counter, "bytes", "Bytes written to the tape"},
    {"write_cnt", Kind::counter, "requests", "Writes completed"},
    {"write_ns", Kind::counter, "nanoseconds", "Time spent writing"},
};

void find_tape(const Roots& roots, std::string_view prefix, std::vector<Field>& out) {
  if (!related(prefix, "hw.tape"))
    return;
  std::string tapes = roots.sys + "/class/scsi_tape";
  for (unsigned n : numbered(tapes, "st"))
    emit_files(roots, prefix, fmt::format("{}/st{}/stats", tapes, n),
               fmt::format("hw.tape.st{}", n), "hw.tape.*", k_tape_files, {}, out);
}

void find_nvme(const Roots& roots, std::string_view prefix, std::vector<Field>& out) {
  if (!related(prefix, "hw.nvme"))
    return;
  std::string nvme = roots.sys + "/class/nvme";
  for (unsigned n : numbered(nvme, "nvme"))
    emit_files(roots, prefix, fmt::format("{}/nvme{}", nvme, n), fmt::format("hw.nvme.nvme{}", n),
               "hw.nvme.*", k_nvme_files, {}, out);
}

// node_exporter's labels of node_dmi_info, each a file of <sys>/class/dmi/id.
constexpr std::string_view k_dmi_files[] = {
    "bios_date",      "bios_release",   "bios_vendor",     "bios_version",    "board_asset_tag",
    "board_name",     "board_serial",   "board_vendor",    "board_version",   "chassis_asset_tag",
    "chassis_serial", "chassis_vendor", "chassis_version", "product_family",  "product_name",
    "product_serial", "product_sku",    "product_uuid",    "product_version", "sys_vendor"};

void find_dmi(const Roots& roots, std::string_view prefix, std::vector<Field>& out) {
  if (!related(prefix, "hw.dmi"))
    return;
  for (std::string_view file : k_dmi_files) {
    std::string path = fmt::format("{}/class/dmi/id/{}", roots.sys, file);
    if (::access(path.c_str(), R_OK) != 0)
      continue;
    std::string name = fmt::format("hw.dmi.{}", file);
    if (Info* info = Emitter(roots, path, k_one_value, prefix, out, Reader::once)
                         .emit(name, name, Kind::text, "", {}))
      info->description = fmt::format("The firmware's {}, as DMI gives it", file);
  }
}

// The unsigned number in a sysfs file of one ("3\n"); nothing for -1 (a CPU without a package
// on some architectures) or a file that is not there.
std::optional<unsigned> read_id(const std::string& path) {
  auto text = read_file(path);
  return text ? unsigned_of(trim(*text)) : std::nullopt;
}

void find_throttle(const Roots& roots, std::string_view prefix, std::vector<Field>& out) {
  if (!related(prefix, "hw.throttle"))
    return;
  std::string cpus = roots.sys + "/devices/system/cpu";
  std::set<unsigned> packages;
  std::set<std::pair<unsigned, unsigned>> cores;
  for (unsigned cpu : numbered(cpus, "cpu")) {
    std::string dir = fmt::format("{}/cpu{}", cpus, cpu);
    auto package = read_id(dir + "/topology/physical_package_id");
    auto core = read_id(dir + "/topology/core_id");
    if (!package || !core)
      continue;
    std::string base = fmt::format("hw.throttle.{}", *package);
    if (packages.insert(*package).second)
      emit_files(roots, prefix, dir + "/thermal_throttle", base, "hw.throttle.*",
                 k_package_throttle_files, {}, out);
    if (cores.emplace(*package, *core).second)
      emit_files(roots, prefix, dir + "/thermal_throttle", fmt::format("{}.core.{}", base, *core),
                 "hw.throttle.*.core.*", k_core_throttle_files, {}, out);
  }
}

} // namespace

void emit_files(const Roots& roots, std::string_view prefix, const std::string& dir,
                std::string_view base, std::string_view pattern, std::span<const HwFile> files,
                const std::vector<std::pair<std::string, std::string>>& labels,
                std::vector<Field>& out, bool probe) {
  if (!related(prefix, base))
    return;
  for (const auto& f : files) {
    std::string path = fmt::format("{}/{}", dir, f.file);
    if (probe ? !detail::reads_now(path) : ::access(path.c_str(), R_OK) != 0)
      continue;
    Emitter emitter(roots, path, f.layout, prefix, out, Reader::driver);
    if (Info* info =
            emitter.emit(fmt::format("{}.{}", base, f.file), fmt::format("{}.{}", pattern, f.file),
                         f.kind, f.unit, {}, f.convert)) {
      info->description = f.description;
      info->labels = labels;
    }
  }
}

std::vector<unsigned> numbered(const std::string& dir, std::string_view stem) {
  std::vector<unsigned> out;
  for (std::string_view name : list_directory(dir).value_or(std::vector<std::string>()))
    if (name.starts_with(stem))
      if (auto n = unsigned_of(name.substr(stem.size())))
        out.push_back(*n);
  std::ranges::sort(out);
  return out;
}

void find_hardware(const Roots& roots, std::string_view prefix, std::vector<Field>& out) {
  find_edac(roots, prefix, out);
  find_thermal(roots, prefix, out);
  find_cpufreq(roots, prefix, out);
  find_throttle(roots, prefix, out);
  find_rapl(roots, prefix, out);
  find_nvme(roots, prefix, out);
  find_tape(roots, prefix, out);
  find_dmi(roots, prefix, out);
  find_hwmon(roots, prefix, out);
  find_infiniband(roots, prefix, out);
  find_fibrechannel(roots, prefix, out);
  find_power_supply(roots, prefix, out);
}

std::optional<std::string> missing_hardware(const Roots& roots, std::string_view name) {
  struct Tree {
    std::string_view root, what, dir;
  };
  static constexpr Tree k_trees[] = {
      {"hw.edac", "memory controllers that count errors (EDAC)", "/devices/system/edac/mc"},
      {"hw.thermal", "thermal zones or cooling devices", "/class/thermal"},
      {"hw.hwmon", "hardware monitoring chips", "/class/hwmon"},
      {"hw.cpufreq", "CPUs whose frequency the kernel scales (cpufreq)", "/devices/system/cpu"},
      {"hw.throttle", "CPUs that count their thermal throttling", "/devices/system/cpu"},
      {"hw.rapl", "power domains that count their energy (RAPL)", "/class/powercap"},
      {"hw.nvme", "NVMe controllers", "/class/nvme"},
      {"hw.tape", "SCSI tape drives", "/class/scsi_tape"},
      {"hw.dmi", "firmware strings (DMI)", "/class/dmi/id"},
      {"hw.infiniband", "InfiniBand or RDMA devices", "/class/infiniband"},
      {"hw.fibrechannel", "Fibre Channel ports", "/class/fc_host"},
      {"hw.power_supply", "power supplies (batteries, adapters)", "/class/power_supply"},
  };
  if (name == "hw") { // all of it lacking, named in short: each tree's own says what it reads
    std::vector<std::string_view> roots_lacking;
    for (const auto& tree : k_trees)
      if (find_fields(roots, tree.root).empty())
        roots_lacking.push_back(tree.root);
    if (roots_lacking.size() < std::size(k_trees))
      return std::nullopt;
    return fmt::format("this machine has none of {} in {} ('kstat list {}' says what one reads)",
                       fmt::join(roots_lacking, ", "), roots.sys, roots_lacking.front());
  }
  for (const auto& tree : k_trees)
    if (holds(tree.root, name) && find_fields(roots, tree.root).empty())
      return fmt::format("this machine has no {} in {}{}", tree.what, roots.sys, tree.dir);
  return std::nullopt;
}

} // namespace opskit::counters
