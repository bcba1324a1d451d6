// SPDX-License-Identifier: MIT
// kstat's namespace made from the /proc files it knows, the input of the kstat_proc target
// written to a copy of /proc: the first byte chooses the file, the rest is its text. The names
// it makes are listed, read in a snapshot, printed and rendered as Prometheus and OpenMetrics
// text, as `kstat serve` does. Each body must be one a scraper takes: UTF-8 throughout, legal
// metric names, and each family and each series written once.
#include <algorithm>
#include <unordered_set>

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
