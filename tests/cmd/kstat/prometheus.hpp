// SPDX-License-Identifier: MIT
#pragma once

// A real Prometheus (Debian's) for the `kstat serve` tests, started on a free 127.0.0.1 port
// with its own configuration and storage, and queried through its HTTP API.

#include <chrono>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "daemon.hpp"
#include "net.hpp"
#include "process.hpp"
#include "temp_dir.hpp"

namespace opskit::test {

// Prometheus scraping `target` ("127.0.0.1:port") every second, its storage in `dir`;
// `scrape` holds more settings of the scrape configuration (scheme, tls_config, basic_auth),
// each line indented by four spaces.
struct Prometheus : Daemon {
  static std::vector<std::string> argv(const TempDir& dir, const std::string& target,
                                       const std::string& scrape, int port) {
    std::ofstream(dir / "prometheus.yml")
        << "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
           "scrape_configs:\n  - job_name: kstat\n"
        << scrape << "    static_configs:\n      - targets: ['" << target << "']\n";
    return {"prometheus", "--config.file=" + dir / "prometheus.yml",
            "--storage.tsdb.path=" + dir / "data",
            "--web.listen-address=127.0.0.1:" + std::to_string(port), "--log.level=error"};
  }
  Prometheus(const TempDir& dir, const std::string& target, const std::string& scrape = "",
             int port = free_port())
      : Daemon(argv(dir, target, scrape, port), port) {}

  // The value of an instant query that gives one sample, or nothing while it gives none.
  std::optional<double> query(const std::string& promql) const {
    auto r = run({"curl", "-s", "--max-time", "10", url("/api/v1/query"), "--data-urlencode",
                  "query=" + promql});
    auto json = nlohmann::json::parse(r.out, nullptr, false);
    if (json.is_discarded() || json["status"] != "success" || json["data"]["result"].empty())
      return std::nullopt;
    return std::stod(json["data"]["result"][0]["value"][1].get<std::string>());
  }

  // Polls `promql` until `done` holds for its value (at most 15 s); the last value.
  template <class Done>
  std::optional<double> wait_for(const std::string& promql, Done done) const {
    std::optional<double> value;
    for (int i = 0; i < 60; ++i) {
      value = query(promql);
      if (value && done(*value))
        break;
      std::this_thread::sleep_for(std::chrono::milliseconds(250));
    }
    return value;
  }
};

} // namespace opskit::test
