// SPDX-License-Identifier: MIT
// kstat's readers of the /proc files it knows (vmstat, meminfo, stat, loadavg, pressure,
// softirqs, interrupts, net/*, diskstats, a process's stat, status and io, mountinfo): the
// first byte chooses the file, the rest is its text. The names it makes are listed, read in a
// snapshot, printed and rendered as Prometheus and OpenMetrics text, as `kstat serve` does.
#include "kstat_tree.hpp"
#include "opskit/probes/counters.hpp"
#include "opskit/probes/exposition.hpp"
#include "opskit/probes/value.hpp"

using namespace opskit::counters;

namespace {

constexpr std::string_view k_files[] = {
    "vmstat",   "meminfo",    "stat",           "loadavg",     "pressure/cpu", "pressure/io",
    "softirqs", "interrupts", "sys/fs/file-nr", "net/snmp",    "net/netstat",  "net/snmp6",
    "net/dev",  "diskstats",  "self/stat",      "self/status", "self/io",      "self/mountinfo"};

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
  std::string out;
  exposition.render(*snapshot, out, opskit::TextFormat::prometheus);
  exposition.render(*snapshot, out, opskit::TextFormat::openmetrics);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const opskit::fuzz::KstatTree tree;
  auto [which, text] = opskit::fuzz::choose(opskit::fuzz::bytes_of(data, size), std::size(k_files));
  tree.write(k_files[which], text);
  read_all(Namespace(tree.proc(), tree.sys()));
  tree.remove(k_files[which]);
  return 0;
}
