// SPDX-License-Identifier: MIT
// kstat's reader of /proc/sys entries: a whole file is one value, a number or text. The input
// is the texts of a few entries, separated by NUL bytes, written over the files of a tree whose
// names, snapshot and handles are made once (as `kstat serve` and `kstat watch` keep them); each
// entry is read by a resolved handle and through the snapshot, and both must give the file's
// text, trimmed, as a number when it is one.
#include "kstat_tree.hpp"
#include "opskit/probes/counters.hpp"
#include "opskit/probes/value.hpp"
#include "opskit/text.hpp"

using namespace opskit::counters;
using opskit::fuzz::check;

namespace {

constexpr std::pair<std::string_view, std::string_view> k_entries[] = {
    {"sys/vm/swappiness", "vm.swappiness"},
    {"sys/kernel/random/uuid", "kernel.random.uuid"},
    {"sys/fs/file-nr", "fs.file-nr"},
    {"sys/net/ipv4/conf/eth0.100/rp_filter", "net.ipv4.conf.eth0/100.rp_filter"},
    {"sys/kernel/printk", "kernel.printk"},
};

// The tree, and a snapshot of its entries and a handle on each, in the snapshot's order.
struct Readers {
  Readers();
  opskit::fuzz::KstatTree tree;
  std::optional<Snapshot> snapshot;
  std::vector<Handle> handles;
  std::vector<std::size_t> entry; // of k_entries, by the snapshot's order
};

Readers::Readers() {
  for (auto [file, name] : k_entries)
    tree.write(file, "0\n");
  Namespace ns(tree.proc(), tree.sys());
  // net.ipv4, not net: net.link is the live kernel's links, whatever the tree.
  auto made = ns.snapshot(std::vector<std::string>{"vm", "kernel", "fs", "net.ipv4"});
  check(made.has_value() && made->size() == std::size(k_entries),
        "the sysctl entries are not found");
  for (std::size_t i = 0; i < made->size(); ++i) {
    auto handle = ns.resolve(made->info(i).name);
    check(handle.has_value(), "a listed sysctl entry does not resolve");
    handles.push_back(std::move(*handle));
    for (std::size_t k = 0; k < std::size(k_entries); ++k)
      if (k_entries[k].second == made->info(i).name)
        entry.push_back(k);
  }
  check(entry.size() == std::size(k_entries), "a sysctl entry listed under another name");
  snapshot = std::move(*made);
}

// What a /proc/sys file holding `text` reads as.
std::string value_of(std::string_view text) {
  auto trimmed = opskit::trim(text);
  auto number = parse_number(trimmed);
  return number ? format_value(*number) : std::string(trimmed);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static Readers r;
  std::string_view input = opskit::fuzz::bytes_of(data, size);
  std::string_view texts[std::size(k_entries)];
  for (std::size_t k = 0; k < std::size(k_entries); ++k) {
    auto end = std::min(input.find('\0'), input.size());
    texts[k] = input.substr(0, end);
    r.tree.write(k_entries[k].first, texts[k]);
    input.remove_prefix(std::min(end + 1, input.size()));
  }
  r.snapshot->read();
  for (std::size_t i = 0; i < r.snapshot->size(); ++i) {
    check(r.snapshot->error(i) == nullptr, "a snapshot fails to read a sysctl entry");
    auto value = r.handles[i].read();
    check(value.has_value(), "a handle fails to read a sysctl entry");
    std::string read = format_value(*value);
    check(read == format_value(r.snapshot->value(i)),
          "a handle and a snapshot read different values");
    check(read == value_of(texts[r.entry[i]]), "a sysctl entry reads other than its text");
  }
  return 0;
}
