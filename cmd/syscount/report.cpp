// SPDX-License-Identifier: MIT
#include "report.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "json_text.hpp"
#include "opskit/table.hpp"
#include "opskit/text.hpp"

namespace opskit::cmd::syscount {

namespace {

using trace::errno_name;
using trace::ErrnoCount;

std::string errno_list(const std::vector<ErrnoCount>& errnos) {
  std::string out;
  for (const auto& e : errnos)
    out += fmt::format("{}{} {}", out.empty() ? "" : ", ", errno_name(e.err), e.count);
  return out;
}

// A path as the tables show it: its backslashes doubled, so that the "\n" a table writes for a
// newline is told apart from a name's own backslash and n.
std::string shown(std::string_view path) {
  std::string out;
  for (char c : path) {
    if (c == '\\')
      out += '\\';
    out += c;
  }
  return out;
}

std::string seconds(double s) {
  return fmt::format("{:.6f}", s);
}

// The command as a shell would take it back: a word with anything but [A-Za-z0-9_./=:,+@%-]
// in single quotes, control characters escaped (a newline shows as \n).
std::string command_line(const RunInfo& run) {
  auto plain = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || std::strchr("_./=:,+@%-", c) != nullptr;
  };
  std::string out;
  for (const auto& word : run.command) {
    if (!out.empty())
      out += ' ';
    if (!word.empty() && std::all_of(word.begin(), word.end(), plain)) {
      out += word;
      continue;
    }
    out += '\'';
    for (char c : word)
      out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    out += '\'';
  }
  return printable(out);
}

// `line` cut to `width` bytes (0: no limit), marked "..." at the end where it was cut.
std::string fit(std::string line, std::size_t width) {
  if (width > 3 && line.size() > width) {
    std::size_t keep = width - 3;
    while (keep > 0 && (static_cast<unsigned char>(line[keep]) & 0xC0) == 0x80)
      --keep; // not inside a UTF-8 sequence
    line.resize(keep);
    line += "...";
  }
  return line;
}

std::size_t listed(std::size_t size, std::size_t top) {
  return top == 0 ? size : std::min(size, top);
}

void section(std::string& out, std::string_view title, const Table& table, std::size_t width) {
  if (table.empty())
    return;
  out += fmt::format("\n{}\n", title);
  out += table.render(width);
}

// Calls per syscall. When some were made through another ABI than the native one (a 32-bit
// program on x86_64), an "abi" column tells them apart: statx of i386 is not statx of x86_64.
Table calls_table(const std::vector<trace::SyscallSummary>& syscalls) {
  bool other_abi = std::any_of(syscalls.begin(), syscalls.end(),
                               [](const auto& s) { return s.abi != trace::Abi::native; });
  std::vector<Column> columns{{"syscall"},
                              {"calls", Align::right},
                              {"errors", Align::right},
                              {"time (s)", Align::right},
                              {"errors by errno"}};
  if (other_abi)
    columns.insert(columns.begin() + 1, {"abi"});
  Table calls(std::move(columns));
  for (const auto& s : syscalls) {
    std::vector<std::string> row{s.name, std::to_string(s.calls), std::to_string(s.errors),
                                 seconds(s.time_s), errno_list(s.errnos)};
    if (other_abi)
      row.insert(row.begin() + 1, std::string(trace::to_string(s.abi)));
    calls.add_row(std::move(row));
  }
  return calls;
}

// "SIGTERM"; "signal 70" for one without a name.
std::string signal_name(int signal) {
  const char* abbrev = ::sigabbrev_np(signal);
  return abbrev ? fmt::format("SIG{}", abbrev) : fmt::format("signal {}", signal);
}

// How the command ended, as strace tells it: "exit status 1", "killed by SIGTERM".
std::string ending(const RunInfo& run) {
  return run.signal != 0 ? "killed by " + signal_name(run.signal)
                         : fmt::format("exit status {}", run.exit_status);
}

} // namespace

std::string render_text(const RunInfo& run, const trace::TraceSummary& summary,
                        const TextLayout& layout) {
  auto width = layout.width;
  // The command is what is cut to the width, not how it ended.
  std::string before, after;
  if (run.attached_pid > 0) {
    before = fmt::format("syscount {}: process {} (", trace::to_string(run.cls), run.attached_pid);
    after = run.detached ? "), detached" : "), " + ending(run);
  } else {
    before = fmt::format("syscount {}: ", trace::to_string(run.cls));
    after = ", " + ending(run);
  }
  std::size_t room = before.size() + after.size() + 8;
  std::string out =
      before + fit(command_line(run), width > room ? width - before.size() - after.size() : 0) +
      after + "\n";

  section(out, "Calls", calls_table(summary.syscalls), width);

  Table results({{"result"}, {"calls", Align::right}});
  if (summary.calls > 0)
    results.add_row({"ok", std::to_string(summary.calls - summary.errors)});
  for (const auto& e : summary.results)
    results.add_row({errno_name(e.err), std::to_string(e.count)});
  section(out, "Results", results, width);

  Table paths({{"path"}, {"calls", Align::right}, {"failed", Align::right}, {"errors by errno"}});
  for (const auto& p : summary.paths)
    paths.add_row(
        {shown(p.path), std::to_string(p.calls), std::to_string(p.errors), errno_list(p.errnos)});
  section(out, "Paths looked up most", paths, width);

  Table dirs({{"directory"}, {"failed lookups", Align::right}});
  for (const auto& d : summary.failed_dirs)
    dirs.add_row({shown(d.name), std::to_string(d.count)});
  section(out, "Directories probed in vain", dirs, width);

  Table suffixes({{"suffix"}, {"failed lookups", Align::right}});
  for (const auto& s : summary.failed_suffixes)
    suffixes.add_row({shown(s.name), std::to_string(s.count)});
  section(out, "Suffixes probed in vain", suffixes, width);

  if (layout.per_process) {
    Table processes(
        {{"pid", Align::right}, {"command"}, {"calls", Align::right}, {"errors", Align::right}});
    for (std::size_t i = 0; i < listed(summary.processes.size(), layout.top); ++i) {
      const auto& p = summary.processes[i];
      processes.add_row(
          {std::to_string(p.pid), p.comm, std::to_string(p.calls), std::to_string(p.errors)});
    }
    section(out, "Processes", processes, width);
  }

  out += fmt::format("\nTotal: {} calls, {} failed, {} s in calls\n", summary.calls, summary.errors,
                     seconds(summary.time_s));
  out += fmt::format("{} path lookups, {} process{}, {:.3f} s wall ({})\n", summary.path_lookups,
                     summary.processes.size(), summary.processes.size() == 1 ? "" : "es",
                     run.wall_s, trace::to_string(run.backend));
  if (summary.folded_lookups > 0)
    out += fmt::format("{} lookups of paths beyond the first {} distinct ones were folded into "
                       "their directory (shown as DIR/*)\n",
                       summary.folded_lookups, run.max_paths);
  return out;
}

std::string render_json(const RunInfo& run, const trace::TraceSummary& summary, std::size_t top) {
  using Json = nlohmann::ordered_json;
  auto errno_object = [](const std::vector<ErrnoCount>& errnos) {
    Json object = Json::object();
    for (const auto& e : errnos)
      object[errno_name(e.err)] = e.count;
    return object;
  };
  Json doc;
  doc["command"] = run.command;
  doc["exit_status"] = run.detached ? Json() : Json(run.exit_status);
  doc["signal"] = run.signal != 0 ? Json(signal_name(run.signal)) : Json();
  doc["backend"] = trace::to_string(run.backend);
  doc["class"] = trace::to_string(run.cls);
  doc["wall_s"] = run.wall_s;
  doc["syscalls"] = Json::array();
  for (const auto& s : summary.syscalls)
    doc["syscalls"].push_back({{"name", s.name},
                               {"abi", trace::to_string(s.abi)},
                               {"calls", s.calls},
                               {"errors", s.errors},
                               {"errno", errno_object(s.errnos)},
                               {"time_s", s.time_s}});
  doc["paths"] = Json::array();
  for (const auto& p : summary.paths)
    doc["paths"].push_back({{"path", p.path},
                            {"calls", p.calls},
                            {"errors", p.errors},
                            {"errno", errno_object(p.errnos)}});
  doc["failed_dirs"] = Json::array();
  for (const auto& d : summary.failed_dirs)
    doc["failed_dirs"].push_back({{"dir", d.name}, {"failed", d.count}});
  doc["processes"] = Json::array();
  for (std::size_t i = 0; i < listed(summary.processes.size(), top); ++i) {
    const auto& p = summary.processes[i];
    doc["processes"].push_back(
        {{"pid", p.pid}, {"comm", p.comm}, {"calls", p.calls}, {"errors", p.errors}});
  }
  // Beyond the schema in the issue, documented in syscount(1): suffixes and folding.
  doc["failed_suffixes"] = Json::array();
  for (const auto& s : summary.failed_suffixes)
    doc["failed_suffixes"].push_back({{"suffix", s.name}, {"failed", s.count}});
  doc["folded_lookups"] = summary.folded_lookups;
  if (run.attached_pid > 0)
    doc["detached"] = run.detached;
  return json_text(doc);
}

} // namespace opskit::cmd::syscount
