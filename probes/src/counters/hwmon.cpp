// SPDX-License-Identifier: MIT
//
// Hardware monitoring chips: hw.hwmon.<chip>.<sensor>.<property> and hw.hwmon.<chip>.name, the
// readings lm-sensors' `sensors` shows, from <sys>/class/hwmon/hwmon<n> (the kernel's
// Documentation/hwmon/sysfs-interface.rst): a file a reading, "<type><n>_<property>"
// ("temp1_input", millidegrees Celsius; "fan1_min", RPM; "in0_input", millivolts), or
// "<type><n>" for a PWM's value ("pwm1": property "value"). A sensor's label ("Package id 0")
// and the chip's name ("coretemp") are text. node_exporter's hwmon collector serves the same.
//
// hwmon<n> numbers the chips in the order their drivers loaded, which a reboot may change: a
// chip is named after the device it monitors, bus and device ("platform_coretemp_0"), as
// node_exporter labels it; else after its name file; else hwmon<n>. Older drivers keep the
// readings in the device's directory, which is read as well. The sensor files are found when
// names are resolved; one that fails to read then (a write-only setting, an input the board
// does not wire) is left out.

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <set>

#include <unistd.h>

#include <fmt/format.h>

#include "driver_reads.hpp"
#include "emitter.hpp"
#include "opskit/file.hpp"

namespace opskit::counters {

namespace {

// The hwmon sensor types kstat reads (Documentation/hwmon/sysfs-interface.rst): what each
// measures and the unit of its readings, which each "<type><n>_<property>" file gives unless the
// property is a flag or a setting.
struct SensorType {
  std::string_view type;
  std::string_view what;
  std::string_view unit;
  Kind kind;
};
constexpr SensorType k_sensor_types[] = {
    {"temp", "Temperature", "millicelsius", Kind::gauge},
    {"fan", "Fan speed", "rpm", Kind::gauge},
    {"in", "Voltage", "millivolts", Kind::gauge},
    {"curr", "Current", "milliamperes", Kind::gauge},
    {"power", "Power", "microwatts", Kind::gauge},
    {"energy", "Energy used", "microjoules", Kind::counter},
    {"humidity", "Relative humidity", "millipercent", Kind::gauge},
    {"freq", "Frequency (a GPU's)", "hertz", Kind::gauge},
    {"pwm", "Fan drive (PWM duty cycle, 0 to 255)", "", Kind::gauge},
    {"intrusion", "Chassis intrusion", "", Kind::gauge},
};

// A sensor's file name taken apart: "temp1_crit_alarm" is sensor temp1 of type temp, property
// crit_alarm; "pwm1" is sensor pwm1's value.
struct SensorFile {
  const SensorType* type = nullptr;
  std::string sensor;
  std::string property;
};

std::optional<SensorFile> sensor_file(std::string_view file) {
  std::size_t digits = file.find_first_of("0123456789");
  std::size_t end =
      std::min(file.find('_', digits == std::string_view::npos ? 0 : digits), file.size());
  if (digits == std::string_view::npos || digits == 0 || digits >= end || end + 1 == file.size())
    return std::nullopt;
  std::string_view type = file.substr(0, digits);
  auto known = std::ranges::find(k_sensor_types, type, &SensorType::type);
  if (known == std::end(k_sensor_types) ||
      file.substr(digits, end - digits).find_first_not_of("0123456789") != std::string_view::npos)
    return std::nullopt;
  return SensorFile{known, std::string(file.substr(0, end)),
                    end == file.size() ? "value" : std::string(file.substr(end + 1))};
}

// The unit of a sensor's property: its type's for readings and limits, none for flags and
// settings (alarm, fault, beep, enable, mode, type; a fan's divisor), milliseconds for a power
// meter's averaging interval.
std::string_view property_unit(const SensorFile& f) {
  std::string_view p = f.property;
  if (p == "alarm" || p.ends_with("_alarm") || p == "fault" || p == "beep" || p == "enable" ||
      p == "mode" || p == "type" || p == "accuracy")
    return "";
  if (p.starts_with("average_interval"))
    return "milliseconds";
  if (f.type->type == "fan" && p != "input" && p != "min" && p != "max" && p != "target")
    return "";
  return f.type->unit;
}

// A name component of `text` as node_exporter makes a chip's: lowercased, each character but
// [a-z0-9:_] made '_', and '_' trimmed off both ends.
std::string clean_component(std::string_view text) {
  std::string out;
  for (char c : text) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    bool kept = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == ':' || c == '_';
    out.push_back(kept ? c : '_');
  }
  std::size_t first = out.find_first_not_of('_');
  if (first == std::string::npos)
    return {};
  return out.substr(first, out.find_last_not_of('_') - first + 1);
}

// A chip's name component, as node_exporter labels it: its hwmonN number follows the order the
// drivers loaded in, so the device it monitors names it, bus and device ("platform_coretemp_0",
// "pci0000:00_0000:00:18_3"); else its name file; else hwmonN.
std::string chip_name(const std::string& dir) {
  std::error_code ec;
  auto device = std::filesystem::canonical(dir + "/device", ec);
  if (!ec) {
    std::string name = clean_component(device.filename().string());
    std::string bus = clean_component(device.parent_path().filename().string());
    if (!name.empty())
      return bus.empty() ? name : bus + "_" + name;
  }
  if (auto name = read_file(dir + "/name"))
    if (std::string clean = clean_component(*name); !clean.empty())
      return clean;
  return clean_component(std::filesystem::canonical(dir, ec).filename().string());
}

// The sensors' files in `dir` (a chip's directory, or the device's, where older drivers put
// them) that read now, under `base`.
void emit_sensors(const Roots& roots, std::string_view prefix, const std::string& dir,
                  const std::string& base, std::set<std::string>& seen, std::vector<Field>& out) {
  for (const auto& entry : list_directory(dir).value_or(std::vector<std::string>())) {
    auto file = sensor_file(entry);
    if (!file)
      continue;
    std::string name = fmt::format("{}.{}.{}", base, file->sensor, file->property);
    std::string path = fmt::format("{}/{}", dir, entry);
    if (!holds(prefix, name) || seen.contains(name) || !detail::reads_now(path))
      continue;
    seen.insert(name);
    bool label = file->property == "label";
    Emitter emitter(roots, path, k_one_value, prefix, out, Reader::driver);
    Info* info = emitter.emit(
        std::move(name), fmt::format("hw.hwmon.*.{}*.{}", file->type->type, file->property),
        label ? Kind::text : file->type->kind, label ? "" : property_unit(*file), {});
    if (info == nullptr)
      continue;
    if (label)
      info->description = "The sensor's name on the board, as its driver gives it";
    else if (file->property == "value" || file->property == "input")
      info->description = file->type->what;
    else
      info->description = fmt::format("{}: {}", file->type->what, file->property);
  }
}

} // namespace

void find_hwmon(const Roots& roots, std::string_view prefix, std::vector<Field>& out) {
  if (!related(prefix, "hw.hwmon"))
    return;
  std::string hwmon = roots.sys + "/class/hwmon";
  std::vector<std::pair<std::string, std::string>> chips; // directory, name
  for (unsigned n : numbered(hwmon, "hwmon")) {
    std::string dir = fmt::format("{}/hwmon{}", hwmon, n);
    chips.emplace_back(dir, chip_name(dir));
  }
  // A device of several chips (a wifi card's radios, asus-wmi's) names each with its name file
  // too, as node_exporter does: "ieee80211_phy0_mt7996_phy0_0".
  std::map<std::string, int> uses;
  for (const auto& [dir, name] : chips)
    ++uses[name];
  for (auto& [dir, name] : chips)
    if (auto own = read_file(dir + "/name"); own && uses[name] > 1)
      if (std::string clean = clean_component(*own); !clean.empty() && clean != name)
        name += "_" + clean;
  for (const auto& [dir, chip] : chips) {
    std::string base = "hw.hwmon." + chip;
    if (!related(prefix, base))
      continue;
    std::string name_file = dir + "/name";
    if (holds(prefix, base + ".name") && ::access(name_file.c_str(), R_OK) == 0)
      if (Info* info = Emitter(roots, name_file, k_one_value, prefix, out)
                           .emit(base + ".name", "hw.hwmon.*.name", Kind::text, "", {}))
        info->description = "The chip's name, as its driver gives it";
    std::set<std::string> seen; // a file in both places is the chip's
    emit_sensors(roots, prefix, dir, base, seen, out);
    emit_sensors(roots, prefix, dir + "/device", base, seen, out);
  }
}

} // namespace opskit::counters
