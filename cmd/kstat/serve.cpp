// SPDX-License-Identifier: MIT
#include "serve.hpp"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>

#include <malloc.h>
#include <pthread.h>

#include <fmt/format.h>

#include "exit.hpp"
#include "http_server.hpp"
#include "opskit/file.hpp"
#include "opskit/http_accept.hpp"
#include "opskit/probes/scrape.hpp"
#include "opskit/scrape_timeout.hpp"
#include "opskit/web/config.hpp"
#include "process_metrics.hpp"
#include "textfile.hpp"

namespace opskit::cmd::kstat {

namespace {

using counters::Scraper;

constexpr std::string_view k_landing = R"(<!DOCTYPE html>
<html><head><title>kstat</title></head>
<body><h1>kstat</h1><p>Linux kernel counters for Prometheus: <a href="/metrics">/metrics</a>.</p>
<p>See kstat(1) for the metric families and their labels.</p></body></html>
)";

Response answer(void* context, const Request& request) {
  static const auto k_page = std::make_shared<const std::string>(k_landing);
  static const auto k_missing = std::make_shared<const std::string>("not found: try /metrics\n");
  if (request.path == "/metrics") {
    bool open_metrics = accept_quality(request.accept, "application/openmetrics-text") >
                        accept_quality(request.accept, "text/plain");
    auto format = open_metrics ? TextFormat::openmetrics : TextFormat::prometheus;
    // Prometheus says how long it waits: the read ends in time for the answer to arrive.
    auto budget = Scraper::Clock::duration::max();
    if (auto seconds = scrape_budget_seconds(request.scrape_timeout))
      budget = seconds_option(std::min(*seconds, k_scrape_timeout_max));
    return {200, content_type(format), static_cast<Scraper*>(context)->scrape(format, budget)};
  }
  if (request.path == "/")
    return {200, "text/html; charset=utf-8", k_page};
  return {404, "text/plain; charset=utf-8", k_missing};
}

// One malloc arena for the server's threads. With glibc's one a thread, a resolve (a new
// snapshot and its families, about 1 MB, every minute) left each worker thread's arena holding
// its own copy's pages: 8.5 MiB resident grew to 13 MiB over four resolves. Scrapes take the
// scraper's lock in turn anyway, so the threads hardly contend for the arena.
void share_one_arena() {
  ::mallopt(M_ARENA_MAX, 1);
}

// Blocks SIGTERM and SIGINT in this thread and every thread it starts, for wait_for_stop().
sigset_t block_stop_signals() {
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGTERM);
  sigaddset(&stop, SIGINT);
  ::pthread_sigmask(SIG_BLOCK, &stop, nullptr);
  return stop;
}

} // namespace

int run_serve(const Options& options) {
  auto where = parse_listen(options.listen);
  if (!where) {
    print_error("kstat", where.error().message());
    return k_exit_usage;
  }
  WebSettings web;
  if (!options.web_config.empty()) {
    auto loaded = web::load_web_config(options.web_config);
    if (!loaded) {
      print_error("kstat", loaded.error().message());
      return k_exit_failure;
    }
    web.config = std::move(*loaded);
    // Watched from now: a change made while the names are resolved below is seen.
    web.watch.emplace(options.web_config, web.config);
  }
  raise_open_file_limit(); // every source file stays open between scrapes
  share_one_arena();
  Scraper::Settings settings;
  if (options.names.empty() || options.defaults)
    settings.sets.push_back(counters::serve_defaults());
  if (!options.names.empty())
    settings.sets.push_back({.names = options.names, .transient_ok = true});
  for (auto& set : settings.sets)
    set.exclude.insert(set.exclude.end(), options.exclude.begin(), options.exclude.end());
  settings.timeout = seconds_option(options.scrape_timeout);
  auto textfiles = options.textfile_directory.empty()
                       ? nullptr
                       : std::make_shared<const Textfiles>(options.textfile_directory);
  settings.tell = [](const std::string& source, const Error* why) {
    if (why != nullptr)
      print_stderr("kstat: warning: scrape error: {}\n", why->message());
    else
      print_stderr("kstat: {} reads again\n", source);
  };
  settings.append_own = [process = std::make_shared<const ProcessMetrics>(),
                         textfiles](std::string& out, TextFormat format) {
    process->append(out, format);
    if (textfiles)
      textfiles->append(out, format);
  };
  auto scraper =
      Scraper::open(counters::Namespace(options.proc_root, options.sys_root, options.rootfs),
                    std::move(settings));
  if (!scraper) {
    print_error("kstat", scraper.error().message());
    return k_exit_failure;
  }
  // A name given with nothing under it yet is served when it comes; a typo shows here.
  for (const auto& name : (*scraper)->awaited())
    print_stderr("kstat: warning: nothing under '{}' now: served when it comes\n", name);
  sigset_t stop = block_stop_signals();
  auto server = HttpServer::start(*where, answer, scraper->get(), std::move(web));
  if (!server) {
    print_error("kstat", server.error().message());
    return k_exit_failure;
  }
  fmt::print("kstat: serving {}://{}/metrics\n", (*server)->scheme(), (*server)->address());
  std::fflush(stdout);
  int signal = 0;
  ::sigwait(&stop, &signal);
  return k_exit_ok;
}

} // namespace opskit::cmd::kstat
