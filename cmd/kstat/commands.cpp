// SPDX-License-Identifier: MIT
// kstat's subcommands: call the counters library, render what it returns.
#include "commands.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include <malloc.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "exit.hpp"
#include "opskit/file.hpp"
#include "opskit/probes/counters.hpp"
#include "opskit/probes/exposition.hpp"
#include "opskit/probes/watch.hpp"
#include "opskit/prometheus.hpp"
#include "opskit/table.hpp"
#include "output.hpp"
#include "watch.hpp"

namespace opskit::cmd::kstat {

namespace {

using counters::Kind;
using counters::Value;

// The exit status for a run in which `failed` of `total` entries could not be read.
int status_for(std::size_t failed, std::size_t total) {
  if (failed == 0)
    return k_exit_ok;
  return failed == total ? k_exit_failure : k_exit_partial;
}

// For a command that runs once and exits: what it frees is kept for what it allocates next,
// where malloc gives a block over 128 KiB its own mmap(2) and the heap's free top back to the
// kernel, and each is faulted in again at the next use. The names' vectors are megabytes where
// names run to tens of thousands: `kstat read cgroup` of 31,000 names took 10,100 page faults
// and 208 ms, and takes 6,400 and 159 ms.
void keep_freed_memory() {
  constexpr int k_largest = 32 << 20; // the most glibc takes for either
  ::mallopt(M_MMAP_THRESHOLD, k_largest);
  ::mallopt(M_TRIM_THRESHOLD, k_largest);
}

// --timeout from now.
std::chrono::steady_clock::time_point deadline(const Options& options) {
  return std::chrono::steady_clock::now() + seconds_option(options.timeout);
}

// The lines of `text`, one empty one for no text.
std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> lines;
  for (std::size_t start = 0;;) {
    std::size_t end = text.find('\n', start);
    lines.push_back(text.substr(start, end - start));
    if (end == std::string_view::npos)
      return lines;
    start = end + 1;
  }
}

int run_read(const counters::Namespace& ns, const Options& options) {
  std::size_t unknown = 0;
  auto snapshot = known_names(ns, options.names, deadline(options), unknown);
  if (!snapshot)
    return k_exit_failure;
  snapshot->read(deadline(options));
  std::string out;
  JsonMembers json;
  for (std::size_t i = 0; i < snapshot->size(); ++i) {
    if (snapshot->error(i) != nullptr)
      continue;
    const auto& info = snapshot->info(i);
    const Value& value = snapshot->value(i);
    switch (options.format) {
    case Format::text: { // a value of several lines, a line each under its name, as sysctl does
      std::string text = counters::format_value(value);
      for (std::string_view line : lines_of(text))
        out.append(info.name).append(": ").append(line).push_back('\n');
      break;
    }
    case Format::values:
      out.append(counters::format_value(value)).push_back('\n');
      break;
    case Format::json:
      json.emplace_back(info.name, to_json(value));
      break;
    case Format::prometheus:
      break;
    }
  }
  if (options.format == Format::json)
    out = json_text(json_object(std::move(json)));
  if (options.format == Format::prometheus)
    counters::Exposition(*snapshot).render(*snapshot, out, TextFormat::prometheus);
  write_out(out);
  int status = status_for(report_errors(*snapshot), snapshot->size());
  return unknown > 0 ? k_exit_failure : status;
}

int run_list(const counters::Namespace& ns, const Options& options) {
  std::vector<std::string> prefixes = options.names;
  if (prefixes.empty())
    prefixes.emplace_back();
  std::size_t unknown = 0;
  auto snapshot = known_names(ns, prefixes, deadline(options), unknown);
  if (!snapshot)
    return k_exit_failure;
  // /proc/sys entries show their kind only once read.
  if (options.describe || options.format == Format::json)
    snapshot->read(deadline(options));
  std::string out;
  if (options.format == Format::json) {
    auto json = nlohmann::ordered_json::array();
    for (std::size_t i = 0; i < snapshot->size(); ++i) {
      const auto& info = snapshot->info(i);
      nlohmann::ordered_json entry = {{"name", info.name},
                                      {"kind", counters::to_string(info.kind)},
                                      {"unit", info.unit},
                                      {"description", info.description}};
      for (const auto& [label, value] : info.labels)
        entry["labels"][label] = value;
      json.push_back(std::move(entry));
    }
    out = json_text(json);
  } else if (options.describe) {
    Table table({{"NAME"}, {"KIND"}, {"UNIT"}, {"DESCRIPTION"}});
    for (std::size_t i = 0; i < snapshot->size(); ++i) {
      const auto& info = snapshot->info(i);
      table.add_row(
          {info.name, std::string(counters::to_string(info.kind)), info.unit, info.description});
    }
    out = table.render();
  } else {
    for (std::size_t i = 0; i < snapshot->size(); ++i)
      out.append(snapshot->info(i).name).push_back('\n');
  }
  write_out(out);
  bool whole_proc = std::any_of(prefixes.begin(), prefixes.end(),
                                [](const auto& p) { return p.empty() || p == "proc"; });
  if (whole_proc && options.format != Format::json) // like sysctl -a, no walk of every process
    std::fputs("kstat: processes other than proc.self are listed by pid: kstat list proc.1234\n",
               stderr);
  return unknown > 0 ? k_exit_failure : k_exit_ok;
}

int run_write(const counters::Namespace& ns, const Options& options) {
  // Every assignment is checked, and every name, before the first is written: a mistake of the
  // command line changes nothing. Only the kernel judges a value.
  std::vector<std::pair<std::string, std::string>> assignments; // name, value
  bool malformed = false;
  for (const auto& assignment : options.names)
    if (auto eq = assignment.find('='); eq == std::string::npos || eq == 0) {
      error(fmt::format("'{}': expected NAME=VALUE", assignment));
      malformed = true;
    } else {
      assignments.emplace_back(assignment.substr(0, eq), assignment.substr(eq + 1));
    }
  if (malformed)
    return k_exit_usage;
  bool refused = false; // a name that is unknown or read-only: nothing is written
  for (const auto& [name, value] : assignments)
    if (auto ok = ns.writable(name); !ok) {
      error(ok.error().message());
      refused = true;
    }
  if (refused)
    return k_exit_failure;
  int status = k_exit_ok;
  for (const auto& [name, value] : assignments) {
    auto written = ns.write(name, value);
    if (!written) {
      error(written.error().message());
      status = k_exit_failure;
      continue;
    }
    if (!written->before) { // write-only: there is nothing to read back
      fmt::print("{}: {} (write-only)\n", name, value);
    } else {
      std::string now = value;
      if (auto handle = ns.resolve(name))
        if (auto v = handle->read())
          now = counters::format_value(*v);
      fmt::print("{}: {} -> {}\n", name, counters::format_value(*written->before), now);
    }
    if (!written->ignored.empty()) { // what it took is set: said above, and this is an error
      error(fmt::format("{} = {}: the kernel ignored '{}'", name, value, written->ignored));
      status = k_exit_failure;
    }
  }
  return status;
}

int run_bench(const counters::Namespace& ns, const Options& options) {
  const std::string& name = options.names.front();
  auto r = counters::bench(ns, name, options.iterations);
  if (!r) {
    error(r.error().message());
    return k_exit_failure;
  }
  if (options.format == Format::json) {
    nlohmann::ordered_json json = {{"name", name},
                                   {"iterations", r->iterations},
                                   {"by_name_ns", r->by_name_ns},
                                   {"handle_ns", r->handle_ns},
                                   {"snapshot_ns", r->snapshot_ns},
                                   {"snapshot_names", r->snapshot_names}};
    write_out(json_text(json));
    return k_exit_ok;
  }
  Table table({{"METHOD"}, {"NS/READ", Align::right}, {"VS HANDLE", Align::right}});
  auto row = [&](std::string method, double ns_per_read) {
    table.add_row({std::move(method), fmt::format("{:.0f}", ns_per_read),
                   fmt::format("{:.2f}x", ns_per_read / r->handle_ns)});
  };
  row("by name: resolve, read, close", r->by_name_ns);
  row("resolved handle: pread + parse", r->handle_ns);
  row(fmt::format("snapshot of its source file ({} name{})", r->snapshot_names,
                  r->snapshot_names == 1 ? "" : "s"),
      r->snapshot_ns);
  fmt::print("{}, {} reads per method\n{}", name, r->iterations, table.render());
  return k_exit_ok;
}

} // namespace

std::optional<counters::Snapshot> known_names(const counters::Namespace& ns,
                                              std::span<const std::string> names,
                                              std::chrono::steady_clock::time_point found_by,
                                              std::size_t& unknown,
                                              std::vector<std::string>* known) {
  auto snapshot = ns.snapshot(names, {}, found_by);
  std::vector<std::string> found;
  if (snapshot || names.size() < 2) {
    found.assign(names.begin(), names.end());
  } else {
    for (const auto& name : names) {
      if (auto one = ns.snapshot(std::span(&name, 1), {}, found_by)) {
        found.push_back(name);
      } else {
        error(one.error().message());
        ++unknown;
      }
    }
    if (found.empty())
      return std::nullopt;
    snapshot = ns.snapshot(found, {}, found_by);
  }
  if (!snapshot) {
    error(snapshot.error().message());
    return std::nullopt;
  }
  if (known)
    *known = std::move(found);
  return std::move(*snapshot);
}

int run(const Options& options) {
  raise_open_file_limit(); // a snapshot holds each source file open: five for each cgroup
  counters::Namespace ns(options.proc_root, options.sys_root, options.rootfs);
  if (options.command == "read" || options.command == "list")
    keep_freed_memory();
  if (options.command == "read")
    return run_read(ns, options);
  if (options.command == "list")
    return run_list(ns, options);
  if (options.command == "watch")
    return run_watch(ns, options);
  if (options.command == "write")
    return run_write(ns, options);
  return run_bench(ns, options);
}

} // namespace opskit::cmd::kstat
