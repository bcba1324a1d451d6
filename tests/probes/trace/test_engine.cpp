// SPDX-License-Identifier: MIT
// The engine as a library call: programs found, commands traced into an aggregator.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <string>

#include "opskit/probes/trace/engine.hpp"
#include "skip.hpp"
#include "temp_dir.hpp"

using namespace opskit::trace;

TEST_CASE("engine: find_program searches PATH like execvp", "[probes][trace]") {
  auto sh = find_program("sh");
  REQUIRE(sh.has_value());
  CHECK(sh->starts_with("/"));
  CHECK(sh->ends_with("/sh"));
  CHECK(find_program("/bin/sh").value() == "/bin/sh");

  auto missing = find_program("perl5-does-not-exist");
  REQUIRE_FALSE(missing.has_value());
  CHECK(missing.error().message() == "perl5-does-not-exist: command not found");
  CHECK(missing.error().errno_value() == ENOENT);
  CHECK(find_program("/nonexistent/perl5").error().errno_value() == ENOENT);
  // A file without execute permission (root too is refused when no execute bit is set).
  opskit::test::TempDir tmp;
  std::string plain = tmp / "plain";
  std::ofstream(plain) << "not a program\n";
  auto denied = find_program(plain);
  REQUIRE_FALSE(denied.has_value());
  CHECK(denied.error().errno_value() == EACCES);
  CHECK(denied.error().message() == "run " + plain + ": Permission denied");
}

namespace {

// Runs `sh -c SCRIPT` with `backend` into `aggregator`.
opskit::Result<TraceOutcome> trace_sh(Backend backend, const std::string& script,
                                      Aggregator& aggregator) {
  TraceRequest request;
  request.command = {"sh", "-c", script};
  request.backend = backend;
  return run_trace(request, aggregator);
}

void check_engine_test_calls(const Aggregator& aggregator) {
  auto summary = aggregator.summary();
  CHECK(summary.calls > 0);
  auto looked_up = std::find_if(summary.paths.begin(), summary.paths.end(),
                                [](const auto& p) { return p.path == "/nonexistent-engine-test"; });
  REQUIRE(looked_up != summary.paths.end());
  CHECK(looked_up->errors == 1);
  REQUIRE(summary.processes.size() == 1);
  CHECK(summary.processes[0].comm == "sh");
}

} // namespace

TEST_CASE("engine: a traced command's calls reach the aggregator", "[probes][trace][ptrace]") {
  Aggregator aggregator;
  auto outcome = trace_sh(Backend::ptrace, "test -e /nonexistent-engine-test; exit 5", aggregator);
  REQUIRE(outcome.has_value());
  CHECK(outcome->backend == Backend::ptrace);
  CHECK(outcome->exit_status == 5);
  CHECK(outcome->used_filter);
  CHECK(outcome->warning.empty());
  CHECK_FALSE(outcome->detached);
  check_engine_test_calls(aggregator);
}

TEST_CASE("engine: the eBPF backend fills the same aggregate", "[probes][trace][ebpf]") {
  Aggregator aggregator;
  auto outcome = trace_sh(Backend::ebpf, "test -e /nonexistent-engine-test; exit 5", aggregator);
  if (!outcome)
    OPSKIT_SKIP("eBPF cannot be used here: " << outcome.error().message());
  CHECK(outcome->backend == Backend::ebpf);
  CHECK(outcome->exit_status == 5);
  CHECK(outcome->warning.empty());
  check_engine_test_calls(aggregator);
}

TEST_CASE("engine: auto falls back to ptrace with the reason, or counts with eBPF",
          "[probes][trace]") {
  Aggregator aggregator;
  std::string why;
  TraceRequest request;
  request.command = {"sh", "-c", "exit 0"};
  request.on_fallback = [&why](const std::string& reason) { why = reason; };
  auto outcome = run_trace(request, aggregator);
  REQUIRE(outcome.has_value());
  CHECK((outcome->backend == Backend::ebpf) == why.empty());
}

TEST_CASE("engine: backends are named as --backend names them", "[probes][trace]") {
  for (auto backend : {Backend::automatic, Backend::ebpf, Backend::ptrace})
    CHECK(parse_backend(to_string(backend)) == backend);
  CHECK(to_string(Backend::automatic) == "auto");
  CHECK_FALSE(parse_backend("bpf").has_value());
}

TEST_CASE("engine: a command that cannot be found is an error", "[probes][trace]") {
  Aggregator aggregator;
  TraceRequest request;
  request.command = {"perl5-does-not-exist"};
  auto outcome = run_trace(request, aggregator);
  REQUIRE_FALSE(outcome.has_value());
  CHECK(outcome.error().errno_value() == ENOENT);
}
