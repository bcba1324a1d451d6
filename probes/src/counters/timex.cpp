// SPDX-License-Identifier: MIT
//
// The kernel clock's discipline: kern.timex.*, from adjtimex(2) asked to change nothing (modes 0).
// An NTP daemon (chronyd, ntpd, systemd-timesyncd) keeps these figures in the kernel: whether the
// clock is synchronized, its offset from the reference, the error bounds, the frequency
// correction, and the statistics of a PPS signal where one disciplines the clock. They are what
// node_exporter's timex collector serves, and what alerts on a host's clock are written against
// (node_timex_sync_status, node_timex_offset_seconds, node_timex_maxerror_seconds).
//
// There is no file: the reader renders the call's answer as keyed lines ("sync 1\noffset -1234\n
// ..."), in the units the kernel keeps (offsets in nanoseconds, errors and the tick in
// microseconds, frequencies in 2^-16 ppm), and each field converts its line to seconds or hertz
// as the fields of a file are converted. The call reads the running kernel's clock whatever the
// proc root: a container shares its host's clock.
//
// The clock's source, kern.clocksource.<n>.{current,available}, is sysfs text:
// <sys>/devices/system/clocksource/clocksource<n>/{current,available}_clocksource ("tsc", "tsc
// hpet acpi_pm"). A kernel that finds the TSC unstable falls back to a source that makes each
// clock_gettime(2) a trip into the kernel or out to the hypervisor; node_exporter's time collector
// serves both.

#include <string_view>

#include <sys/timex.h>
#include <unistd.h>

#include <fmt/compile.h>
#include <fmt/format.h>

#include "emitter.hpp"

namespace opskit::counters {

namespace {

// 2^-16 ppm, the unit of the kernel's frequencies, as a divisor to hertz (a relative frequency).
constexpr double k_scaled_ppm = 65536e6;

struct TimexField {
  std::string_view key; // the line the reader renders, and the name's last component
  Kind kind;
  std::string_view unit;
  double divide; // from the rendered unit
  std::string_view description;
};

// In the order the reader renders them.
constexpr TimexField k_timex_fields[] = {
    {"sync", Kind::gauge, "", 1,
     "1 when the clock is synchronized (adjtimex(2) does not answer TIME_ERROR), else 0"},
    {"offset", Kind::gauge, "seconds", 1e9, "Offset of the clock from its reference"},
    {"frequency_ratio", Kind::gauge, "", 1,
     "Rate of the clock against its nominal rate, the NTP daemon's frequency correction applied"},
    {"maxerror", Kind::gauge, "seconds", 1e6, "Maximum error of the clock"},
    {"esterror", Kind::gauge, "seconds", 1e6, "Estimated error of the clock"},
    {"status", Kind::gauge, "", 1,
     "Clock status bits (STA_PLL 0x1, STA_UNSYNC 0x40, STA_NANO 0x2000, ...; see adjtimex(2))"},
    {"constant", Kind::gauge, "", 1, "Time constant of the phase-locked loop"},
    {"tick", Kind::gauge, "seconds", 1e6, "Time between clock ticks"},
    {"tai", Kind::gauge, "seconds", 1, "Offset of TAI from UTC"},
    {"pps_frequency", Kind::gauge, "hertz", k_scaled_ppm, "Frequency of the clock measured by PPS"},
    {"pps_jitter", Kind::gauge, "seconds", 1e9, "PPS jitter"},
    {"pps_shift", Kind::gauge, "", 1, "PPS calibration interval, as a power of 2 seconds"},
    {"pps_stability", Kind::gauge, "hertz", k_scaled_ppm,
     "PPS stability: mean change of the frequency"},
    {"pps_jitter_count", Kind::counter, "events", 1, "PPS signals beyond the jitter limit"},
    {"pps_calibrations", Kind::counter, "intervals", 1, "PPS calibration intervals"},
    {"pps_errors", Kind::counter, "errors", 1, "PPS calibration errors"},
    {"pps_stability_exceeded", Kind::counter, "events", 1,
     "PPS calibrations beyond the stability limit"},
};

} // namespace

void find_timex(const Roots& roots, std::string_view prefix, std::vector<Field>& out) {
  if (!related(prefix, "kern.timex"))
    return;
  Emitter emitter(roots, std::string(k_timex_source), k_fixed_lines, prefix, out, Reader::adjtimex);
  for (const auto& f : k_timex_fields) {
    std::string name = fmt::format("kern.timex.{}", f.key);
    if (Info* info = emitter.emit(name, name, f.kind, f.unit, {std::string(f.key), 0, 0},
                                  {.divide = f.divide}))
      info->description = f.description;
  }
}

void find_clocksource(const Roots& roots, std::string_view prefix, std::vector<Field>& out) {
  if (!related(prefix, "kern.clocksource"))
    return;
  struct File {
    std::string_view key, description;
  };
  static constexpr File k_files[] = {
      {"current", "The clock source the kernel keeps time by"},
      {"available", "The clock sources the kernel could keep time by, blank-separated"},
  };
  std::string dir = roots.sys + "/devices/system/clocksource";
  for (unsigned n : numbered(dir, "clocksource"))
    for (const auto& f : k_files) {
      std::string path = fmt::format("{}/clocksource{}/{}_clocksource", dir, n, f.key);
      if (::access(path.c_str(), R_OK) != 0)
        continue;
      if (Info* info = Emitter(roots, path, k_one_value, prefix, out)
                           .emit(fmt::format("kern.clocksource.{}.{}", n, f.key),
                                 fmt::format("kern.clocksource.*.{}", f.key), Kind::text, "", {}))
        info->description = f.description;
    }
}

namespace detail {

bool read_adjtimex(Source& source) {
  struct timex tx {};
  int state = ::adjtimex(&tx);
  if (state < 0) {
    source.read_error = Error::from_errno("adjtimex", "the kernel clock", errno);
    return false;
  }
  // Offsets and jitter in nanoseconds, whichever unit the clock keeps them in.
  long nano = (tx.status & STA_NANO) != 0 ? 1 : 1000;
  char text[17 * 40]; // seventeen lines of a key and at most 24 characters
  char* end = fmt::format_to(
      text,
      FMT_COMPILE("sync {}\noffset {}\nfrequency_ratio {}\nmaxerror {}\nesterror {}\nstatus {}\n"
                  "constant {}\ntick {}\ntai {}\npps_frequency {}\npps_jitter {}\npps_shift {}\n"
                  "pps_stability {}\npps_jitter_count {}\npps_calibrations {}\npps_errors {}\n"
                  "pps_stability_exceeded {}\n"),
      state == TIME_ERROR ? 0 : 1, tx.offset * nano,
      1 + static_cast<double>(tx.freq) / k_scaled_ppm, tx.maxerror, tx.esterror, tx.status,
      tx.constant, tx.tick, tx.tai, tx.ppsfreq, tx.jitter * nano, tx.shift, tx.stabil, tx.jitcnt,
      tx.calcnt, tx.errcnt, tx.stbcnt);
  source.buffer.assign(text, end);
  source.text = source.buffer;
  return true;
}

} // namespace detail

} // namespace opskit::counters
