// SPDX-License-Identifier: MIT
// kstat's subcommands: call the counters library, render what it returns.
#include "commands.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <ctime>

#include <sys/ioctl.h>
#include <unistd.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "exit.hpp"
#include "opskit/probes/counters.hpp"
#include "opskit/probes/exposition.hpp"
#include "opskit/probes/watch.hpp"
#include "opskit/prometheus.hpp"
#include "opskit/table.hpp"

namespace opskit::cmd::kstat {

namespace {

using counters::Kind;
using counters::Value;

void error(std::string_view message) {
  print_error("kstat", message);
}

nlohmann::ordered_json to_json(const Value& value) {
  return std::visit([](const auto& v) { return nlohmann::ordered_json(v); }, value);
}

void write_out(std::string_view text) {
  std::fwrite(text.data(), 1, text.size(), stdout);
}

// The exit status for a run in which `failed` of `total` entries could not be read.
int status_for(std::size_t failed, std::size_t total) {
  if (failed == 0)
    return k_exit_ok;
  return failed == total ? k_exit_failure : k_exit_partial;
}

// The dotted prefix that `a` and `b` share ("proc.1.io.rchar", "proc.1.io.wchar" -> "proc.1.io").
std::string_view common_prefix(std::string_view a, std::string_view b) {
  std::size_t n = 0, last_dot = 0;
  while (n < a.size() && n < b.size() && a[n] == b[n]) {
    if (a[n] == '.')
      last_dot = n;
    ++n;
  }
  bool a_ends_component = n == a.size() && (n == b.size() || b[n] == '.');
  return a.substr(0, a_ends_component ? n : last_dot);
}

// One line per entry of `errors` that is set (entry i's failure, or null: nothing to tell);
// entries that failed alike (one unreadable file) share a line:
// "kstat: error: proc.1.io.*: open /proc/1/io: Permission denied".
void tell_errors(const counters::Snapshot& snapshot, const std::vector<const Error*>& errors) {
  for (std::size_t i = 0; i < errors.size();) {
    const Error* e = errors[i];
    if (e == nullptr) {
      ++i;
      continue;
    }
    std::size_t j = i + 1;
    std::string_view prefix = snapshot.info(i).name;
    while (j < errors.size() && errors[j] != nullptr && errors[j]->message() == e->message()) {
      prefix = common_prefix(prefix, snapshot.info(j).name);
      ++j;
    }
    if (j - i > 1 && !prefix.empty())
      error(fmt::format("{}.*: {}", prefix, e->message()));
    else
      for (std::size_t k = i; k < j; ++k)
        error(fmt::format("{}: {}", snapshot.info(k).name, e->message()));
    i = j;
  }
}

// Tells every failure of the snapshot's last read; returns how many entries failed.
std::size_t report_errors(const counters::Snapshot& snapshot) {
  std::vector<const Error*> errors;
  for (std::size_t i = 0; i < snapshot.size(); ++i)
    errors.push_back(snapshot.error(i));
  tell_errors(snapshot, errors);
  return static_cast<std::size_t>(std::ranges::count_if(errors, [](auto* e) { return e; }));
}

// For watch's samples: tells a failure when it begins or its message changes, not again at each
// sample; `said` holds the last message told of each entry, cleared when it reads again. Returns
// how many entries failed.
std::size_t report_new_errors(const counters::Snapshot& snapshot, std::vector<std::string>& said) {
  std::vector<const Error*> news;
  std::size_t failed = 0;
  for (std::size_t i = 0; i < snapshot.size(); ++i) {
    const Error* e = snapshot.error(i);
    failed += e != nullptr ? 1 : 0;
    std::string message = e != nullptr ? e->message() : "";
    news.push_back(message != said[i] ? e : nullptr);
    said[i] = std::move(message);
  }
  tell_errors(snapshot, news);
  return failed;
}

int run_read(const counters::Namespace& ns, const Options& options) {
  auto snapshot = ns.snapshot(options.names);
  if (!snapshot) {
    error(snapshot.error().message());
    return k_exit_failure;
  }
  snapshot->read();
  std::string out;
  nlohmann::ordered_json json = nlohmann::ordered_json::object();
  for (std::size_t i = 0; i < snapshot->size(); ++i) {
    if (snapshot->error(i) != nullptr)
      continue;
    const auto& info = snapshot->info(i);
    const Value& value = snapshot->value(i);
    switch (options.format) {
    case Format::text:
      out.append(info.name).append(": ").append(counters::format_value(value)).push_back('\n');
      break;
    case Format::values:
      out.append(counters::format_value(value)).push_back('\n');
      break;
    case Format::json:
      json[info.name] = to_json(value);
      break;
    case Format::prometheus:
      break;
    }
  }
  if (options.format == Format::json)
    out = json.dump(2) + "\n";
  if (options.format == Format::prometheus)
    counters::Exposition(*snapshot).render(*snapshot, out, TextFormat::prometheus);
  write_out(out);
  return status_for(report_errors(*snapshot), snapshot->size());
}

int run_list(const counters::Namespace& ns, const Options& options) {
  std::vector<std::string> prefixes = options.names;
  if (prefixes.empty())
    prefixes.emplace_back();
  auto snapshot = ns.snapshot(prefixes);
  if (!snapshot) {
    error(snapshot.error().message());
    return k_exit_failure;
  }
  // /proc/sys entries show their kind only once read.
  if (options.describe || options.format == Format::json)
    snapshot->read();
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
    out = json.dump(2) + "\n";
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
  return k_exit_ok;
}

int run_write(const counters::Namespace& ns, const Options& options) {
  int status = k_exit_ok;
  for (const auto& assignment : options.names) {
    auto eq = assignment.find('=');
    if (eq == std::string::npos || eq == 0) {
      error(fmt::format("'{}': expected NAME=VALUE", assignment));
      status = k_exit_usage;
      continue;
    }
    std::string name = assignment.substr(0, eq);
    std::string value = assignment.substr(eq + 1);
    auto before = ns.write(name, value);
    if (!before) {
      error(before.error().message());
      status = k_exit_failure;
      continue;
    }
    if (!*before) { // write-only: there is nothing to read back
      fmt::print("{}: {} (write-only)\n", name, value);
      continue;
    }
    std::string now = value;
    if (auto handle = ns.resolve(name))
      if (auto v = handle->read())
        now = counters::format_value(*v);
    fmt::print("{}: {} -> {}\n", name, counters::format_value(**before), now);
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
    write_out(json.dump(2) + "\n");
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

// --- watch ---

volatile std::sig_atomic_t g_stop = 0;
void on_stop(int) {
  g_stop = 1;
}

std::size_t terminal_width() {
  winsize ws{};
  if (::ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
    return ws.ws_col;
  return 0;
}

std::string format_reading(const counters::Reading& r) {
  if (r.is_rate)
    return r.rate ? fmt::format("{:.1f}", *r.rate) : "-";
  return r.value ? counters::format_value(*r.value) : "-";
}

int run_watch(const counters::Namespace& ns, const Options& options) {
  auto snapshot = ns.snapshot(options.names);
  if (!snapshot) {
    error(snapshot.error().message());
    return k_exit_failure;
  }
  counters::Watch watch(std::move(*snapshot));

  struct sigaction action {};
  action.sa_handler = on_stop;
  ::sigaction(SIGINT, &action, nullptr);
  ::sigaction(SIGTERM, &action, nullptr);

  const auto& snap = watch.snapshot();
  std::vector<std::size_t> widths;
  std::size_t total = 0;
  for (std::size_t i = 0; i < snap.size(); ++i) {
    widths.push_back(std::max<std::size_t>(snap.info(i).name.size(), 10));
    total += widths.back() + 1;
  }
  std::size_t width = terminal_width();
  bool columns = width > 0 ? total <= width : snap.size() <= 8;

  using Clock = std::chrono::steady_clock;
  auto interval = std::chrono::duration<double>(options.interval);
  watch.sample(0);
  auto last = Clock::now();
  auto next = last + std::chrono::duration_cast<Clock::duration>(interval);
  std::size_t failed_any = 0;
  std::vector<std::string> said(snap.size());
  for (std::size_t n = 0; !g_stop && (options.count == 0 || n < options.count); ++n) {
    auto wait = std::chrono::duration<double>(next - Clock::now()).count();
    if (wait > 0) {
      timespec ts{static_cast<time_t>(wait), static_cast<long>((wait - std::floor(wait)) * 1e9)};
      while (!g_stop && ::nanosleep(&ts, &ts) != 0 && errno == EINTR) {
      }
    }
    if (g_stop)
      break;
    auto now = Clock::now();
    double seconds = std::chrono::duration<double>(now - last).count();
    last = now;
    next += std::chrono::duration_cast<Clock::duration>(interval);
    const auto& readings = watch.sample(seconds);

    std::string out;
    if (options.format == Format::json) {
      nlohmann::ordered_json values = nlohmann::ordered_json::object();
      for (std::size_t i = 0; i < readings.size(); ++i) {
        const auto& r = readings[i];
        if (r.is_rate)
          values[snap.info(i).name] = r.rate ? nlohmann::ordered_json(*r.rate) : nullptr;
        else
          values[snap.info(i).name] = r.value ? to_json(*r.value) : nullptr;
      }
      nlohmann::ordered_json line = {
          {"time",
           std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
               .count()},
          {"interval_s", seconds},
          {"values", values}};
      out = line.dump() + "\n";
    } else if (columns) {
      if (n % 20 == 0) {
        for (std::size_t i = 0; i < snap.size(); ++i)
          out += fmt::format("{:>{}} ", snap.info(i).name, widths[i]);
        out.back() = '\n';
      }
      for (std::size_t i = 0; i < readings.size(); ++i)
        out += fmt::format("{:>{}} ", format_reading(readings[i]), widths[i]);
      out.back() = '\n';
    } else {
      out += fmt::format("--- {:.2f}s\n", seconds);
      for (std::size_t i = 0; i < readings.size(); ++i)
        out += fmt::format("{}: {}{}\n", snap.info(i).name, format_reading(readings[i]),
                           readings[i].is_rate ? "/s" : "");
    }
    write_out(out);
    std::fflush(stdout);
    failed_any += report_new_errors(snap, said);
  }
  return failed_any == 0 ? k_exit_ok : k_exit_partial;
}

} // namespace

int run(const Options& options) {
  counters::Namespace ns(options.proc_root, options.sys_root, options.rootfs);
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
