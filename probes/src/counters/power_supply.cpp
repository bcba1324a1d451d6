// SPDX-License-Identifier: MIT
//
// Power supplies: batteries, mains adapters, USB ports and UPSes, from
// <sys>/class/power_supply/<name>/ (the kernel's Documentation/ABI/testing/sysfs-class-power),
// under hw.power_supply.<name>: a file a name, each as the kernel writes it: voltages in
// microvolts, currents in microamperes, power in microwatts, energy in microwatt-hours, charge
// in microampere-hours, temperatures in tenths of a degree Celsius, times in seconds; the
// supply's kind, state and make as text. node_exporter's powersupplyclass collector serves them.

#include <algorithm>

#include <fmt/format.h>

#include "emitter.hpp"
#include "opskit/file.hpp"

namespace opskit::counters {

namespace {

constexpr HwFile k_supply_files[] = {
    {"type", Kind::text, "", "The supply's kind: Battery, Mains, USB, UPS, Wireless"},
    {"status", Kind::text, "", "The battery's state: Charging, Discharging, Full, Not charging"},
    {"capacity_level", Kind::text, "", "The battery's level: Critical, Low, Normal, High, Full"},
    {"charge_type", Kind::text, "", "How the battery charges: Trickle, Fast, Standard, ..."},
    {"health", Kind::text, "", "The battery's health: Good, Overheat, Dead, ..."},
    {"technology", Kind::text, "", "The battery's chemistry: Li-ion, Li-poly, NiMH, ..."},
    {"manufacturer", Kind::text, "", "The supply's manufacturer"},
    {"model_name", Kind::text, "", "The supply's model"},
    {"serial_number", Kind::text, "", "The supply's serial number"},
    {"usb_type", Kind::text, "", "The USB port's types, the one in use bracketed"},
    {"scope", Kind::text, "", "What the supply powers: System, Device"},
    {"online", Kind::gauge, "", "1 when the adapter is connected"},
    {"present", Kind::gauge, "", "1 when the battery is there"},
    {"authentic", Kind::gauge, "", "1 when the battery is an authentic part"},
    {"calibrate", Kind::gauge, "", "1 when the battery is calibrating"},
    {"capacity", Kind::gauge, "percent", "The battery's charge, in percent of full"},
    {"capacity_alert_max", Kind::gauge, "percent", "Capacity above which the battery alerts"},
    {"capacity_alert_min", Kind::gauge, "percent", "Capacity below which the battery alerts"},
    {"cycle_count", Kind::gauge, "cycles", "Charge cycles the battery has been through"},
    {"time_to_empty_now", Kind::gauge, "seconds", "Time until the battery is empty"},
    {"time_to_full_now", Kind::gauge, "seconds", "Time until the battery is full"},
    {"voltage_now", Kind::gauge, "microvolts", "Voltage now"},
    {"voltage_ocv", Kind::gauge, "microvolts", "Open-circuit voltage"},
    {"voltage_boot", Kind::gauge, "microvolts", "Voltage at boot"},
    {"voltage_max", Kind::gauge, "microvolts", "Highest voltage seen"},
    {"voltage_min", Kind::gauge, "microvolts", "Lowest voltage seen"},
    {"voltage_max_design", Kind::gauge, "microvolts", "Highest voltage by design"},
    {"voltage_min_design", Kind::gauge, "microvolts", "Lowest voltage by design"},
    {"current_now", Kind::gauge, "microamperes", "Current now"},
    {"current_boot", Kind::gauge, "microamperes", "Current at boot"},
    {"current_max", Kind::gauge, "microamperes", "Highest current"},
    {"input_current_limit", Kind::gauge, "microamperes", "Limit on the current drawn"},
    {"precharge_current", Kind::gauge, "microamperes", "Current while precharging"},
    {"charge_term_current", Kind::gauge, "microamperes", "Current at which charging ends"},
    {"constant_charge_current", Kind::gauge, "microamperes", "Charging current"},
    {"constant_charge_current_max", Kind::gauge, "microamperes", "Highest charging current"},
    {"constant_charge_voltage", Kind::gauge, "microvolts", "Charging voltage"},
    {"constant_charge_voltage_max", Kind::gauge, "microvolts", "Highest charging voltage"},
    {"power_now", Kind::gauge, "microwatts", "Power now"},
    {"energy_now", Kind::gauge, "microwatthours", "Energy stored now"},
    {"energy_full", Kind::gauge, "microwatthours", "Energy stored when last full"},
    {"energy_full_design", Kind::gauge, "microwatthours", "Energy stored when full, by design"},
    {"energy_empty", Kind::gauge, "microwatthours", "Energy stored when last empty"},
    {"energy_empty_design", Kind::gauge, "microwatthours", "Energy stored when empty, by design"},
    {"charge_now", Kind::gauge, "microamperehours", "Charge stored now"},
    {"charge_full", Kind::gauge, "microamperehours", "Charge stored when last full"},
    {"charge_full_design", Kind::gauge, "microamperehours", "Charge stored when full, by design"},
    {"charge_empty", Kind::gauge, "microamperehours", "Charge stored when last empty"},
    {"charge_empty_design", Kind::gauge, "microamperehours", "Charge stored when empty, by design"},
    {"charge_counter", Kind::gauge, "microamperehours", "The charge counter"},
    {"charge_control_limit", Kind::gauge, "", "Charge control limit, of charge_control_limit_max"},
    {"charge_control_limit_max", Kind::gauge, "", "Highest charge control limit"},
    {"temp", Kind::gauge, "decicelsius", "The battery's temperature"},
    {"temp_alert_max", Kind::gauge, "decicelsius", "Temperature above which the battery alerts"},
    {"temp_alert_min", Kind::gauge, "decicelsius", "Temperature below which the battery alerts"},
    {"temp_ambient", Kind::gauge, "decicelsius", "Temperature around the battery"},
    {"temp_ambient_max", Kind::gauge, "decicelsius", "Highest temperature around the battery"},
    {"temp_ambient_min", Kind::gauge, "decicelsius", "Lowest temperature around the battery"},
    {"temp_max", Kind::gauge, "decicelsius", "Highest temperature the battery may charge at"},
    {"temp_min", Kind::gauge, "decicelsius", "Lowest temperature the battery may charge at"},
};

} // namespace

void find_power_supply(const Roots& roots, std::string_view prefix, std::vector<Field>& out) {
  if (!related(prefix, "hw.power_supply"))
    return;
  std::string supplies = roots.sys + "/class/power_supply";
  auto names = list_directory(supplies).value_or(std::vector<std::string>());
  std::ranges::sort(names);
  for (const auto& supply : names) {
    std::string base = fmt::format("hw.power_supply.{}", component_of(supply));
    // A file read now: a battery's driver may fail one it lists (no fuel gauge).
    emit_files(roots, prefix, fmt::format("{}/{}", supplies, supply), base, "hw.power_supply.*",
               k_supply_files, {}, out, true);
  }
}

} // namespace opskit::counters
