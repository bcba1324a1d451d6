// SPDX-License-Identifier: MIT
#pragma once

// What `kstat serve` answers on /metrics: the families (exposition.hpp) of a set of names, with
// one snapshot read per scrape.

#include <array>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "opskit/error.hpp"
#include "opskit/probes/counters.hpp"
#include "opskit/probes/exposition.hpp"

namespace opskit::counters {

// What `kstat serve` exports when given no names: every source but /proc/sys (a thousand files,
// few of them worth a series) and /proc/<pid>.
inline constexpr std::array<std::string_view, 8> k_serve_defaults = {
    "cpu", "kern", "vm.stats", "vm.meminfo", "net.snmp", "net.netstat", "net.snmp6", "disk"};

class Scraper {
public:
  using Clock = std::chrono::steady_clock;
  using Body = std::shared_ptr<const std::string>;

  struct Settings {
    std::vector<std::string> names;                              // names and prefixes, as for read
    Clock::duration timeout = std::chrono::seconds(5);           // a scrape's budget for reading
    Clock::duration resolve_interval = std::chrono::seconds(60); // to find new names
  };

  // Resolves `settings.names` in `ns` and reads them once. Fails as Namespace::snapshot does.
  static Result<std::unique_ptr<Scraper>> open(Namespace ns, Settings settings);

  // One scrape: reads every source file once (those the timeout leaves unread fail), and
  // returns the families, kstat_scrape_error{source=...} for each source that failed and
  // kstat_scrape_duration_seconds. Names are resolved again, before the families are rendered,
  // when a source file gains or loses lines (a disk, a CPU, a network interface or an interrupt
  // came or went) or entries fail that did not before (a process exited), and every resolve
  // interval for what no file read shows (mount points, cgroups). Safe to call from many
  // threads: a scrape that waited for another's read gets that read's body when the read began
  // after the scrape arrived.
  Body scrape(TextFormat format);

private:
  Scraper(Namespace ns, Settings settings, Snapshot snapshot);
  void read(Clock::time_point deadline);
  void resolve(Clock::time_point deadline);
  std::string render(TextFormat format, Clock::duration took) const;

  const Namespace ns_;
  const Settings settings_;
  std::mutex mutex_; // guards everything below
  Snapshot snapshot_;
  Exposition exposition_;
  std::size_t baseline_failures_ = 0; // failed entries in the first read after resolving
  Clock::time_point resolved_at_;
  Clock::time_point read_at_;  // when the last read began
  std::array<Body, 2> bodies_; // of that read, by TextFormat
};

} // namespace opskit::counters
