// SPDX-License-Identifier: MIT
#include "opskit/probes/watch.hpp"

#include <algorithm>
#include <chrono>
#include <unordered_map>

#include "sources.hpp"

namespace opskit::counters {

std::optional<double> counter_rate(const Value& before, const Value& now, double seconds) noexcept {
  if (!(seconds > 0))
    return std::nullopt;
  // Integer counters subtract as integers: doubles lose the low digits of large counters.
  const auto* b = std::get_if<std::uint64_t>(&before);
  const auto* n = std::get_if<std::uint64_t>(&now);
  if (b != nullptr && n != nullptr)
    return static_cast<double>(*n >= *b ? *n - *b : *n) / seconds;
  auto x = as_number(before), y = as_number(now);
  if (!x || !y)
    return std::nullopt;
  return (*y >= *x ? *y - *x : *y) / seconds;
}

Watch::Watch(Snapshot snapshot) : snapshot_(std::move(snapshot)) {
  previous_.resize(snapshot_.size());
  had_previous_.resize(snapshot_.size());
  readings_.resize(snapshot_.size());
}

Watch::Watch(Snapshot snapshot, const Watch& before) : Watch(std::move(snapshot)) {
  std::unordered_map<std::string_view, std::size_t> was;
  for (std::size_t j = 0; j < before.snapshot_.size(); ++j)
    was.emplace(before.snapshot_.info(j).name, j);
  // A value read another way (an interrupt's over a CPU more) is no previous one: its first
  // rate would count what that CPU took before.
  for (std::size_t i = 0; i < snapshot_.size(); ++i)
    if (auto j = was.find(snapshot_.info(i).name);
        j != was.end() && snapshot_.reads_as(i, before.snapshot_, j->second)) {
      previous_[i] = before.previous_[j->second];
      had_previous_[i] = before.had_previous_[j->second];
    }
}

bool Watch::names_changed() const noexcept {
  return first_failures_ && failures_ > *first_failures_;
}

void Watch::keep_failures() noexcept {
  first_failures_ = failures_;
}

bool Watch::follow(const Namespace& ns, std::span<const Selection> selections,
                   std::span<const std::string> subtrees,
                   std::chrono::steady_clock::time_point deadline) {
  std::size_t before = snapshot_.size();
  // The last values of the entries under them, by name: one found again goes on from its value
  // (an interface's, where another came), as after a resolve.
  std::unordered_map<std::string, Value> last;
  for (std::size_t i = 0; i < before; ++i) {
    const std::string& name = snapshot_.info(i).name;
    auto under = [&](const std::string& subtree) { return holds(subtree, name); };
    if (had_previous_[i] && std::ranges::any_of(subtrees, under))
      last.emplace(name, std::move(previous_[i]));
  }
  std::vector<std::size_t> moved_to;
  failures_ -= snapshot_.erase_under(subtrees, moved_to);
  for (std::size_t i = 0; i < moved_to.size(); ++i)
    if (moved_to[i] != Snapshot::k_erased && moved_to[i] != i) { // ascending, never past i
      previous_[moved_to[i]] = std::move(previous_[i]);
      had_previous_[moved_to[i]] = had_previous_[i];
    }
  std::size_t kept = snapshot_.size();
  previous_.resize(kept);
  had_previous_.resize(kept);
  // Read once, so that what fails in it from the start is not taken for a name gone.
  std::size_t failed = ns.append_under(snapshot_, selections, subtrees, deadline);
  if (first_failures_)
    *first_failures_ += failed;
  previous_.resize(snapshot_.size());
  had_previous_.resize(snapshot_.size(), false);
  readings_.resize(snapshot_.size());
  for (std::size_t i = kept; i < snapshot_.size() && !last.empty(); ++i)
    if (auto was = last.find(snapshot_.info(i).name); was != last.end()) {
      previous_[i] = std::move(was->second);
      had_previous_[i] = true;
    }
  return kept != before || snapshot_.size() != kept;
}

const std::vector<Reading>& Watch::sample(double seconds,
                                          std::chrono::steady_clock::time_point deadline) {
  failures_ = snapshot_.read(deadline);
  if (!first_failures_)
    first_failures_ = failures_;
  for (std::size_t i = 0; i < snapshot_.size(); ++i) {
    Reading& reading = readings_[i];
    bool ok = snapshot_.error(i) == nullptr;
    reading.is_rate = snapshot_.info(i).kind == Kind::counter;
    reading.value = ok ? &snapshot_.value(i) : nullptr;
    reading.rate.reset();
    if (reading.is_rate && ok && had_previous_[i])
      reading.rate = counter_rate(previous_[i], snapshot_.value(i), seconds);
    if (ok)
      previous_[i] = snapshot_.value(i);
    had_previous_[i] = ok;
  }
  return readings_;
}

namespace {

using Clock = std::chrono::steady_clock;

template <class F>
double ns_per_call(std::size_t iterations, F&& f) {
  auto start = Clock::now();
  for (std::size_t i = 0; i < iterations; ++i)
    f();
  std::chrono::duration<double, std::nano> spent = Clock::now() - start;
  return spent.count() / static_cast<double>(iterations);
}

} // namespace

Result<BenchResult> bench(const Namespace& ns, std::string_view name, std::size_t iterations) {
  OPSKIT_TRY_ASSIGN(auto handle, ns.resolve(name));
  OPSKIT_TRY(handle.read());
  OPSKIT_TRY_ASSIGN(auto whole, ns.source_snapshot(name));

  BenchResult result;
  result.iterations = iterations;
  result.snapshot_names = whole.size();
  bool failed = false;
  result.by_name_ns = ns_per_call(iterations, [&] {
    auto h = ns.resolve(name);
    failed |= !h || !h->read();
  });
  result.handle_ns = ns_per_call(iterations, [&] { failed |= !handle.read(); });
  result.snapshot_ns = ns_per_call(iterations, [&] { failed |= whole.read() != 0; });
  if (failed)
    return fail(name.empty() ? "bench: a read failed"
                             : std::string(name) + ": a read failed during the benchmark");
  return result;
}

} // namespace opskit::counters
