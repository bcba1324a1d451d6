// SPDX-License-Identifier: MIT
// The floor under `kstat serve`'s CPU per scrape, for tests/bench/kstat: kstat serve's own HTTP
// server answering /metrics after one pread of each file a default scrape reads, with a body
// kstat rendered once at start. No parsing, no rendering: what this costs above the preads (the
// request, the sending of the body, the threads' wake-ups) is the part of a scrape no parse or
// render can take away. Prints "serving URL" and serves until SIGTERM or SIGINT.
//   kstat_serve_floor reads N   times N rounds of the same preads in this process instead and
//                               prints the nanoseconds a round took, for the ratios against them
#include <array>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <pthread.h>

#include "http_server.hpp"
#include "opskit/probes/scrape.hpp"
#include "source_reads.hpp"

namespace {

using opskit::cmd::kstat::HttpServer;
using opskit::cmd::kstat::Request;
using opskit::cmd::kstat::Response;
using opskit::counters::Scraper;

struct Floor {
  std::vector<opskit::bench::SourceFile> files;
  std::shared_ptr<const std::string> body;
};

// One pread of each file, as a scrape reads them (source_reads.hpp).
void read_files(const Floor& floor) {
  thread_local std::array<char, opskit::bench::k_read_room> buffer;
  opskit::bench::read_sources(floor.files, buffer);
}

Response answer(void* context, const Request& /*request*/) {
  const auto& floor = *static_cast<const Floor*>(context);
  read_files(floor);
  return {200, opskit::content_type(opskit::TextFormat::prometheus), floor.body};
}

// The nanoseconds a round of read_files() takes, over `rounds`.
double time_reads(const Floor& floor, int rounds) {
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < rounds; ++i)
    read_files(floor);
  std::chrono::duration<double, std::nano> took = std::chrono::steady_clock::now() - start;
  return took.count() / rounds;
}

int fail(const std::string& message) {
  std::fprintf(stderr, "kstat_serve_floor: %s\n", message.c_str());
  return 1;
}

} // namespace

int main(int argc, char** argv) {
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGTERM);
  sigaddset(&stop, SIGINT);
  ::pthread_sigmask(SIG_BLOCK, &stop, nullptr); // the server's threads inherit the mask

  Scraper::Settings settings{.sets = {opskit::counters::serve_defaults()}};
  auto scraper = Scraper::open(opskit::counters::Namespace(), settings);
  auto snapshot = opskit::counters::Namespace().snapshot(settings.selections());
  if (!scraper || !snapshot)
    return fail(scraper ? snapshot.error().message() : scraper.error().message());
  Floor floor;
  floor.body = (*scraper)->scrape(opskit::TextFormat::prometheus);
  floor.files = opskit::bench::open_sources(*snapshot);

  if (argc == 3 && std::string_view(argv[1]) == "reads") {
    std::printf("%.0f\n", time_reads(floor, std::atoi(argv[2])));
    return 0;
  }
  auto where = opskit::cmd::kstat::parse_listen("127.0.0.1:0");
  if (!where)
    return fail(where.error().message());
  auto server = HttpServer::start(*where, answer, &floor);
  if (!server)
    return fail(server.error().message());
  std::printf("serving http://%s/metrics\n", (*server)->address().c_str());
  std::fflush(stdout);
  int signal = 0;
  ::sigwait(&stop, &signal);
  return 0;
}
