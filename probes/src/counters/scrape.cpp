// SPDX-License-Identifier: MIT
#include "opskit/probes/scrape.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdint>
#include <ctime>
#include <functional>
#include <iterator>
#include <optional>
#include <span>

#include <malloc.h>
#include <sys/utsname.h>

#include <fmt/compile.h>
#include <fmt/format.h>

#include "driver_reads.hpp"
#include "sources.hpp"

namespace opskit::counters {

namespace {

// A snapshot read once, so that its /proc/sys entries know their kind; nothing where `make`
// (as Namespace::snapshot() takes it) declines to make one. The names are found, and the files
// read, by `deadline`; with `afresh`, the read has the settings' timeout from when the names are
// found instead (at start, where no scrape waits: a probe of a sensor that did not answer
// leaves the first read its time).
Result<std::optional<Snapshot>>
read_snapshot(const Namespace& ns, const Scraper::Settings& settings,
              Scraper::Clock::time_point deadline, std::size_t& failures,
              const std::function<bool(const Found&)>& make = {}, bool afresh = false) {
  bool made = true;
  auto decide = [&](const Found& found) { return made = !make || make(found); };
  OPSKIT_TRY_ASSIGN(auto snapshot, ns.snapshot(settings.selections(), decide, deadline));
  if (!made)
    return std::nullopt;
  // Names that come and go may all be away now (no md arrays yet): served once they come.
  auto awaits = [](const Scraper::Names& set) {
    return set.transient_ok && std::ranges::any_of(set.names, Namespace::transient);
  };
  if (snapshot.size() == 0 && !std::ranges::any_of(settings.sets, awaits))
    return fail("nothing to serve: the exclusions leave out every name", ENOENT);
  failures = snapshot.read(afresh ? Scraper::Clock::now() + settings.timeout : deadline);
  return snapshot;
}

// The first read's sources that the limit of open files left unopened, as one error: served,
// they would be a scrape error each, and would leave no descriptor to accept a scrape with.
Result<void> check_descriptors(const Snapshot& snapshot) {
  auto failed = snapshot.source_errors();
  auto unopened = [](const auto& error) { return error.second.errno_value() == EMFILE; };
  auto first = std::ranges::find_if(failed, unopened);
  if (first == failed.end())
    return {};
  return fail(fmt::format("{} of {} source files {}", std::ranges::count_if(failed, unopened),
                          snapshot.source_count(), first->second.message()),
              EMFILE);
}

// The names of every set, as given.
std::vector<std::string> given_names(const Scraper::Settings& settings) {
  std::vector<std::string> out;
  for (const auto& set : settings.sets)
    out.insert(out.end(), set.names.begin(), set.names.end());
  return out;
}

// The labels of kstat_uname_info, named as node_exporter's uname collector names them.
std::string uname_labels() {
  struct utsname u {};
  if (::uname(&u) != 0)
    return {};
  std::string labels;
  append_label(labels, "domainname", u.domainname);
  append_label(labels, "machine", u.machine);
  append_label(labels, "nodename", u.nodename);
  append_label(labels, "release", u.release);
  append_label(labels, "sysname", u.sysname);
  append_label(labels, "version", u.version);
  return labels;
}

} // namespace

Scraper::Names serve_defaults() {
  return {{k_serve_defaults.begin(), k_serve_defaults.end()},
          {k_serve_default_exclusions.begin(), k_serve_default_exclusions.end()},
          true};
}

std::vector<Selection> Scraper::Settings::selections() const {
  std::vector<Selection> out;
  for (const auto& set : sets)
    out.push_back({set.names, {set.exclude, exported, set.absent_ok, set.transient_ok}});
  return out;
}

Result<std::unique_ptr<Scraper>> Scraper::open(Namespace ns, Settings settings) {
  // A process given is running at the start (else a pid mistyped); one that exits later leaves.
  for (const auto& set : settings.sets)
    for (const auto& name : set.names)
      if (Namespace::of_process(name))
        OPSKIT_TRY(ns.list(name));
  NameChanges changes(ns, given_names(settings));
  std::size_t failures = 0;
  OPSKIT_TRY_ASSIGN(auto snapshot, read_snapshot(ns, settings, Clock::now() + settings.timeout,
                                                 failures, {}, true));
  OPSKIT_TRY(check_descriptors(*snapshot));
  std::unique_ptr<Scraper> scraper(
      new Scraper(std::move(ns), std::move(settings), std::move(*snapshot), std::move(changes)));
  scraper->baseline_failures_ = failures;
  scraper->tell_failures();
  ::malloc_trim(0); // what finding the names took and let go, as after each resolve
  return scraper;
}

Scraper::Scraper(Namespace ns, Settings settings, Snapshot snapshot, NameChanges changes)
    : ns_(std::move(ns)), settings_(std::move(settings)), snapshot_(std::move(snapshot)),
      exposition_(snapshot_), uname_labels_(uname_labels()), awaited_(find_awaited()),
      changes_(std::move(changes)), resolved_at_(Clock::now()) {}

std::vector<std::string> Scraper::awaited() {
  std::lock_guard lock(mutex_);
  return awaited_;
}

std::vector<std::string> Scraper::find_awaited() const {
  // A name the snapshot serves something under has it; only the others are looked up, which
  // lists what is under them (every cgroup's files, for "cgroup").
  auto served = [&](std::string_view name) {
    for (std::size_t i = 0; i < snapshot_.size(); ++i)
      if (holds(name, snapshot_.info(i).name))
        return true;
    return false;
  };
  std::vector<std::string> out;
  for (const auto& set : settings_.sets)
    for (const auto& name : set.names)
      if (set.transient_ok && Namespace::transient(name) && !served(name) && !ns_.has(name))
        out.push_back(name);
  return out;
}

Scraper::Body Scraper::scrape(TextFormat format, Clock::duration budget) {
  auto arrived = Clock::now();
  std::lock_guard lock(mutex_);
  auto& body = bodies_[static_cast<std::size_t>(format)];
  if (read_at_ >= arrived && body)
    return body;
  if (read_at_ < arrived) {
    // From when the scrape came, not from when the one before it let go: the scraper's own
    // timeout runs from its request. One that waited past it, its scraper gone, is given the
    // last read's values: a read now would fail every source that has a deadline, and its body
    // would be given to the scrapes that came meanwhile and have time left.
    auto deadline = arrived + std::min(settings_.timeout, budget);
    if (Clock::now() >= deadline && read_at_ != Clock::time_point{}) {
      if (!body)
        body = std::make_shared<const std::string>(render(format, Clock::now() - read_at_));
      return body;
    }
    read_at_ = Clock::now();
    read_time_ = std::chrono::system_clock::now();
    bodies_ = {};
    read(deadline);
    tell_failures();
  }
  body = std::make_shared<const std::string>(render(format, Clock::now() - read_at_));
  return body;
}

void Scraper::read(Clock::time_point deadline) {
  // Names left to find by a scrape that ran to its deadline: found first, and their snapshot's
  // read is this scrape's.
  if (auto keep_if_same = std::exchange(resolve_first_, std::nullopt);
      keep_if_same && resolve(deadline, *keep_if_same, baseline_failures_))
    return;
  std::size_t failures = snapshot_.read(deadline);
  auto now = Clock::now();
  auto seen = changes_.happened(snapshot_); // asked each scrape, so that a change is told once
  // Mount points, cgroups, interfaces or disks that came or went, and nothing else: their names
  // alone are found anew. The names of those gone go first, and with them their failures in
  // this read.
  std::vector<std::string> subtrees;
  if (!seen.everything)
    subtrees = std::move(seen.subtrees);
  failures -= leave(subtrees);
  // Files that failed where they read well the time before, each the file of a process that
  // exited or of a mount point, cgroup, interface or disk: those names alone are found anew
  // (a process's, none), not every name. Failures past the deadline are the deadline's doing.
  bool late = now >= deadline;
  if (!late && !seen.everything && failures > baseline_failures_) {
    if (auto gone = Namespace::gone_subtrees(snapshot_); gone && !gone->empty()) {
      failures -= leave(*gone); // none under those left already
      subtrees.insert(subtrees.end(), std::make_move_iterator(gone->begin()),
                      std::make_move_iterator(gone->end()));
    }
  }
  bool went = !late && failures > baseline_failures_;
  // A name awaited has come: one look under each (the names of one small file, mostly: mdstat).
  bool came = std::ranges::any_of(awaited_, [&](const auto& name) { return ns_.has(name); });
  bool due = now - resolved_at_ >= settings_.resolve_interval;
  if (late && (came || seen.everything || !subtrees.empty() || due)) {
    // The names found now would be read with none of this scrape's time left, each a scrape
    // error, all of them where a resolve let the snapshot go: they are found by the next.
    resolve_first_ = !came && !seen.everything && subtrees.empty();
    return;
  }
  if (went || came || seen.everything)
    resolve(deadline, false, failures);
  else if (!subtrees.empty())
    follow(subtrees, deadline, failures);
  else if (due)
    resolve(deadline, true, failures);
}

void Scraper::tell_failures() {
  if (!settings_.tell)
    return;
  auto failed = snapshot_.source_errors();
  if (failed.empty() && failing_.empty())
    return;
  std::vector<std::string> now;
  for (auto& [source, why] : failed) {
    if (!std::ranges::binary_search(failing_, source))
      settings_.tell(source, &why);
    now.push_back(std::move(source));
  }
  std::ranges::sort(now);
  if (std::ranges::any_of(failing_,
                          [&](const auto& s) { return !std::ranges::binary_search(now, s); })) {
    auto sources = snapshot_.source_paths();
    std::ranges::sort(sources);
    for (const auto& source : failing_)
      if (!std::ranges::binary_search(now, source) && std::ranges::binary_search(sources, source))
        settings_.tell(source, nullptr);
  }
  failing_ = std::move(now);
}

std::size_t Scraper::leave(std::span<const std::string> subtrees) {
  if (subtrees.empty())
    return 0;
  std::vector<std::size_t> moved_to;
  std::size_t failed = snapshot_.erase_under(subtrees, moved_to);
  exposition_.erase(moved_to);
  return failed;
}

void Scraper::follow(std::span<const std::string> subtrees, Clock::time_point deadline,
                     std::size_t failures) {
  std::size_t first = snapshot_.size();
  failures += ns_.append_under(snapshot_, settings_.selections(), subtrees, deadline);
  baseline_failures_ = failures; // as a resolve's first read would count them
  exposition_.add(snapshot_, first);
  awaited_ = find_awaited();
}

bool Scraper::resolve(Clock::time_point deadline, bool keep_if_same, std::size_t failures_now) {
  changes_.renew(ns_, given_names(settings_));
  // The families and the old snapshot go once the new one's names are found, before its files
  // are opened, so that the two are never held at once (at 500 cgroups: 15 MB and 2,500
  // descriptors); where none are found they stay, to serve their errors. Where the names are
  // those served, nothing is made: the files stay open, the families stand.
  auto make = [&](const Found& found) {
    if (keep_if_same && found.same_as(snapshot_))
      return false;
    if (found.size() > 0) {
      exposition_ = Exposition();
      Snapshot gone = std::move(snapshot_);
    }
    return true;
  };
  std::size_t failures = 0;
  // The hardware's files this scrape read well are known to read: not asked again.
  auto answered = snapshot_.answered_by_drivers();
  detail::ReadJustNow known(answered);
  auto fresh = read_snapshot(ns_, settings_, deadline, failures, make);
  resolved_at_ = Clock::now();
  uname_labels_ = uname_labels(); // the host may have been renamed
  if (fresh && *fresh) {
    snapshot_ = std::move(**fresh);
    baseline_failures_ = failures;
    exposition_ = Exposition(snapshot_);
    awaited_ = find_awaited();
  } else if (!fresh) {
    // A name given is there no more (an interface's sysctl, the interface deleted), or every
    // name has gone (the families were let go only where names were found): keep serving them,
    // or what failed and why. What fails now is the baseline: the next scrape does not try
    // again, the interval's resolve does.
    baseline_failures_ = failures_now;
  } // else the same names: kept
  // The old snapshot and families are freed pages in the middle of the heap, which malloc keeps
  // unless told: give them back, once a resolve.
  ::malloc_trim(0);
  return fresh && *fresh;
}

namespace {

// The scrape's own families, beside those of the names served.
enum class Own : std::uint8_t { scrape_error, time, time_zone, uname, duration };

// The HELP and TYPE lines of an own family in `format`, rendered once.
std::string_view own_header(Own family, TextFormat format) {
  static const FamilyHeader k_headers[] = {
      {"kstat_scrape_error", "1 for each source file that could not be read in this scrape",
       MetricType::gauge},
      {"kstat_time_seconds", "System time when the scrape read, in seconds since the epoch",
       MetricType::gauge},
      {"kstat_time_zone_offset_seconds",
       "Offset of the system's time zone from UTC when the scrape read, in seconds; the zone's "
       "abbreviation labels it",
       MetricType::gauge},
      {"kstat_uname_info", "The host's names and the kernel's, as uname(2) gives them",
       MetricType::info},
      {"kstat_scrape_duration_seconds", "Time this scrape took to read its sources",
       MetricType::gauge},
  };
  return k_headers[static_cast<std::size_t>(family)][format];
}

// `seconds` with `Decimals` digits after the point.
template <int Decimals>
std::string_view seconds_text(double seconds, std::span<char, 32> room) {
  char* end = Decimals == 3 ? fmt::format_to(room.data(), FMT_COMPILE("{:.3f}"), seconds)
                            : fmt::format_to(room.data(), FMT_COMPILE("{:.6f}"), seconds);
  return {room.data(), static_cast<std::size_t>(end - room.data())};
}

} // namespace

// node_exporter's node_time_zone_offset_seconds: the zone as this process knows it (TZ, else
// /etc/localtime, read once), at the time of the read, so that a change to daylight saving time
// shows from the scrape after it.
void Scraper::append_time_zone(std::string& out, TextFormat format) const {
  std::time_t at = std::chrono::system_clock::to_time_t(read_time_);
  struct tm local {};
  if (::localtime_r(&at, &local) == nullptr)
    return;
  std::string labels;
  append_label(labels, "time_zone", local.tm_zone != nullptr ? local.tm_zone : "");
  std::array<char, 32> room;
  auto* end = fmt::format_to(room.data(), FMT_COMPILE("{}"), local.tm_gmtoff);
  out.append(own_header(Own::time_zone, format));
  append_sample(out, "kstat_time_zone_offset_seconds", labels,
                {room.data(), static_cast<std::size_t>(end - room.data())});
}

std::string Scraper::render(TextFormat format, Clock::duration took) const {
  std::string out; // sized by the exposition for its longest numbers: the slack holds the rest
  exposition_.render(snapshot_, out, format);
  auto failed = snapshot_.source_errors();
  if (!failed.empty()) {
    out.append(own_header(Own::scrape_error, format));
    for (const auto& [path, error] : failed) {
      std::string labels;
      append_label(labels, "source", path);
      append_sample(out, "kstat_scrape_error", labels, "1");
    }
  }
  // What node_exporter's time and uname collectors serve, which dashboards build on: uptime
  // (kstat_time_seconds - kstat_boot_time_seconds), the list of hosts (by nodename).
  std::array<char, 32> room;
  out.append(own_header(Own::time, format));
  append_sample(
      out, "kstat_time_seconds", "",
      seconds_text<3>(std::chrono::duration<double>(read_time_.time_since_epoch()).count(), room));
  append_time_zone(out, format);
  if (!uname_labels_.empty()) {
    out.append(own_header(Own::uname, format));
    append_sample(out, "kstat_uname_info", uname_labels_, "1");
  }
  out.append(own_header(Own::duration, format));
  append_sample(out, "kstat_scrape_duration_seconds", "",
                seconds_text<6>(std::chrono::duration<double>(took).count(), room));
  if (settings_.append_own)
    settings_.append_own(out, format);
  append_end(out, format);
  return out;
}

} // namespace opskit::counters
