// SPDX-License-Identifier: MIT
//
// The process families are named and typed as the Prometheus client libraries' process
// collectors name them (client_golang's, which node_exporter serves): process_cpu_seconds_total
// (user and system time), process_open_fds, process_max_fds (the soft limit),
// process_virtual_memory_bytes, process_resident_memory_bytes, process_start_time_seconds.
#include "process_metrics.hpp"

#include <charconv>
#include <cstdint>
#include <cstring>
#include <ctime>
#include <optional>
#include <string_view>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "opskit/probes/counters.hpp"
#include "opskit/probes/value.hpp"
#include "opskit/version.hpp"

namespace opskit::cmd::kstat {

namespace {

enum class Family : std::uint8_t { cpu, open_fds, max_fds, virtual_memory, resident, start_time };

// The families, in Family's order: their names, and their HELP and TYPE lines.
constexpr std::string_view k_names[] = {
    "process_cpu_seconds_total",
    "process_open_fds",
    "process_max_fds",
    "process_virtual_memory_bytes",
    "process_resident_memory_bytes",
    "process_start_time_seconds",
};

const FamilyHeader& header(Family family) {
  static const FamilyHeader k_headers[] = {
      {k_names[0], "User and system CPU time of kstat serve, in seconds", MetricType::counter},
      {k_names[1], "File descriptors kstat serve holds open", MetricType::gauge},
      {k_names[2], "File descriptors kstat serve may open (its soft limit)", MetricType::gauge},
      {k_names[3], "Virtual memory size of kstat serve", MetricType::gauge},
      {k_names[4], "Resident memory of kstat serve", MetricType::gauge},
      {k_names[5], "Start time of kstat serve, in seconds since the epoch", MetricType::gauge},
  };
  return k_headers[static_cast<std::size_t>(family)];
}

void append_figure(std::string& out, Family family, TextFormat format, double value) {
  char text[k_real_max];
  out.append(header(family)[format]);
  append_sample(out, k_names[static_cast<std::size_t>(family)], "",
                std::string_view(text, write_real(text, value)));
}

// The entries of /proc/self/fd at `dir`, less "." and "..": -1 when unreadable. Since Linux 6.2
// the directory's size is its count of descriptors (one fstat, 1.4 µs on this project's VM,
// where listing a hundred entries took 20 µs, procfs looking each one up); before, the size is
// 0 and the directory is listed. procfs lists a process's descriptors until the buffer is full,
// so a read that leaves room for more has listed them all, and the read that would return 0 is
// spared.
long open_fds(int dir) {
  if (struct stat status{}; ::fstat(dir, &status) == 0 && status.st_size > 0)
    return static_cast<long>(status.st_size); // never 0: `dir` itself is open
  if (::lseek(dir, 0, SEEK_SET) != 0)
    return -1;
  alignas(8) char buffer[4096];
  constexpr long k_room = 512; // more than the longest entry: 19 bytes and a 255-byte name
  long count = -2;
  for (;;) {
    long got = ::syscall(SYS_getdents64, dir, buffer, sizeof buffer);
    if (got < 0)
      return -1;
    for (long at = 0; at < got;) {
      std::uint16_t length = 0;
      std::memcpy(&length, buffer + at + 16, sizeof length); // d_reclen, after d_ino and d_off
      if (length == 0)
        return -1;
      at += length;
      ++count;
    }
    if (got == 0 || static_cast<long>(sizeof buffer) - got >= k_room)
      return count;
  }
}

// When this process started, in seconds since the epoch: its start after boot
// (proc.self.stat.starttime, of the real /proc), and the boot's time from the clocks now.
double start_time() {
  auto handle = counters::Namespace().resolve("proc.self.stat.starttime");
  if (!handle)
    return 0;
  auto read = handle->read();
  auto since_boot = read ? counters::as_number(*read) : std::nullopt;
  if (!since_boot)
    return 0;
  timespec now{}, boot_clock{};
  ::clock_gettime(CLOCK_REALTIME, &now);
  ::clock_gettime(CLOCK_BOOTTIME, &boot_clock);
  auto seconds = [](const timespec& t) { return static_cast<double>(t.tv_sec) + t.tv_nsec * 1e-9; };
  double start = seconds(now) - seconds(boot_clock) + *since_boot;
  return static_cast<double>(static_cast<long long>(start * 100 + 0.5)) / 100; // ticks' precision
}

} // namespace

ProcessMetrics::ProcessMetrics()
    : statm_(::open("/proc/self/statm", O_RDONLY | O_CLOEXEC)),
      fds_(::open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC)), start_time_(start_time()) {
  if (rlimit limit{}; ::getrlimit(RLIMIT_NOFILE, &limit) == 0)
    max_fds_ = static_cast<double>(limit.rlim_cur);
  FamilyHeader family("kstat_build_info", "kstat's version", MetricType::info);
  std::string labels;
  append_label(labels, "version", k_version);
  for (auto f : {TextFormat::prometheus, TextFormat::openmetrics}) {
    std::string& out = build_info_[static_cast<std::size_t>(f)];
    out = family[f];
    append_sample(out, "kstat_build_info", labels, "1");
  }
}

void ProcessMetrics::append(std::string& out, TextFormat format) const {
  out.append(build_info_[static_cast<std::size_t>(format)]);
  if (rusage usage{}; ::getrusage(RUSAGE_SELF, &usage) == 0) {
    auto micros = [](const timeval& t) { return t.tv_sec * 1'000'000LL + t.tv_usec; };
    double cpu = static_cast<double>(micros(usage.ru_utime) + micros(usage.ru_stime)) / 1e6;
    append_figure(out, Family::cpu, format, cpu);
  }
  if (long open = fds_ ? open_fds(fds_.get()) : -1; open >= 0)
    append_figure(out, Family::open_fds, format, static_cast<double>(open));
  if (max_fds_ > 0)
    append_figure(out, Family::max_fds, format, max_fds_);
  // statm: "size resident shared text lib data dt", in pages.
  char text[128];
  ssize_t got = statm_ ? ::pread(statm_.get(), text, sizeof text, 0) : -1;
  unsigned long long pages[2] = {};
  const char *at = text, *end = text + (got > 0 ? got : 0);
  std::size_t parsed = 0;
  for (; parsed < std::size(pages) && at < end; ++parsed) {
    auto [next, ec] = std::from_chars(at, end, pages[parsed]);
    if (ec != std::errc())
      break;
    at = next + 1;
  }
  if (parsed == std::size(pages)) {
    double page = static_cast<double>(::sysconf(_SC_PAGESIZE));
    append_figure(out, Family::virtual_memory, format, static_cast<double>(pages[0]) * page);
    append_figure(out, Family::resident, format, static_cast<double>(pages[1]) * page);
  }
  if (start_time_ > 0)
    append_figure(out, Family::start_time, format, start_time_);
}

} // namespace opskit::cmd::kstat
