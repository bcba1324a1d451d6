// SPDX-License-Identifier: MIT
#pragma once

// What pkgcloud's integration tests share: a repository in a temporary directory driven through
// the built binary with a fixed SOURCE_DATE_EPOCH, and a static HTTP server on 127.0.0.1.

#include <map>
#include <random>
#include <string>
#include <vector>

#include "daemon.hpp"
#include "net.hpp"
#include "process.hpp"
#include "temp_dir.hpp"

namespace opskit::test {

// The SOURCE_DATE_EPOCH of the tests that compare what pkgcloud writes byte for byte.
inline constexpr const char* k_epoch = "1764000000";

// Runs the built pkgcloud with --repo <repo> and SOURCE_DATE_EPOCH set to `epoch`.
inline Outcome pkgcloud(const std::string& repo, std::vector<std::string> args,
                        const std::string& epoch = "") {
  std::vector<std::string> argv{"env"};
  if (!epoch.empty())
    argv.push_back("SOURCE_DATE_EPOCH=" + epoch);
  argv.push_back(tool("pkgcloud"));
  argv.push_back("--repo");
  argv.push_back(repo);
  argv.insert(argv.end(), args.begin(), args.end());
  return run(argv);
}

// A control paragraph for a small test package.
inline std::string control(const std::string& name, const std::string& version,
                           const std::string& arch) {
  return "Package: " + name + "\nVersion: " + version + "\nArchitecture: " + arch +
         "\nMaintainer: Test <test@example.com>\nDescription: test package " + name +
         "\n Built by the tests.\n .\n  Kept byte for byte.\n";
}

// Every regular file below `dir` (but .pkgcloud/) by its path relative to `dir`, with its
// content, to compare before and after.
std::map<std::string, std::string> snapshot(const std::string& dir);

// Writes <dir>/<name>.deb, of package `name` 1.0 amd64 whose data.tar holds `size` bytes drawn
// from `gen` (under the 1 MiB make_ar writes); returns its path.
std::string random_deb(const std::string& dir, const std::string& name, std::size_t size,
                       std::mt19937& gen);

// Starts argv (stdout and stderr to /dev/null), kills it with SIGKILL after `ms` milliseconds
// and reaps it.
void kill_after(const std::vector<std::string>& argv, int ms);

// `python3 -m http.server` serving `dir` on 127.0.0.1 at a free port, stopped when dropped.
struct HttpServer : Daemon {
  explicit HttpServer(const std::string& dir, int port = free_port())
      : Daemon({"python3", "-m", "http.server", "--bind", "127.0.0.1", "--directory", dir,
                std::to_string(port)},
               port) {}
};

} // namespace opskit::test
