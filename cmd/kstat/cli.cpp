// SPDX-License-Identifier: MIT
#include "cli.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>

#include <fmt/format.h>

#include "cli_main.hpp"
#include "opskit/probes/scrape.hpp"
#include "opskit/version.hpp"

namespace opskit::cmd::kstat {

namespace {

// --json / --prometheus (and -n where given) as one choice of output format.
void add_format_flags(CLI::App& sub, Options& options, bool values, bool prometheus) {
  auto* json = sub.add_flag_callback(
      "--json", [&options] { options.format = Format::json; }, "Print JSON");
  CLI::Option* only_values = nullptr;
  if (values)
    only_values = sub.add_flag_callback(
                         "-n,--values", [&options] { options.format = Format::values; },
                         "Print values only, one per line")
                      ->excludes(json);
  if (prometheus) {
    auto* exposition = sub.add_flag_callback(
                              "--prometheus", [&options] { options.format = Format::prometheus; },
                              "Print the Prometheus text exposition format (numbers only)")
                           ->excludes(json);
    if (only_values)
      exposition->excludes(only_values);
  }
}

// sysctl(8)'s other spelling of a name, taken as it takes it: where a '/' comes before any
// '.', slashes separate and dots are part of a component ("net/ipv4/conf/eth0.100/rp_filter"
// is net.ipv4.conf.eth0/100.rp_filter); a leading /proc/sys/ is dropped. In an assignment, the
// name before '='.
CLI::Validator sysctl_spelling() {
  return CLI::Validator(
      [](std::string& text) {
        if (text.starts_with("/proc/sys/")) { // the file's path, as a tab completes it
          text.erase(0, 10);
          while (text.ends_with('/')) // a directory's
            text.pop_back();
        }
        std::size_t end = std::min(text.find('='), text.size());
        std::size_t slash = text.find('/'), dot = text.find('.');
        if (slash < end && slash < dot)
          for (std::size_t i = 0; i < end; ++i)
            text[i] = text[i] == '/' ? '.' : text[i] == '.' ? '/' : text[i];
        return std::string();
      },
      "");
}

// Seconds from `low` to `high`, a decimal number ("0.5", "2", "1e-2"). Not what CLI::Range
// lets through: "nan", which no comparison is true of (an interval of it never came, a
// deadline of it had always passed), or hexadecimal ("0x10").
CLI::Validator seconds_between(double low, double high) {
  return CLI::Validator(
      [low, high](std::string& text) {
        double value = 0;
        auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (error != std::errc() || end != text.data() + text.size() || !std::isfinite(value))
          return fmt::format("{} is not a number of seconds", text);
        if (value < low || value > high)
          return fmt::format("{} is not from {:g} to {:g} seconds", text, low, high);
        return std::string();
      },
      fmt::format("SECONDS:{:g}-{:g}", low, high));
}

// --timeout: what a sensor on a hung bus or a hard NFS mount gone away may hold up.
void add_timeout(CLI::App& sub, Options& options) {
  sub.add_option("--timeout", options.timeout,
                 "Seconds to find the names in (the hardware's are probed), and as many to read "
                 "them in: a file that has not answered by then is an error, the rest printed "
                 "(default 10)")
      ->check(seconds_between(0.001, 86400.0));
}

void define_read(CLI::App& sub, Options& options) {
  sub.add_option("name", options.names,
                 "Names, prefixes or globs (vm.swappiness, vm.stats, 'vm.stats.pg*fault')")
      ->required()
      ->transform(sysctl_spelling());
  add_format_flags(sub, options, true, true);
  add_timeout(sub, options);
}

void define_list(CLI::App& sub, Options& options) {
  sub.add_option("prefix", options.names, "Prefixes or globs to list")
      ->expected(0, -1)
      ->transform(sysctl_spelling());
  sub.add_flag("-d,--describe", options.describe, "Add kind, unit and description");
  add_format_flags(sub, options, false, false);
  add_timeout(sub, options);
}

void define_watch(CLI::App& sub, Options& options) {
  sub.add_option("name", options.names, "Names, prefixes or globs")
      ->required()
      ->transform(sysctl_spelling());
  sub.add_option("-i,--interval", options.interval, "Seconds between samples (default 1)")
      ->check(seconds_between(0.01, 86400.0));
  // "0" would be the default's never.
  sub.add_option("-c,--count", options.count, "Stop after this many samples (default: never)")
      ->check(whole_number("a number of samples", 1));
  add_format_flags(sub, options, false, false);
}

void define_write(CLI::App& sub, Options& options) {
  sub.add_option("assignment", options.names, "NAME=VALUE pairs")
      ->required()
      ->transform(sysctl_spelling());
}

void define_bench(CLI::App& sub, Options& options) {
  sub.add_option("name", options.names, "One name")
      ->required()
      ->expected(1)
      ->transform(sysctl_spelling());
  sub.add_option("-n,--iterations", options.iterations, "Reads per method (default 100000)")
      ->check(whole_number("a number of reads", 1, 100000000));
  add_format_flags(sub, options, false, false);
}

void define_serve(CLI::App& sub, Options& options) {
  sub.add_option("prefix", options.names,
                 fmt::format("Names, prefixes or globs to export (default, what node_exporter's "
                             "default collectors read: {})",
                             fmt::join(counters::k_serve_defaults, " ")))
      ->expected(0, -1);
  sub.add_flag("--defaults", options.defaults,
               "Serve the defaults too, beside the names given (the defaults' exclusions and "
               "absent sources concern them alone)");
  sub.add_option("--exclude", options.exclude,
                 "A glob of names to leave out, as many times as needed ('net.dev.veth*'); "
                 "the defaults leave out the interfaces' statistics-file counters, loop devices "
                 "and partitions, /proc/interrupts and /proc/softirqs")
      ->type_name("GLOB")
      ->allow_extra_args(false);
  sub.add_option("--listen", options.listen,
                 "HOST:PORT to listen on (default 127.0.0.1:9100; :PORT for every interface)");
  sub.add_option("--scrape-timeout", options.scrape_timeout,
                 "Seconds a scrape may spend reading; sources left unread are reported "
                 "(default 5; less where Prometheus says it waits less: its scrape timeout, "
                 "less half a second)")
      ->check(seconds_between(0.001, k_scrape_timeout_max));
  sub.add_option("--textfile-directory", options.textfile_directory,
                 "A directory of *.prom files in Prometheus' text format, written by scripts and "
                 "cron jobs, whose metrics each scrape serves too, as node_exporter's "
                 "--collector.textfile.directory")
      ->check(CLI::ExistingDirectory);
  sub.add_option("--web-config", options.web_config,
                 "A web configuration file, as node_exporter's --web.config.file: TLS, client "
                 "certificates, basic authentication, headers, a rate limit");
}

struct Subcommand {
  std::string_view name;
  std::string_view description;
  void (*define)(CLI::App&, Options&);
};

constexpr Subcommand k_subcommands[] = {
    {"read", "Print names and values; a prefix prints its subtree", define_read},
    {"list",
     "List names under a prefix (all names without one; of the processes, proc.self: ask for "
     "proc.<pid> by name)",
     define_list},
    {"watch", "Print rates of counters and values of gauges every interval, like vmstat",
     define_watch},
    {"write", "Set /proc/sys entries and print old and new values", define_write},
    {"bench", "Measure the cost of a read by name, through a resolved handle, and by snapshot",
     define_bench},
    {"serve", "Serve the counters to Prometheus on /metrics, one read of each file a scrape",
     define_serve},
};

} // namespace

std::string_view requested_subcommand(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "--proc-root" || arg == "--sys-root" || arg == "--rootfs") {
      ++i;
      continue;
    }
    if (arg.starts_with("-"))
      continue;
    for (const auto& sub : k_subcommands)
      if (arg == sub.name)
        return sub.name;
    return {};
  }
  return {};
}

void define_cli(CLI::App& app, Options& options, std::string_view only) {
  app.description("Read Linux kernel counters by dotted name, sysctl-style: one namespace over "
                  "/proc/sys and the statistics the kernel keeps in /proc and /sys (memory, "
                  "CPUs, pressure, disks and md arrays, the network stack and its interfaces, "
                  "processes, cgroups, XFS, Btrfs, ZFS and bcache, hardware sensors) and mount "
                  "points' usage; `kstat list` shows them all, `kstat serve` serves them to "
                  "Prometheus.");
  app.set_version_flag("--version", std::string("kstat ") + k_version);
  app.require_subcommand(1);
  app.add_option("--proc-root", options.proc_root,
                 "Read this directory instead of /proc (a copy of /proc, for instance)")
      ->check(CLI::ExistingDirectory);
  app.add_option("--sys-root", options.sys_root,
                 "Read this directory instead of /sys for the sources that live there: "
                 "interfaces, cgroups, hardware (hw), XFS, Btrfs, bcache, the clock source and "
                 "SELinux")
      ->check(CLI::ExistingDirectory);
  app.add_option("--rootfs", options.rootfs,
                 "The machine's root file system, as mounted here (a container's /host): fs.mount "
                 "serves the mount points of <proc>/1/mountinfo, the machine's, with their usage "
                 "read under this directory, and os.release its <dir>/etc/os-release")
      ->check(CLI::ExistingDirectory);
  for (const auto& sub : k_subcommands) {
    if (!only.empty() && only != sub.name)
      continue;
    CLI::App* app_sub = app.add_subcommand(std::string(sub.name), std::string(sub.description));
    sub.define(*app_sub, options);
    app_sub->callback([&options, app_sub] { options.command = app_sub->get_name(); });
  }
}

int parse_and_run(int argc, char** argv, std::string_view only, int (*run)(const Options&)) {
  CLI::App app{"", "kstat"};
  Options options;
  define_cli(app, options, only);
  return run_main("kstat", app, argc, argv, [&] { return run(options); });
}

} // namespace opskit::cmd::kstat
