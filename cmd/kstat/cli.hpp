// SPDX-License-Identifier: MIT
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace CLI {
class App;
}

namespace opskit::cmd::kstat {

enum class Format { text, values, json, prometheus };

// What the command line asked for.
struct Options {
  std::string command; // read, list, watch, write, bench, serve
  std::string proc_root = "/proc";
  std::string sys_root = "/sys";
  std::string rootfs; // the machine's / as mounted here (a container's /host), for fs.mount
  std::vector<std::string> names;
  std::vector<std::string> exclude; // serve: globs of names to leave out
  bool defaults = false;            // serve: the defaults beside the names given
  Format format = Format::text;
  bool describe = false;
  double interval = 1.0;
  double timeout = 10;   // read, list: seconds to find the names in, and as many to read them in
  std::size_t count = 0; // 0: until interrupted
  std::size_t iterations = 100000;
  std::string listen = "127.0.0.1:9100"; // serve
  double scrape_timeout = 5;             // serve: seconds a scrape may spend reading
  std::string web_config;                // serve: TLS, basic authentication (exporter-toolkit)
  std::string textfile_directory;        // serve: *.prom files to serve too
};

// The longest --scrape-timeout, in seconds.
inline constexpr double k_scrape_timeout_max = 3600;

// An option's seconds (--interval, --timeout, --scrape-timeout) as the steady clock counts time.
inline std::chrono::steady_clock::duration seconds_option(double seconds) {
  return std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(seconds));
}

// Defines kstat's command line on `app`, storing what it parses into `options`. With `only`
// naming a subcommand, the others are left out: building CLI11 options costs more than reading
// a counter, and a process runs one subcommand.
void define_cli(CLI::App& app, Options& options, std::string_view only = {});

// The subcommand that argv asks for, or "" when there is none or it is not known.
std::string_view requested_subcommand(int argc, char** argv);

// kstat's main, for the subcommand `only` or all of them: parses argv and, when that succeeds,
// returns run(options); a usage error is one line and exit status 2.
int parse_and_run(int argc, char** argv, std::string_view only, int (*run)(const Options&));

} // namespace opskit::cmd::kstat
