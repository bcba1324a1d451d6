// SPDX-License-Identifier: MIT
#pragma once

#include <string>
#include <vector>

namespace opskit::test {

struct Outcome {
  int exit_status = -1; // exit code, or 128+N when killed by signal N
  std::string out;
  std::string err;
  long max_rss_kib = 0; // the peak resident set of the process (its ru_maxrss), in KiB
};

// Runs argv[0] (looked up in PATH when it has no '/') with `input` on stdin, waits for it and
// returns its exit status and everything it wrote. Throws when it cannot be started.
Outcome run(const std::vector<std::string>& argv, const std::string& input = {});

// Starts argv[0] (looked up in PATH when it has no '/') in the background, its stdout and
// stderr to /dev/null, and returns its pid; the caller kills and reaps it. Throws when it
// cannot be started.
int spawn_quiet(const std::vector<std::string>& argv);

// The path of one of the built tools ("kstat" -> "<build>/cmd/kstat/kstat").
std::string tool(const std::string& name);

// True when `program` is found in PATH.
bool have_program(const std::string& program);

} // namespace opskit::test
