// SPDX-License-Identifier: MIT
// kstat's reader of the /proc files it knows (vmstat, meminfo, stat, loadavg, pressure,
// softirqs, interrupts, net/*, diskstats, a process's stat, status and io, mountinfo), fed the
// text itself: the first byte chooses the file, the rest is its text, read with the layout kstat
// reads that file with (net/softnet_stat, mdstat, net/stat/nf_conntrack, net/arp, net/udp and
// IPVS's two rendered first, and the rendering checked: a key and a fixed count of decimal numbers
// a line). What the lister finds must read back: the first record of each key (a name stands for
// it) that for_each_record() gives is found again by locate() at its offset, and all its columns at
// once by locate_columns() as a snapshot reads them, with the same tokens; in keyed lines, also
// from a stale hint, which is then moved to it. Each token converts alike through convert() and
// convert_into(), and a kB figure made bytes is 1024 times as many. The names, snapshot and
// exposition made from the same input, through files, are the kstat_namespace target's.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <unordered_set>
#include <vector>

#include "emitter.hpp"
#include "kstat_tree.hpp"
#include "opskit/probes/value.hpp"
#include "reader.hpp"
#include "sources.hpp"

using namespace opskit::counters;
using opskit::fuzz::check;

namespace {

bool same_layout(const Layout& a, const Layout& b) {
  return a.shape == b.shape && a.key_token == b.key_token && a.separators == b.separators &&
         a.after_paren == b.after_paren && a.header_line == b.header_line;
}

// The layouts kstat reads each of k_proc_files with (/proc/sys/fs/file-nr has two: a sysctl
// and kern.openfiles' line), taken from the fields it lists from a tree of their texts.
// mountinfo's fields are its mount points' statfs figures; mounts.cpp reads it as keyed lines.
std::vector<std::vector<Layout>> layouts_of_files() {
  opskit::fuzz::KstatTree tree;
  for (auto [file, sample] : opskit::fuzz::k_proc_files)
    tree.write(file, sample);
  auto fields = find_fields(Roots{tree.proc(), tree.sys()}, "");
  std::vector<std::vector<Layout>> layouts;
  for (const auto& file : opskit::fuzz::k_proc_files) {
    auto& of_file = layouts.emplace_back();
    if (file.path == "self/mountinfo")
      of_file.push_back(Layout{});
    std::string path = tree.proc() + "/" + std::string(file.path);
    for (const auto& field : fields)
      if (field.path == path && std::none_of(of_file.begin(), of_file.end(), [&](const Layout& l) {
            return same_layout(l, field.layout);
          }))
        of_file.push_back(field.layout);
    check(!of_file.empty(), "a file kstat lists no names from");
  }
  return layouts;
}

struct Listed {
  std::string_view key;
  std::vector<std::string_view> tokens;
  std::string_view rest;
  std::size_t offset = 0;
};

std::vector<Listed> records_of(std::string_view text, const Layout& layout) {
  std::vector<Listed> records;
  for_each_record(text, layout, [&](const Record& r) {
    records.push_back(Listed{r.key, {r.tokens.begin(), r.tokens.end()}, r.rest, r.offset});
  });
  return records;
}

bool same_value(const std::optional<Value>& a, const std::optional<Value>& b) {
  if (!a || !b)
    return !a && !b;
  const auto* x = std::get_if<double>(&*a);
  const auto* y = std::get_if<double>(&*b);
  if (x && y && std::isnan(*x))
    return std::isnan(*y);
  return *a == *b;
}

// A figure in kB made bytes is 1024 times the figure: exactly while that fits in 64 bits, as a
// real past that, never wrapped or left in kB.
void check_kilobytes(std::string_view token) {
  auto plain = convert(token, {});
  auto bytes = convert(token, {.multiply = 1024});
  check(plain.has_value() == bytes.has_value(), "a figure in kB is read but not made bytes");
  if (!plain)
    return;
  const auto* u = std::get_if<std::uint64_t>(&*plain);
  const auto* i = std::get_if<std::int64_t>(&*plain);
  if (u && *u <= std::numeric_limits<std::uint64_t>::max() / 1024)
    check(*bytes == Value(*u * 1024), "a figure in kB is not 1024 times as many bytes");
  else if (i && *i >= std::numeric_limits<std::int64_t>::min() / 1024)
    check(*bytes == Value(*i * 1024), "a figure in kB is not 1024 times as many bytes");
  else if (double want = *as_number(*plain) * 1024; !std::isnan(want))
    check(*bytes == Value(want), "a figure in kB is not 1024 times as many bytes");
}

// The conversions the sources use, each applied to every token.
void check_conversions(std::string_view token, std::uint16_t columns) {
  const Convert k_converts[] = {{},
                                {.text = true},
                                {.multiply = 1024},
                                {.divide = ticks_per_second()},
                                {.kind_from_value = true},
                                {.cp_time = true},
                                {.sum_columns = std::max<std::uint16_t>(columns, 1)},
                                {.hex = true},
                                {.human = true}};
  for (const auto& how : k_converts) {
    auto value = convert(token, how);
    Value into = std::string("untouched");
    bool converted = convert_into(token, how, into);
    check(converted == value.has_value(), "convert() and convert_into() disagree on a token");
    check(same_value(converted ? std::optional(into) : std::nullopt, value),
          "convert() and convert_into() give different values");
  }
  check_kilobytes(token);
}

void check_located(std::string_view text, const Layout& layout, const Listed& r, int column,
                   std::string_view want) {
  Locator at{std::string(r.key), column, r.offset};
  check(locate(text, layout, at) == want, "a listed field is not read back at its record");
}

// Every listed column of a record in one walk, as a snapshot reads a record's fields.
void check_columns(std::string_view text, const Layout& layout, const Listed& r,
                   const std::vector<int>& columns) {
  if (columns.empty())
    return;
  std::vector<std::string_view> tokens(columns.size());
  Locator at{std::string(r.key), columns.front(), r.offset};
  bool found = locate_columns(text, layout, at, columns, tokens);
  check(found, "a listed record is not found by locate_columns()");
  for (std::size_t k = 0; found && k < columns.size(); ++k)
    check(tokens[k] == r.tokens[static_cast<std::size_t>(columns[k])],
          "locate_columns() and the lister read a column differently");
}

void check_layout(std::string_view text, const Layout& layout) {
  auto records = records_of(text, layout);
  bool table = layout.shape == Layout::Shape::table;
  bool keyed = layout.shape == Layout::Shape::lines && layout.key_token >= 0;
  std::unordered_set<std::string_view> keys;
  for (const auto& r : records) {
    // A name stands for the first record of its key: a later one of the same name is dropped.
    if (!keys.insert(r.key).second)
      continue;
    auto columns = static_cast<std::uint16_t>(r.tokens.size());
    for (std::string_view token : r.tokens)
      check_conversions(token, columns);
    check_conversions(r.rest, columns);
    std::vector<int> listed;
    for (std::size_t i = 0; i < r.tokens.size(); ++i) {
      // A table's value line holds numbers: that is how the reader tells it from its header.
      std::string_view token = r.tokens[i];
      if (table && (token.empty() ||
                    !(std::isdigit(static_cast<unsigned char>(token[0])) || token[0] == '-')))
        continue;
      check_located(text, layout, r, static_cast<int>(i), token);
      listed.push_back(static_cast<int>(i));
    }
    if (keyed || table)
      check_columns(text, layout, r, listed);
    // A stale hint, as when a file's lines have moved since the names were listed (a scan of
    // the text: one column a record, or the check would be quadratic in its columns).
    if (keyed && !layout.header_line && !r.tokens.empty()) {
      Locator stale{std::string(r.key), static_cast<int>(r.tokens.size() - 1), 0};
      check(locate(text, layout, stale) == r.tokens.back(),
            "a field is not found again from a stale hint");
      check(stale.hint == r.offset, "a stale hint is not moved to the record");
    }
    if (!table)
      check_located(text, layout, r, -1, r.rest);
  }
}

// What a rendering makes of any text: lines of a key and `least` to `most` decimal numbers.
void check_rendered(std::string_view rendered, std::size_t least, std::size_t most) {
  check(rendered.empty() || rendered.back() == '\n', "a file rendered without a last newline");
  for (const auto& r : records_of(rendered, Layout{})) {
    check(r.tokens.size() >= least && r.tokens.size() <= most,
          "a file rendered a line short or long");
    for (std::string_view token : r.tokens)
      check(std::all_of(token.begin(), token.end(),
                        [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }),
            "a file rendered a figure that is not decimal");
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const auto layouts = layouts_of_files();
  auto [which, text] = opskit::fuzz::choose(opskit::fuzz::bytes_of(data, size),
                                            std::size(opskit::fuzz::k_proc_files));
  std::string rendered;
  std::string_view path = opskit::fuzz::k_proc_files[which].path;
  if (path == "net/softnet_stat") {
    text = detail::render_softnet(text, rendered);
    check_rendered(text, 5, 6); // the CPU, then five counts, or six with the backlog
  } else if (path == "mdstat") {
    text = detail::render_mdstat(text, rendered);
    check_rendered(text, 11, 11); // the array, then its eleven figures
  } else if (path == "net/stat/nf_conntrack") {
    text = detail::render_conntrack(text, rendered);
    check_rendered(text, 1, 1); // a column's name, then its sum
  } else if (path == "net/arp") {
    text = detail::render_arp(text, rendered);
    check_rendered(text, 1, 1); // an interface, then its count of entries
    std::string_view rest = text, last;
    while (!rest.empty()) {
      auto key = Tokens(next_line(rest), {}).next();
      check(key && (last.empty() || last < *key), "interfaces rendered out of order, or twice");
      last = key ? *key : last;
    }
  } else if (path == "net/udp") {
    text = detail::render_udp(text, rendered);
    check_rendered(text, 2, 2); // "queues", then the sums of tx and rx
  } else if (path == "net/ip_vs") {
    text = detail::render_ipvs(text, rendered);
    check_rendered(text, 3, 3); // a real server, then its weight and connections
  } else if (path == "net/ip_vs_stats") {
    text = detail::render_ipvs_stats(text, rendered);
    check_rendered(text, 0, 5); // "total", then the totals the third line has
  } else if (path == "spl/kstat/zfs/tank/state") {
    text = detail::render_zfs_state(text, rendered);
    check_rendered(text, 1, 1); // a state, then 1 or 0
    check(std::ranges::count(text, '\n') == 7, "a pool's state rendered as other than 7 flags");
  } else if (path == "spl/kstat/zfs/tank/io") {
    text = detail::render_zfs_io(text, rendered);
    check_rendered(text, 1, 1); // a column's name, then its value
  }
  for (const auto& layout : layouts[which])
    check_layout(text, layout);
  return 0;
}
