// SPDX-License-Identifier: MIT
// kstat's namespace made from the /proc files it knows, the input of the kstat_proc target
// written to a copy of /proc: the first byte chooses the file, the rest is its text. The names
// it makes are listed, read in a snapshot, printed and rendered as Prometheus and OpenMetrics
// text, as `kstat serve` does. Each body must be one a scraper takes: UTF-8 throughout, legal
// metric names, and each family and each series written once. Then a subtree of the snapshot is
// erased and found again alone, as a cgroup made is: the same names, a body as good.
#include <algorithm>
#include <set>
#include <string>
#include <unordered_set>
#include <vector>

#include "kstat_tree.hpp"
#include "opskit/probes/counters.hpp"
#include "opskit/probes/exposition.hpp"
#include "opskit/probes/value.hpp"
#include "opskit/text.hpp"

using namespace opskit::counters;
using opskit::fuzz::check;

namespace {

bool is_metric_name(std::string_view name) {
  auto legal = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == ':';
  };
  return !name.empty() && !(name[0] >= '0' && name[0] <= '9') &&
         std::all_of(name.begin(), name.end(), legal);
}

void check_body(std::string_view body) {
  check(opskit::is_utf8(body), "an exposition body that is not UTF-8");
  std::unordered_set<std::string_view> families, series;
  while (!body.empty()) {
    std::string_view line = body.substr(0, body.find('\n'));
    body.remove_prefix(std::min(line.size() + 1, body.size()));
    if (line.starts_with("# TYPE ")) {
      std::string_view family = line.substr(7, line.find(' ', 7) - 7);
      check(is_metric_name(family), "a family name that is not a legal metric name");
      check(families.insert(family).second, "a family written twice");
    } else if (!line.starts_with("#")) {
      std::string_view sample = line.substr(0, line.rfind(' '));
      check(is_metric_name(sample.substr(0, sample.find('{'))),
            "a sample name that is not a legal metric name");
      check(series.insert(sample).second, "a series written twice");
    }
  }
}

// The names under the parent of the snapshot's middle name erased and found again alone
// (Namespace::snapshot_under()), as a cgroup made is: the snapshot then holds the names it held,
// and renders as one a scraper takes.
void find_again(const Namespace& ns, Snapshot& snapshot) {
  if (snapshot.size() == 0)
    return;
  const std::string& middle = snapshot.info(snapshot.size() / 2).name;
  std::string prefix = middle.substr(0, middle.rfind('.'));
  std::vector<std::string> all{""};
  std::vector<Selection> selections{{all, {}}};
  auto again = ns.snapshot_under(selections, prefix);
  check(again.has_value(), "a subtree that the whole namespace holds found with an error");
  auto names = [](const Snapshot& s) {
    std::multiset<std::string> out;
    for (std::size_t i = 0; i < s.size(); ++i)
      out.insert(s.info(i).name);
    return out;
  };
  auto before = names(snapshot);
  Exposition exposition(snapshot);
  std::vector<std::size_t> moved_to;
  snapshot.erase_under(std::span(&prefix, 1), moved_to);
  exposition.erase(moved_to);
  again->read();
  std::size_t first = snapshot.size();
  snapshot.append(std::move(*again));
  exposition.add(snapshot, first);
  snapshot.read();
  check(names(snapshot) == before, "names erased and found again differ from those found first");
  // The families kept in place serve what families made anew would.
  auto samples = [&](const Exposition& families) {
    std::string body;
    families.render(snapshot, body, opskit::TextFormat::prometheus);
    check_body(body);
    std::multiset<std::string> out;
    for (std::size_t at = 0; at < body.size();) {
      std::size_t end = body.find('\n', at);
      std::string line = body.substr(at, end - at);
      if (!line.starts_with("#"))
        out.insert(std::move(line));
      at = end + 1;
    }
    return out;
  };
  check(samples(exposition) == samples(Exposition(snapshot)),
        "families kept in place differ from families made anew");
}

void read_all(const Namespace& ns) {
  auto names = ns.list("");
  if (!names)
    return;
  auto snapshot = ns.snapshot(std::vector<std::string>{""});
  if (!snapshot)
    return;
  snapshot->read();
  for (std::size_t i = 0; i < snapshot->size(); ++i)
    if (snapshot->error(i) == nullptr)
      (void)format_value(snapshot->value(i));
  Exposition exposition(*snapshot);
  for (auto format : {opskit::TextFormat::prometheus, opskit::TextFormat::openmetrics}) {
    std::string body;
    exposition.render(*snapshot, body, format);
    opskit::append_end(body, format);
    check_body(body);
  }
  find_again(ns, *snapshot);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const opskit::fuzz::KstatTree tree;
  const auto& files = opskit::fuzz::k_proc_files;
  auto [which, text] = opskit::fuzz::choose(opskit::fuzz::bytes_of(data, size), std::size(files));
  tree.write(files[which].path, text);
  read_all(Namespace(tree.proc(), tree.sys()));
  tree.remove(files[which].path);
  return 0;
}
