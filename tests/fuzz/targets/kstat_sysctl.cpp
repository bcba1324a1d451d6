// SPDX-License-Identifier: MIT
// kstat's reader of /proc/sys entries: a whole file is one value, a number or text. The input
// is the texts of a few entries, separated by NUL bytes; each is read by name through a
// resolved handle and through a snapshot of the tree, and both must agree.
#include "kstat_tree.hpp"
#include "opskit/probes/counters.hpp"
#include "opskit/probes/value.hpp"

using namespace opskit::counters;

namespace {

constexpr std::pair<std::string_view, std::string_view> k_entries[] = {
    {"sys/vm/swappiness", "vm.swappiness"},
    {"sys/kernel/random/uuid", "kernel.random.uuid"},
    {"sys/fs/file-nr", "fs.file-nr"},
    {"sys/net/ipv4/conf/eth0.100/rp_filter", "net.ipv4.conf.eth0/100.rp_filter"},
    {"sys/kernel/printk", "kernel.printk"},
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const opskit::fuzz::KstatTree tree;
  std::string_view input = opskit::fuzz::bytes_of(data, size);
  for (auto [file, name] : k_entries) {
    auto end = std::min(input.find('\0'), input.size());
    tree.write(file, input.substr(0, end));
    input.remove_prefix(std::min(end + 1, input.size()));
  }
  Namespace ns(tree.proc(), tree.sys());
  auto snapshot = ns.snapshot(std::vector<std::string>{"vm", "kernel", "fs", "net"});
  opskit::fuzz::check(snapshot.has_value(), "the sysctl entries are not found");
  snapshot->read();
  for (std::size_t i = 0; i < snapshot->size(); ++i) {
    auto handle = ns.resolve(snapshot->info(i).name);
    if (!handle)
      continue; // a name of kern.*, made from fs.file-nr, and not under these prefixes
    auto value = handle->read();
    bool both = value.has_value() && snapshot->error(i) == nullptr;
    if (both)
      opskit::fuzz::check(format_value(*value) == format_value(snapshot->value(i)),
                          "a handle and a snapshot read different values");
  }
  return 0;
}
