// SPDX-License-Identifier: MIT
#pragma once

// The plan of a rewrite of a dist's dnf repositories: for each repository, its runs of packages
// (index/yum/runs.hpp), each carried from the generation before or made anew. Not installed.

#include <algorithm>
#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "opskit/error.hpp"
#include "opskit/repo/index/yum/runs.hpp"
#include "opskit/repo/store/state.hpp"

namespace opskit::repo::tree {

// Where a rewrite starts from: Reuse::previous copies the unchanged runs of the generation
// before (push, rm, prune); Reuse::none makes every run anew, so that a full index also repairs
// damaged files.
enum class Reuse { none, previous };

// True if an rpm of `arch` goes into repository `repository`: its own, and noarch ones into
// each binary repository.
bool belongs(std::string_view arch, std::string_view repository);

// Row `i` of `rows` as the index writer takes it, with `i` as its source.
YumEntry entry_of(const YumRows& rows, std::size_t i);

// What a rewrite builds one dnf repository from: its runs, each carried (key and size from
// the saved run) or made anew from rows read, and what to save of them for the next one.
struct RepositoryPlan {
  std::vector<YumRun> runs;
  std::vector<YumRunRecord> records;
  // For each run, the identities it lies after (exclusive) and up to (inclusive), which
  // find its rows again when a carried run must be compressed anew.
  std::vector<std::pair<std::optional<YumIdentity>, std::optional<YumIdentity>>> ranges;
  std::size_t packages = 0;

  void add(YumRun run, std::optional<YumIdentity> after, std::optional<YumIdentity> upto,
           YumRunRecord record) {
    packages += run.packages;
    runs.push_back(std::move(run));
    ranges.emplace_back(std::move(after), std::move(upto));
    records.push_back(std::move(record));
  }
};

// The entries of repository `arch` of `dist` after `after` and up to `upto` (open where not
// given), read into `rows`.
Result<std::vector<YumEntry>> entries_between(const State& state, const std::string& dist,
                                              std::string_view arch,
                                              const std::optional<YumIdentity>& after,
                                              const std::optional<YumIdentity>& upto,
                                              YumRows& rows);

// The plans of a dist's dnf repositories, by directory name, and when they come from saved
// runs, the identities changed since, sorted.
struct DistPlan {
  std::map<std::string, RepositoryPlan> repositories;
  std::optional<std::vector<YumIdentity>> changed;

  // True unless `r`'s record is known not to have changed since the runs were saved.
  bool changed_since(const YumRows::Row& r) const {
    if (!changed)
      return true;
    using Key = std::tuple<std::string_view, std::string_view, std::string_view>;
    auto key = [](const auto& x) { return Key(x.name, x.version, x.arch); };
    auto it = std::lower_bound(changed->begin(), changed->end(), key(r),
                               [&](const YumIdentity& id, const Key& k) { return key(id) < k; });
    return it != changed->end() && key(*it) == key(r);
  }
};

// The plan of each dnf repository of `dist`: in a rewrite from the saved runs where they tell
// it, else every run made anew from every row (with its fragments in a whole index). One
// repository per architecture of a package, and one for each in `kept`: those configured and
// those published, which stay when their last package of their own goes (their clients still
// read them, and noarch packages still belong to them). noarch packages belong to each binary
// repository, sources to SRPMS.
Result<DistPlan> plan_dist(const State& state, const std::string& dist,
                           const std::set<std::string>& kept, Reuse reuse, YumRows& rows);

} // namespace opskit::repo::tree
