// SPDX-License-Identifier: MIT
#include <catch2/catch.hpp>

#include "opskit/prometheus.hpp"

TEST_CASE("prometheus: dotted names become legal metric names", "[lib][prometheus]") {
  CHECK(opskit::prometheus_name("kstat", "vm.stats.pgfault") == "kstat_vm_stats_pgfault");
  CHECK(opskit::prometheus_name("kstat", "net.ipv4.conf.eth0/100.rp_filter") ==
        "kstat_net_ipv4_conf_eth0_100_rp_filter");
}

TEST_CASE("prometheus: HELP is escaped, TYPE and sample follow", "[lib][prometheus]") {
  std::string out;
  opskit::append_prometheus_metric(out, "kstat_x", "a \\ b\nc", opskit::MetricType::counter, "42");
  CHECK(out == "# HELP kstat_x a \\\\ b\\nc\n# TYPE kstat_x counter\nkstat_x 42\n");
  out.clear();
  opskit::append_prometheus_metric(out, "kstat_y", "", opskit::MetricType::gauge, "0.5");
  CHECK(out == "# TYPE kstat_y gauge\nkstat_y 0.5\n");
}
