// SPDX-License-Identifier: MIT
// Which runs of packages a rewrite of a dnf repository copies from the generation before and
// which it makes anew (see index/yum/runs.hpp), from the runs the store saved and the
// records changed since.
#include "tree/yum_plan.hpp"

#include <algorithm>
#include <tuple>

#include "layout/paths.hpp"

namespace opskit::repo::tree {

namespace {

YumEntry entry_of(const YumIdentity& id) {
  return {id.name, id.version, id.arch, {}, {}, 0, {}, 0};
}

bool same_identity(const YumEntry& a, const YumIdentity& b) {
  return a.name == b.name && a.evr == b.version && a.arch == b.arch;
}

YumIdentity identity_of(const YumEntry& e) {
  return {std::string(e.name), std::string(e.evr), std::string(e.arch)};
}

// The plan of a repository whose every run is made anew from `entries`.
RepositoryPlan plan_all(std::vector<YumEntry> entries) {
  RepositoryPlan plan;
  std::optional<YumIdentity> after;
  for (auto& run : yum_runs(std::move(entries))) {
    YumIdentity last = identity_of(run.entries.back());
    YumRunRecord record{last, run.key, run.packages};
    plan.add(std::move(run), after, last, std::move(record));
    after = std::move(last);
  }
  if (!plan.ranges.empty())
    plan.ranges.back().second.reset(); // the last run takes whatever follows
  return plan;
}

// The plan of repository `arch` from its saved runs and the identities changed since: the
// runs that hold a changed identity (and the run after one whose last package changed, which
// it may now join) are made anew from the rows between their neighbours, the others carried.
// Nothing when the saved runs cannot tell (a run made anew that does not end as a run must).
Result<std::optional<RepositoryPlan>> plan_since(const State& state, const std::string& dist,
                                                 std::string_view arch,
                                                 const std::vector<YumRunRecord>& saved,
                                                 const std::vector<YumIdentity>& changed,
                                                 YumRows& rows) {
  if (saved.empty()) { // an empty repository: whatever it holds now is made anew
    if (std::none_of(changed.begin(), changed.end(),
                     [&](const YumIdentity& id) { return belongs(id.arch, arch); }))
      return RepositoryPlan{};
    OPSKIT_TRY_ASSIGN(auto entries,
                      entries_between(state, dist, arch, std::nullopt, std::nullopt, rows));
    return plan_all(std::move(entries));
  }
  std::vector<YumEntry> lasts;
  for (const auto& run : saved)
    lasts.push_back(entry_of(run.last));
  std::vector<bool> anew(saved.size(), false);
  for (const auto& id : changed) {
    if (!belongs(id.arch, arch))
      continue;
    YumEntry e = entry_of(id);
    auto at =
        std::min(static_cast<std::size_t>(
                     std::lower_bound(lasts.begin(), lasts.end(), e, yum_before) - lasts.begin()),
                 saved.size() - 1); // after the last run's last: the last run
    anew[at] = true;
    if (same_identity(lasts[at], id) && at + 1 < saved.size())
      anew[at + 1] = true;
  }
  RepositoryPlan plan;
  for (std::size_t i = 0; i < saved.size();) {
    std::optional<YumIdentity> after;
    if (i > 0)
      after = saved[i - 1].last;
    if (!anew[i]) {
      std::optional<YumIdentity> upto;
      if (i + 1 < saved.size())
        upto = saved[i].last;
      plan.add({saved[i].key, saved[i].packages, {}}, after, upto, saved[i]);
      ++i;
      continue;
    }
    std::size_t end = i;
    while (end < saved.size() && anew[end])
      ++end;
    std::optional<YumIdentity> upto;
    if (end < saved.size())
      upto = saved[end - 1].last;
    OPSKIT_TRY_ASSIGN(auto entries, entries_between(state, dist, arch, after, upto, rows));
    if (upto && (entries.empty() || !yum_run_ends(entries.back())))
      return std::nullopt;
    RepositoryPlan part = plan_all(std::move(entries));
    for (std::size_t r = 0; r < part.runs.size(); ++r) {
      auto [low, high] = std::move(part.ranges[r]);
      plan.add(std::move(part.runs[r]), r == 0 ? after : std::move(low),
               r + 1 == part.runs.size() ? upto : std::move(high), std::move(part.records[r]));
    }
    i = end;
  }
  return plan;
}

// Past this many records changed since the runs were saved, reading every row costs less.
constexpr std::size_t k_most_changed = 512;

// The plan of each dnf repository of `dist` (by its directory's name) from the saved runs and
// the records changed since, when they tell it all: every repository there must be (`kept`)
// has its runs saved, and no package changed belongs to a new one.
Result<std::optional<std::map<std::string, RepositoryPlan>>>
plan_from_saved(const State& state, const std::string& dist, const YumTracked& tracked,
                const std::set<std::string>& kept, YumRows& rows) {
  if (tracked.changed.size() > k_most_changed)
    return std::nullopt;
  for (const auto& arch : kept)
    if (!tracked.runs.contains(arch))
      return std::nullopt;
  for (const auto& id : tracked.changed)
    if (id.arch != "noarch" &&
        !tracked.runs.contains(std::string(detail::rpm_repository_of(id.arch))))
      return std::nullopt;
  std::map<std::string, RepositoryPlan> plans;
  for (const auto& [arch, saved] : tracked.runs) {
    OPSKIT_TRY_ASSIGN(auto plan, plan_since(state, dist, arch, saved, tracked.changed, rows));
    if (!plan)
      return std::nullopt;
    plans.emplace(arch, std::move(*plan));
  }
  return plans;
}

} // namespace

// True if an rpm of `arch` goes into repository `repository`: its own, and noarch ones into
// each binary repository.
bool belongs(std::string_view arch, std::string_view repository) {
  return detail::rpm_repository_of(arch) == repository ||
         (arch == "noarch" && repository != detail::k_source_repository);
}

YumEntry entry_of(const YumRows& rows, std::size_t i) {
  const YumRows::Row& r = rows.rows[i];
  return {r.name, r.version, r.arch, r.sha256, r.file, r.size, {r.primary, r.filelists, r.other},
          i};
}

// The entries of repository `arch` of `dist` after `after` and up to `upto` (open where not
// given), read into `rows`.
Result<std::vector<YumEntry>> entries_between(const State& state, const std::string& dist,
                                              std::string_view arch,
                                              const std::optional<YumIdentity>& after,
                                              const std::optional<YumIdentity>& upto,
                                              YumRows& rows) {
  std::size_t first = rows.rows.size();
  std::optional<std::string_view> last_name;
  if (upto)
    last_name = upto->name;
  OPSKIT_TRY(state.yum_rows_between(dist, after ? after->name : "", last_name, rows));
  std::optional<YumEntry> low, high;
  if (after)
    low = entry_of(*after);
  if (upto)
    high = entry_of(*upto);
  std::vector<YumEntry> out;
  for (std::size_t i = first; i < rows.rows.size(); ++i) {
    YumEntry e = entry_of(rows, i);
    if (belongs(e.arch, arch) && (!low || yum_before(*low, e)) && (!high || !yum_before(*high, e)))
      out.push_back(e);
  }
  return out;
}

// The plan of each dnf repository of `dist`: in a rewrite from the saved runs where they tell
// it, else every run made anew from every row (with its fragments in a whole index). One
// repository per architecture of a package, and one for each in `kept`: those configured and
// those published, which stay when their last package of their own goes (their clients still
// read them, and noarch packages still belong to them). noarch packages belong to each binary
// repository, sources to SRPMS.
Result<DistPlan> plan_dist(const State& state, const std::string& dist,
                           const std::set<std::string>& kept, Reuse reuse, YumRows& rows) {
  if (reuse == Reuse::previous) {
    OPSKIT_TRY_ASSIGN(auto tracked, state.yum_tracked(dist));
    if (tracked) {
      OPSKIT_TRY_ASSIGN(auto plans, plan_from_saved(state, dist, *tracked, kept, rows));
      if (plans)
        return DistPlan{std::move(*plans), std::move(tracked->changed)};
    }
  }
  OPSKIT_TRY_ASSIGN(auto read, state.yum_rows(dist, reuse == Reuse::previous ? State::Text::none
                                                                             : State::Text::all));
  rows = std::move(read);
  std::set<std::string> arches = kept;
  for (const auto& r : rows.rows)
    if (r.arch != "noarch")
      arches.emplace(detail::rpm_repository_of(r.arch));
  std::map<std::string, RepositoryPlan> plans;
  for (const auto& arch : arches) {
    std::vector<YumEntry> entries;
    for (std::size_t i = 0; i < rows.rows.size(); ++i)
      if (belongs(rows.rows[i].arch, arch))
        entries.push_back(entry_of(rows, i));
    plans.emplace(arch, plan_all(std::move(entries)));
  }
  return DistPlan{std::move(plans), std::nullopt};
}

} // namespace opskit::repo::tree
