// SPDX-License-Identifier: MIT
#pragma once

// How a source file's records become fields: the Emitter that builds them, and the table entry
// (SourceSpec) that says which file feeds which prefix and how its records are enumerated.

#include <array>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "reader.hpp"
#include "sources.hpp"

namespace opskit::counters {

// Builds the fields of one source, filling in what metadata knows of each name.
class Emitter {
public:
  Emitter(const Roots& roots, std::string path, Layout layout, std::string_view prefix,
          std::vector<Field>& out, Reader reader = Reader::pread)
      : roots_(roots), path_(std::move(path)), layout_(layout), prefix_(prefix), out_(out),
        reader_(reader) {}

  // Adds the field `name` unless it lies outside the prefix, and returns its Info to add to
  // (nullptr when left out). `pattern` is the name with its variable parts as '*' (or the name
  // itself): metadata known for it overrides `kind` and `unit`.
  Info* emit(std::string name, std::string_view pattern, Kind kind, std::string_view unit,
             Locator locator, Convert convert = {});

  // An emitter of fields from another source, into the same list.
  Emitter with_source(std::string path, Layout layout, Reader reader = Reader::pread) const {
    return Emitter(roots_, std::move(path), layout, prefix_, out_, reader);
  }

  const Roots& roots() const noexcept { return roots_; }
  const std::string& path() const noexcept { return path_; }
  std::string_view prefix() const noexcept { return prefix_; }

private:
  const Roots& roots_;
  std::string path_;
  Layout layout_;
  std::string_view prefix_;
  std::vector<Field>& out_;
  Reader reader_;
};

// Sorts `fields` by name in natural order (natural_less()), keeping the order of equal names.
// Sorted by index, each field moved twice: a field is some 300 bytes, and a cgroup hierarchy's
// names are tens of thousands (cgroups.cpp sorts them as it finds them: here looked over once).
void sort_by_name(std::span<Field> fields);

// `a.b`: a name and a component under it, joined without a format string to parse (cgroups'
// names are tens of thousands).
inline std::string dotted_name(std::string_view a, std::string_view b) {
  std::string out;
  out.reserve(a.size() + 1 + b.size());
  out.append(a).append(1, '.').append(b);
  return out;
}

// The most common layout: keyed lines ("pgfault 123").
inline constexpr Layout k_lines{};
inline constexpr Layout k_fixed_lines{.fixed_lines = true};
// Keyed lines the kernel writes as one record (single_open(): /proc/meminfo, /proc/<pid>/status).
inline constexpr Layout k_one_record{.end = Layout::End::first_read};
// A file that is one value (a cgroup's memory.current, a sysfs attribute).
inline constexpr Layout k_one_value{.shape = Layout::Shape::whole};

// Turns one record of a source into fields; `base` is the prefix the source's names start with.
using Enumerate = void (*)(const Record&, std::string_view base, Emitter&);

// A sysfs file of one value, and what it is (the hardware's under "hw", a Btrfs file system's).
struct HwFile {
  std::string_view file;
  Kind kind;
  std::string_view unit;
  std::string_view description;
  Layout layout = k_one_value; // "4: ACTIVE" read for its number: {.key_token = -1, ...}
  Convert convert = {};        // Fibre Channel's hexadecimal
};

// <base>.<file> for each of `files` in `dir` that exists (and, for `probe`, reads now: a
// sensor's), the pattern <pattern>.<file>, and `labels` on each (hardware.cpp). Each is read as
// Reader::driver: a file its driver answers, which may sleep on the hardware.
void emit_files(const Roots& roots, std::string_view prefix, const std::string& dir,
                std::string_view base, std::string_view pattern, std::span<const HwFile> files,
                const std::vector<std::pair<std::string, std::string>>& labels,
                std::vector<Field>& out, bool probe = false);

// /proc/net/rpc/nfs's and nfsd's records: the NFS client's and server's RPC statistics (nfs.cpp).
void enumerate_nfs(const Record& r, std::string_view base, Emitter& e);
void enumerate_nfsd(const Record& r, std::string_view base, Emitter& e);

// A file at a fixed place and the prefixes its names fall under.
struct SourceSpec {
  std::array<std::string_view, 2> prefixes; // unused slots are empty
  std::string_view file;                    // under the proc root, or under /proc/<pid>
  Layout layout;
  Enumerate enumerate;
  // Names to offer when the file cannot be read (permission), so the failure shows per name.
  std::span<const std::string_view> fallback_keys = {};
};

// A column of a source rendered as keyed lines (softnet_stat, mdstat, the links): its name's last
// component, kind, unit and description.
struct ColumnSpec {
  std::string_view name;
  Kind kind;
  std::string_view unit;
  std::string_view description;
  Convert convert = {};
};

// The fields of such a source's `text`: <base>.<key>.<column> for each line and column, the key
// written as a name component. A "-" is a figure the kernel does not give: no field.
void emit_columns(std::string_view text, std::string_view base, std::span<const ColumnSpec> columns,
                  Emitter& emitter);

// A file rendered before it is read (detail::is_rendered()), read and rendered now; nothing when
// it cannot be read.
std::optional<std::string> read_rendered(const std::string& path, Reader reader);

// The fields of such a file under the proc root, named under `base`.
void find_rendered(const Roots& roots, std::string_view prefix, std::string_view file,
                   Reader reader, std::string_view base, std::span<const ColumnSpec> columns,
                   std::vector<Field>& out);

// Does a source under `source_prefix` have names that `prefix` lists or resolves?
bool related(std::string_view prefix, std::string_view source_prefix) noexcept;

// Reads the emitter's file and enumerates its records into it, or offers the spec's fallback
// keys when the file cannot be read.
void read_source(const SourceSpec& spec, std::string_view base, Emitter& emitter);

// USER_HZ: the unit of /proc/stat's and /proc/<pid>/stat's times.
double ticks_per_second();

} // namespace opskit::counters
