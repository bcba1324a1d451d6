// SPDX-License-Identifier: MIT
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "opskit/error.hpp"
#include "opskit/probes/counters.hpp"

namespace opskit::counters {

// The per-second rate of a counter that read `before`, then `now`, `seconds` later. A counter
// that went backwards was reset or wrapped: it is taken to have counted up from zero since, as
// Prometheus' rate() does, so a rate is never negative and never larger than the counter's own
// value over the interval. Nothing for text, or for an interval that is not positive.
std::optional<double> counter_rate(const Value& before, const Value& now, double seconds) noexcept;

// One entry of a watch interval: a counter's rate per second, or a gauge's or text's value.
struct Reading {
  bool is_rate = false;
  std::optional<double> rate;   // for counters; empty when the entry failed this interval
  const Value* value = nullptr; // for gauges and text; null when the entry failed
};

// Reads a snapshot at intervals and turns counters into rates, like vmstat.
class Watch {
public:
  explicit Watch(Snapshot snapshot);
  // A watch of the same names resolved again (`snapshot`), going on from `before`: each entry
  // `before` also had keeps its last value, so that its next rate spans the interval as if
  // nothing had changed; an entry new to it gets its first rate an interval later.
  Watch(Snapshot snapshot, const Watch& before);

  // Reads every source by `deadline` (kstat watch's: an interval on, a second at least): a mount
  // or sensor that does not answer by then fails this sample, and is skipped until its call
  // returns, as in a scrape.
  // The first call sets the baseline; every later call returns one Reading per entry for the
  // time since the previous call, `seconds` long.
  const std::vector<Reading>& sample(double seconds,
                                     std::chrono::steady_clock::time_point deadline =
                                         std::chrono::steady_clock::time_point::max());
  const Snapshot& snapshot() const noexcept { return snapshot_; }

  // Whether the names ought to be resolved again after the last sample: more entries failed
  // than at the first sample (one left its file). Records that came or went (a disk, an
  // interface) NameChanges::happened() tells.
  bool names_changed() const noexcept;
  // After a resolve that failed (a name given is there no more: a process exited): the last
  // sample's failures are the baseline, so that names_changed() tells only of more.
  void keep_failures() noexcept;

  // Follows what came or went (`subtrees`, as NameChanges saw them: mount points, cgroups, an
  // interface) without finding the other names again: the entries under each go, and what `ns`
  // finds under each now of `selections` comes after the others, new to the watch (its first
  // rate an interval later) but where one was there before. The other entries go on. Where
  // entries not under them failed, names_changed() stays true: the names are for resolving
  // again all the same. Returns whether entries went or came. What comes is read once by
  // `deadline`.
  bool follow(const Namespace& ns, std::span<const Selection> selections,
              std::span<const std::string> subtrees,
              std::chrono::steady_clock::time_point deadline =
                  std::chrono::steady_clock::time_point::max());

private:
  Snapshot snapshot_;
  std::vector<Value> previous_;
  std::vector<bool> had_previous_;
  std::vector<Reading> readings_;
  std::size_t failures_ = 0;
  std::optional<std::size_t> first_failures_; // at the first sample
};

// What `kstat bench` measures for one name: the cost of a read through each access path.
struct BenchResult {
  std::size_t iterations = 0;
  double by_name_ns = 0;  // resolve the name, read once, close: every time
  double handle_ns = 0;   // read a handle resolved once (one pread + a parse)
  double snapshot_ns = 0; // read a snapshot of every name in the same source file
  std::size_t snapshot_names = 0;
};

// Runs the three loops `iterations` times each. Fails when the name does not resolve.
Result<BenchResult> bench(const Namespace& ns, std::string_view name, std::size_t iterations);

} // namespace opskit::counters
