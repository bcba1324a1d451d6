// SPDX-License-Identifier: MIT
#pragma once

// kstat's names as Prometheus metric families, in node_exporter's conventions: base units
// (seconds, bytes), "_total" on counters, labels for what varies
// (cpu.0.user -> kstat_cpu_seconds_total{cpu="0",mode="user"}). The mapping is a table of name
// patterns in exposition.cpp; a name no row covers still gets a legal family of its own.

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "opskit/probes/counters.hpp"
#include "opskit/prometheus.hpp"

namespace opskit::counters {

// Where one name goes: its family, its labels and the factor from kstat's unit to the family's.
struct Mapping {
  std::string family; // "kstat_disk_read_bytes_total"
  std::vector<std::pair<std::string, std::string>> labels;
  MetricType type = MetricType::gauge;
  std::string help;
  std::uint64_t multiply = 1; // sectors -> bytes: 512
  double divide = 1;          // milliseconds -> seconds: 1000
  // For a text entry: the label its text is the value of, in a sample of value 1.
  std::string text_label;
  bool words = false; // a sample for each blank-separated word of the text
};

// The mapping of a name, or nothing for names left out on purpose (cpu.all.*, the sum of the
// per-CPU lines, which PromQL's sum() gives) and for text but the annotations
// (hw.hwmon.<chip>.name: kstat_hwmon_chip_names{chip,chip_name} 1).
std::optional<Mapping> map_name(const Info& info);

// False for a name the mapping leaves out on purpose, whatever its kind: a scrape need not read
// it (cpu.all.user, kern.softirqs.TIMER.all, kern.cp_time).
bool exported(std::string_view name);

// A snapshot's entries grouped into families, made once per snapshot (after its first read,
// when the kinds of /proc/sys entries are known) and rendered after every read.
class Exposition {
public:
  explicit Exposition(const Snapshot& snapshot);
  Exposition() = default; // of no families

  // After Snapshot::erase_under(): leaves out the members of the entries erased, and follows
  // the others to where they moved (`moved_to`, as erase_under() gives it).
  void erase(std::span<const std::size_t> moved_to);
  // After Snapshot::append(): the members of `snapshot`'s entries from `first` on, read once, in
  // their families (new ones after the others), as the constructor places them.
  void add(const Snapshot& snapshot, std::size_t first);

  // Appends every family with the values of `snapshot`'s last read (the snapshot this was made
  // from), the annotations last; entries that failed are left out, and a family left empty is
  // not written. Does not end the body (append_end()). Keeps the annotations' last lines to
  // write them again while their texts stay the same: one render at a time (a scraper renders
  // under its lock).
  void render(const Snapshot& snapshot, std::string& out, TextFormat format) const;

private:
  struct Member {
    std::size_t entry;
    // The sample up to its value, name{labels} and a space: heads_ from head_at, head_size long.
    std::uint32_t head_at, head_size;
    std::uint64_t multiply;
    double divide;
  };
  struct Family {
    std::string name;
    MetricType type;
    std::array<std::string, 2> headers; // "# HELP" and "# TYPE", by TextFormat
    std::vector<Member> members;
  };
  // An annotation family: a sample of value 1 for each label set, with each of its entries'
  // texts the value of a label of its own (node_network_info{device,operstate,address,...}).
  struct TextMember {
    std::string labels;                                     // the others, written
    std::vector<std::pair<std::size_t, std::string>> texts; // entry, label
    // The texts the member's lines were last written with (nothing for one not read), and the
    // lines: the same again while the texts are (an interface's addresses, os-release).
    mutable std::vector<std::optional<std::string>> written_texts;
    mutable std::string lines;
  };
  struct TextFamily {
    std::string name;
    std::array<std::string, 2> headers;
    std::vector<TextMember> members;
    bool words = false; // a sample for each word of a text, not one for its texts
  };
  void render_texts(const Snapshot& snapshot, std::string& out, TextFormat format) const;
  void lay_out(std::span<const std::size_t> before, const std::string& fresh);
  std::vector<std::size_t> member_counts() const; // by family

  std::vector<Family> families_;
  std::vector<TextFamily> text_families_;
  // Where each family is: by the name OpenMetrics gives it; an annotation family by its name,
  // and its members by the family's name and their labels.
  std::unordered_map<std::string, std::size_t> by_name_;
  std::unordered_map<std::string, std::size_t> texts_by_name_;
  std::unordered_map<std::string, std::size_t> text_samples_;
  std::string heads_;                 // every member's head, in the order written
  std::array<std::size_t, 2> most_{}; // the longest body render() can write, by TextFormat
};

} // namespace opskit::counters
