// SPDX-License-Identifier: MIT
#include "watch.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <map>
#include <memory>
#include <set>
#include <string_view>

#include <sys/ioctl.h>
#include <unistd.h>

#include <fmt/format.h>

#include "commands.hpp"
#include "exit.hpp"
#include "opskit/probes/watch.hpp"
#include "output.hpp"

namespace opskit::cmd::kstat {

namespace {

// For watch's samples: tells a failure when it begins or its message changes, not again at each
// sample; `said` holds the last message told of each entry by name, forgotten when it reads
// again. An entry that is not among the names resolved again (`now`, when they were) went from
// its file: not a failure. Returns how many entries failed.
std::size_t report_new_errors(const counters::Snapshot& snapshot,
                              std::map<std::string, std::string, std::less<>>& said,
                              const counters::Snapshot* now) {
  std::set<std::string_view> still;
  for (std::size_t i = 0; now != nullptr && i < now->size(); ++i)
    still.insert(now->info(i).name);
  std::vector<const Error*> news;
  std::size_t failed = 0;
  for (std::size_t i = 0; i < snapshot.size(); ++i) {
    const std::string& name = snapshot.info(i).name;
    const Error* e = snapshot.error(i);
    if (e == nullptr || (now != nullptr && !still.contains(name))) {
      said.erase(name);
      news.push_back(nullptr);
      continue;
    }
    ++failed;
    auto [told, added] = said.try_emplace(name, e->message());
    news.push_back(added || told->second != e->message() ? e : nullptr);
    told->second = e->message();
  }
  tell_errors(snapshot, news);
  return failed;
}

volatile std::sig_atomic_t g_stop = 0;
// The first SIGINT or SIGTERM ends the watch after its line; a second one ends it at once, as
// their default action does, also while a write waits on a reader that stopped reading.
void on_stop(int) {
  g_stop = 1;
  struct sigaction fallback {};
  fallback.sa_handler = SIG_DFL;
  ::sigaction(SIGINT, &fallback, nullptr);
  ::sigaction(SIGTERM, &fallback, nullptr);
}

std::size_t terminal_width() {
  winsize ws{};
  if (::ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
    return ws.ws_col;
  return 0;
}

// A rate to two significant digits below 1 (CPU seconds a second: 0.12, not 0.1), to one
// decimal up to 100, whole above.
std::string format_rate(double rate) {
  double size = std::fabs(rate);
  if (size >= 100 || size == 0)
    return fmt::format("{:.0f}", rate);
  if (size >= 1)
    return fmt::format("{:.1f}", rate);
  auto decimals = static_cast<int>(1 - std::floor(std::log10(size))); // 0.12, 0.000030
  return fmt::format("{:.{}f}", rate, decimals);
}

std::string format_reading(const counters::Reading& r) {
  if (r.is_rate)
    return r.rate ? format_rate(*r.rate) : "-";
  return r.value ? counters::format_value(*r.value) : "-";
}

// How watch prints its samples: as columns under a header when the names fit the terminal (or,
// not at one, when they are eight or fewer), else as a block of "name: value" lines.
struct WatchLayout {
  std::vector<std::size_t> widths;
  bool columns = false;
};

WatchLayout layout_of(const counters::Snapshot& snap) {
  WatchLayout layout;
  std::size_t total = 0;
  for (std::size_t i = 0; i < snap.size(); ++i) {
    layout.widths.push_back(std::max<std::size_t>(snap.info(i).name.size(), 10));
    total += layout.widths.back() + 1;
  }
  std::size_t width = terminal_width();
  layout.columns = width > 0 ? total <= width : snap.size() <= 8;
  return layout;
}

// One sample, `seconds` after the one before, as text; `header` puts the names above columns.
std::string render_sample(const counters::Snapshot& snap,
                          const std::vector<counters::Reading>& readings, double seconds,
                          const WatchLayout& layout, bool header, Format format) {
  std::string out;
  if (format == Format::json) {
    JsonMembers values;
    values.reserve(readings.size());
    for (std::size_t i = 0; i < readings.size(); ++i) {
      const auto& r = readings[i];
      if (r.is_rate)
        values.emplace_back(snap.info(i).name, r.rate ? nlohmann::ordered_json(*r.rate) : nullptr);
      else
        values.emplace_back(snap.info(i).name, r.value ? to_json(*r.value) : nullptr);
    }
    nlohmann::ordered_json line = {
        {"time", std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
                     .count()},
        {"interval_s", seconds},
        {"values", json_object(std::move(values))}};
    return json_text(line, -1);
  }
  if (!layout.columns) {
    out += fmt::format("--- {:.2f}s\n", seconds);
    for (std::size_t i = 0; i < readings.size(); ++i)
      out += fmt::format("{}: {}{}\n", snap.info(i).name, format_reading(readings[i]),
                         readings[i].is_rate ? "/s" : "");
    return out;
  }
  if (header) {
    for (std::size_t i = 0; i < snap.size(); ++i)
      out += fmt::format("{:>{}} ", snap.info(i).name, layout.widths[i]);
    out.back() = '\n';
  }
  for (std::size_t i = 0; i < readings.size(); ++i)
    out += fmt::format("{:>{}} ", format_reading(readings[i]), layout.widths[i]);
  out.back() = '\n';
  return out;
}

bool same_names(const counters::Snapshot& a, const counters::Snapshot& b) {
  if (a.size() != b.size())
    return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a.info(i).name != b.info(i).name)
      return false;
  return true;
}

// Sleeps until `next`, unless stopped first.
void sleep_until(std::chrono::steady_clock::time_point next) {
  auto wait = std::chrono::duration<double>(next - std::chrono::steady_clock::now()).count();
  if (wait <= 0)
    return;
  timespec ts{static_cast<time_t>(wait), static_cast<long>((wait - std::floor(wait)) * 1e9)};
  while (!g_stop && ::nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

} // namespace

int run_watch(const counters::Namespace& ns, const Options& options) {
  using Clock = std::chrono::steady_clock;
  auto interval = seconds_option(options.interval);
  // A sample is read, and names found, within its interval, or a second where that is shorter
  // (a large tree at -i 0.01 is late, not failed): a mount or sensor that does not answer by
  // then fails its samples, and the others go on.
  auto budget = std::max(interval, Clock::duration(std::chrono::seconds(1)));
  // The names watched: those given, less those unknown (told once, and left out of every
  // finding again, which they would fail).
  counters::NameChanges changes(ns, options.names); // first: what comes meanwhile is seen
  std::size_t unknown = 0;
  std::vector<std::string> names;
  auto snapshot = known_names(ns, options.names, Clock::now() + budget, unknown, &names);
  if (!snapshot)
    return k_exit_failure;
  auto watch = std::make_unique<counters::Watch>(std::move(*snapshot));
  const std::vector<counters::Selection> selections{{names}};

  // Restarted: a write blocked on a full pipe (watch | less) goes on when a stop comes, and the
  // line ends whole (a second stop ends it at once); the wait for the next sample is never
  // restarted, so it ends at once.
  struct sigaction action {};
  action.sa_handler = on_stop;
  action.sa_flags = SA_RESTART;
  ::sigaction(SIGINT, &action, nullptr);
  ::sigaction(SIGTERM, &action, nullptr);

  WatchLayout layout = layout_of(watch->snapshot());
  watch->sample(0, Clock::now() + budget);
  auto last = Clock::now();
  auto next = last + interval;
  std::size_t failed_any = 0, lines = 0; // lines since the header
  // The header again every 20 lines on a terminal, as vmstat does; once into a file or a pipe,
  // which awk and logs read.
  const std::size_t header_every = ::isatty(STDOUT_FILENO) ? 20 : SIZE_MAX;
  std::map<std::string, std::string, std::less<>> said;
  for (std::size_t n = 0; !g_stop && (options.count == 0 || n < options.count); ++n) {
    sleep_until(next);
    if (g_stop)
      break;
    auto now = Clock::now();
    double seconds = std::chrono::duration<double>(now - last).count();
    last = now;
    // The next sample on the interval's grid; after a sample missed its time (Ctrl-Z, a
    // suspend, a slow read), a whole interval from now, as vmstat waits: not a burst of the
    // missed ones, microseconds apart.
    next += interval;
    if (next <= now)
      next = now + interval;
    const auto& readings = watch->sample(seconds, now + budget);
    write_out(render_sample(watch->snapshot(), readings, seconds, layout,
                            lines++ % header_every == 0, options.format));
    if (std::fflush(stdout) != 0 || std::ferror(stdout))
      break; // told by run_main, which flushes again (a terminal's lines are written already)
    // Names that came or went are shown from the next line on under a header of their own.
    // Mount points, cgroups, interfaces or disks that came or went, and nothing else: the names
    // under them alone are found anew (an interface's: net.dev.veth1), and those of one gone
    // leave without a failure told. Else (a CPU, an XFS file system, an entry that failed) all
    // are resolved again; with the same names, or where a name given is there no more (a
    // process that exited), the watch goes on with the new failures as its baseline.
    auto seen = changes.happened(watch->snapshot());
    bool renamed = false;
    if (!seen.everything && !seen.subtrees.empty())
      renamed = watch->follow(ns, selections, seen.subtrees, Clock::now() + budget);
    std::unique_ptr<counters::Watch> again;
    if (seen.everything || watch->names_changed()) {
      changes.renew(ns, names);
      if (auto fresh = ns.snapshot(names, {}, Clock::now() + budget))
        again = std::make_unique<counters::Watch>(std::move(*fresh), *watch);
      else
        watch->keep_failures(); // not looked for again at each sample
    }
    failed_any += report_new_errors(watch->snapshot(), said, again ? &again->snapshot() : nullptr);
    if (again) {
      renamed = renamed || !same_names(watch->snapshot(), again->snapshot());
      watch = std::move(again);
    }
    if (renamed) {
      layout = layout_of(watch->snapshot());
      lines = 0;
    }
  }
  if (unknown > 0)
    return k_exit_failure;
  return failed_any == 0 ? k_exit_ok : k_exit_partial;
}

} // namespace opskit::cmd::kstat
