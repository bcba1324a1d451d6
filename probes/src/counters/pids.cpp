// SPDX-License-Identifier: MIT
//
// /proc/<pid>/{stat,status,io} as proc.<pid>.*, and proc.self. A prefix that names no process
// holds proc.self only, so that a listing of everything does not walk every process.

#include <algorithm>

#include <sys/stat.h>

#include <fmt/format.h>

#include "emitter.hpp"
#include "opskit/text.hpp"

namespace opskit::counters {

namespace {

// proc(5): the fields of /proc/<pid>/stat after "pid (comm)".
constexpr std::string_view k_pid_stat_fields[] = {
    "state",       "ppid",        "pgrp",        "session",     "tty_nr",
    "tpgid",       "flags",       "minflt",      "cminflt",     "majflt",
    "cmajflt",     "utime",       "stime",       "cutime",      "cstime",
    "priority",    "nice",        "num_threads", "itrealvalue", "starttime",
    "vsize",       "rss",         "rsslim",      "startcode",   "endcode",
    "startstack",  "kstkesp",     "kstkeip",     "signal",      "blocked",
    "sigignore",   "sigcatch",    "wchan",       "nswap",       "cnswap",
    "exit_signal", "processor",   "rt_priority", "policy",      "delayacct_blkio_ticks",
    "guest_time",  "cguest_time", "start_data",  "end_data",    "start_brk",
    "arg_start",   "arg_end",     "env_start",   "env_end",     "exit_code"};

void enumerate_pid_stat(const Record& r, std::string_view base, Emitter& e) {
  for (std::size_t i = 0; i < std::size(k_pid_stat_fields) && i < r.tokens.size(); ++i) {
    std::string_view field = k_pid_stat_fields[i];
    bool ticks = field.ends_with("time") || field == "delayacct_blkio_ticks";
    Convert how;
    if (ticks)
      how.divide = ticks_per_second();
    e.emit(fmt::format("{}.{}", base, field), fmt::format("proc.*.stat.{}", field), Kind::gauge,
           ticks ? "seconds" : "", {{}, static_cast<int>(i), 0}, how);
  }
}

// Of status's lines, the signal and capability masks are hexadecimal; the umask (octal) and the
// CPUs and memory nodes allowed (hexadecimal words with commas) are text, whatever their digits.
constexpr std::string_view k_status_masks[] = {"SigPnd", "ShdPnd", "SigBlk", "SigIgn", "SigCgt",
                                               "CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"};
constexpr std::string_view k_status_texts[] = {"Umask", "Cpus_allowed", "Mems_allowed"};

void enumerate_pid_status(const Record& r, std::string_view base, Emitter& e) {
  std::string name = fmt::format("{}.{}", base, r.key);
  std::string pattern = fmt::format("proc.*.status.{}", r.key);
  Locator at{std::string(r.key), 0, r.offset};
  bool text = std::ranges::find(k_status_texts, r.key) != std::end(k_status_texts);
  if (std::ranges::find(k_status_masks, r.key) != std::end(k_status_masks))
    e.emit(name, pattern, Kind::gauge, "", at, {.hex = true});
  else if (r.tokens.size() == 2 && r.tokens[1] == "kB")
    e.emit(name, pattern, Kind::gauge, "bytes", at, {.multiply = 1024});
  else if (!text && r.tokens.size() == 1 && parse_number(r.tokens[0]))
    e.emit(name, pattern, Kind::gauge, "", at);
  else
    e.emit(name, pattern, Kind::text, "", {std::string(r.key), -1, r.offset});
}

void enumerate_pid_io(const Record& r, std::string_view base, Emitter& e) {
  std::string name = fmt::format("{}.{}", base, r.key);
  e.emit(name, fmt::format("proc.*.io.{}", r.key), Kind::counter, "",
         {std::string(r.key), 0, r.offset});
}

constexpr std::string_view k_io_keys[] = {
    "rchar", "wchar", "syscr", "syscw", "read_bytes", "write_bytes", "cancelled_write_bytes"};

const SourceSpec k_pid_sources[] = {
    {{"stat"},
     "stat",
     {.key_token = -1, .after_paren = true, .end = Layout::End::first_read},
     enumerate_pid_stat},
    {{"status"}, "status", k_one_record, enumerate_pid_status},
    {{"io"}, "io", k_one_record, enumerate_pid_io, k_io_keys},
};

void find_pid(const Roots& roots, std::string_view pid, std::string_view prefix,
              std::vector<Field>& out) {
  struct stat st {};
  if (::stat(fmt::format("{}/{}/stat", roots.proc, pid).c_str(), &st) != 0)
    return; // no such process (or no "self" in a copied tree)
  for (const auto& spec : k_pid_sources) {
    std::string base = fmt::format("proc.{}.{}", pid, spec.prefixes[0]);
    if (!related(prefix, base))
      continue;
    Emitter emitter(roots, fmt::format("{}/{}/{}", roots.proc, pid, spec.file), spec.layout, prefix,
                    out);
    read_source(spec, base, emitter);
  }
}

// A prefix that names no process ("", "proc") holds proc.self only: like sysctl -a, a listing
// of everything does not walk every process; a pid is asked for by name.
} // namespace

void find_pids(const Roots& roots, std::string_view prefix, std::vector<Field>& out) {
  if (!related(prefix, "proc"))
    return;
  std::string_view rest = prefix.size() > 5 ? prefix.substr(5) : "self";
  std::string_view pid = rest.substr(0, rest.find('.'));
  if (pid == "self" || all_digits(pid))
    find_pid(roots, pid, prefix, out);
}

} // namespace opskit::counters
