// SPDX-License-Identifier: MIT
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace CLI {
class App;
}

#include "opskit/repo/publish.hpp"

namespace opskit::cmd::pkgcloud {

enum class Command { none, init, push, index, ls, rm, prune, verify, export_key, sources, publish };

// What the command line asked for.
struct Options {
  Command command = Command::none;
  std::string repo; // --repo, else $PKGCLOUD_REPO, else "."
  std::optional<std::string> passphrase_file;
  // init
  std::optional<std::string> generate_key, key, origin, label;
  std::vector<std::string> architectures; // empty: the default
  unsigned valid_for = 0;
  // push, ls
  std::optional<std::string> dist, component;
  bool replace = false;
  std::vector<std::string> files;
  // index
  bool sign = false, rebuild = false;
  // ls
  bool json = false;
  // rm, prune
  std::string spec; // NAME[=VERSION]
  std::optional<std::string> arch;
  std::size_t keep = 0;
  // export-key
  bool armor = false;
  // sources
  std::string url;
  // publish (and push --publish)
  std::string target_name;    // a saved target, or a URL
  repo::PublishTarget target; // --to and the settings beside it
  std::optional<std::string> save, publish_to;
  unsigned jobs = 8, wait = 0;
  bool dry_run = false, delete_stale = false, verify_remote = false;
};

// Defines pkgcloud's command line on `app`, storing what it parses into `options`.
void define_cli(CLI::App& app, Options& options);

// Runs the parsed command, printing its results; returns the exit status.
int run(const Options& options);

// pkgcloud's main: parses argv and runs what it asks for; a usage error is one line and exit
// status 2.
int parse_and_run(int argc, char** argv);

} // namespace opskit::cmd::pkgcloud
