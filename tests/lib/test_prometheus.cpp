// SPDX-License-Identifier: MIT
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "opskit/prometheus.hpp"

using opskit::MetricType;
using opskit::TextFormat;

TEST_CASE("prometheus: kernel names become snake_case name components", "[lib][prometheus]") {
  CHECK(opskit::snake_case("MemTotal") == "mem_total");
  CHECK(opskit::snake_case("Active_anon") == "active_anon");
  CHECK(opskit::snake_case("HugePages_Total") == "huge_pages_total");
  CHECK(opskit::snake_case("TCPTimeouts") == "tcp_timeouts");
  CHECK(opskit::snake_case("SReclaimable") == "sreclaimable");
  CHECK(opskit::snake_case("SecPageTables") == "secpage_tables");
  CHECK(opskit::snake_case("DirectMap2M") == "direct_map2m");
  CHECK(opskit::snake_case("MPJoinAckHMacFailure") == "mp_join_ack_hmac_failure");
  CHECK(opskit::snake_case("Ip6InReceives") == "ip6_in_receives");
  CHECK(opskit::snake_case("eth0/100.rp-filter") == "eth0_100_rp_filter");
  CHECK(opskit::snake_case("pgfault") == "pgfault");
}

TEST_CASE("prometheus: HELP is escaped, TYPE and samples follow", "[lib][prometheus]") {
  std::string out;
  opskit::append_family(out, "kstat_x_total", "a \\ \"b\"\nc", MetricType::counter,
                        TextFormat::prometheus);
  std::string labels;
  opskit::append_label(labels, "cpu", "0");
  opskit::append_label(labels, "name", "a\"b\\");
  opskit::append_sample(out, "kstat_x_total", labels, "42");
  opskit::append_family(out, "kstat_y", "", MetricType::gauge, TextFormat::prometheus);
  opskit::append_sample(out, "kstat_y", "", "0.5");
  opskit::append_end(out, TextFormat::prometheus);
  CHECK(out == "# HELP kstat_x_total a \\\\ \"b\"\\nc\n# TYPE kstat_x_total counter\n"
               "kstat_x_total{cpu=\"0\",name=\"a\\\"b\\\\\"} 42\n"
               "# TYPE kstat_y gauge\nkstat_y 0.5\n");
}

TEST_CASE("prometheus: an untyped family is untyped in 0.0.4 and unknown in OpenMetrics",
          "[lib][prometheus]") {
  std::string text, openmetrics;
  opskit::append_family(text, "kstat_zfs_arc_hits", "", MetricType::untyped,
                        TextFormat::prometheus);
  opskit::append_family(openmetrics, "kstat_zfs_arc_hits", "", MetricType::untyped,
                        TextFormat::openmetrics);
  CHECK(text == "# TYPE kstat_zfs_arc_hits untyped\n");
  CHECK(openmetrics == "# TYPE kstat_zfs_arc_hits unknown\n");
}

TEST_CASE("prometheus: HELP and label values that are not UTF-8 are read as ISO-8859-1",
          "[lib][prometheus]") {
  std::string out;
  opskit::append_family(out, "kstat_x_total", "eth\xe9-rx (\xff)", MetricType::counter,
                        TextFormat::prometheus);
  std::string labels;
  opskit::append_label(labels, "device", "eth\xe9");
  opskit::append_label(labels, "mountpoint", "/mnt/caf\xc3\xa9"); // UTF-8 already: kept
  opskit::append_sample(out, "kstat_x_total", labels, "1");
  CHECK(out == "# HELP kstat_x_total eth\xc3\xa9-rx (\xc3\xbf)\n# TYPE kstat_x_total counter\n"
               "kstat_x_total{device=\"eth\xc3\xa9\",mountpoint=\"/mnt/caf\xc3\xa9\"} 1\n");
}

TEST_CASE("prometheus: OpenMetrics names a counter's family without _total, ends with EOF",
          "[lib][prometheus]") {
  std::string out;
  opskit::append_family(out, "kstat_x_total", "say \"hi\"", MetricType::counter,
                        TextFormat::openmetrics);
  opskit::append_sample(out, "kstat_x_total", "", "1");
  opskit::append_end(out, TextFormat::openmetrics);
  CHECK(out == "# HELP kstat_x say \\\"hi\\\"\n# TYPE kstat_x counter\nkstat_x_total 1\n# EOF\n");
  CHECK(opskit::content_type(TextFormat::openmetrics).starts_with("application/openmetrics-text"));
}

TEST_CASE("prometheus: an info family is of type info in OpenMetrics, a gauge in 0.0.4",
          "[lib][prometheus]") {
  std::string open;
  opskit::append_family(open, "kstat_uname_info", "names", MetricType::info,
                        TextFormat::openmetrics);
  CHECK(open == "# HELP kstat_uname names\n# TYPE kstat_uname info\n");
  std::string text;
  opskit::append_family(text, "kstat_uname_info", "names", MetricType::info,
                        TextFormat::prometheus);
  CHECK(text == "# HELP kstat_uname_info names\n# TYPE kstat_uname_info gauge\n");
}

TEST_CASE("prometheus: a real is written as fmt writes its shortest form", "[lib][prometheus]") {
  auto written = [](double value) {
    char out[opskit::k_real_max];
    return std::string(out, opskit::write_real(out, value));
  };
  CHECK(written(35548.62) == "35548.62");
  CHECK(written(0.0012) == "0.0012");
  CHECK(written(1e-05) == "1e-05");
  CHECK(written(0) == "0");
  CHECK(written(-0.0) == "-0");
  CHECK(written(-1.5) == "-1.5");
  CHECK(written(1e16) == "1e+16");
  CHECK(written(std::numeric_limits<double>::infinity()) == "inf");
  CHECK(written(std::nan("")) == "nan");
  // Counts of ticks, milliseconds and microseconds in seconds, as a scrape makes them, and reals
  // of every magnitude: each as fmt writes it.
  std::mt19937_64 random(42);
  for (int i = 0; i < 200000; ++i) {
    std::uint64_t count = random() >> (random() % 64);
    double divide = std::pow(10.0, static_cast<double>(random() % 8));
    double value = static_cast<double>(count) / divide;
    REQUIRE(written(value) == fmt::format("{}", value));
    double any = std::bit_cast<double>(random());
    REQUIRE(written(any) == fmt::format("{}", any));
  }
}
