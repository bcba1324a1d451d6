// SPDX-License-Identifier: MIT
#include <catch2/catch.hpp>

#include "opskit/probes/watch.hpp"

using namespace opskit::counters;

TEST_CASE("watch: a counter's rate is its growth per second", "[counters][watch]") {
  CHECK(counter_rate(Value(std::uint64_t{100}), Value(std::uint64_t{300}), 2.0) == 100.0);
  CHECK(counter_rate(Value(1.5), Value(2.0), 0.5) == 1.0);
}

TEST_CASE("watch: a counter that goes backwards never gives a negative or huge rate",
          "[counters][watch]") {
  // A reset (or a 32-bit wrap): counted from zero since.
  auto after_reset = counter_rate(Value(std::uint64_t{4294967000}), Value(std::uint64_t{200}), 2.0);
  REQUIRE(after_reset);
  CHECK(*after_reset == 100.0);
  auto real = counter_rate(Value(5.0), Value(1.0), 1.0);
  REQUIRE(real);
  CHECK(*real == 1.0);
}

TEST_CASE("watch: large counters subtract exactly", "[counters][watch]") {
  std::uint64_t big = (std::uint64_t{1} << 60) + 1;
  CHECK(counter_rate(Value(big), Value(big + 3), 1.0) == 3.0);
}

TEST_CASE("watch: no rate for text or an empty interval", "[counters][watch]") {
  CHECK_FALSE(counter_rate(Value(std::string("a")), Value(std::string("b")), 1.0));
  CHECK_FALSE(counter_rate(Value(std::uint64_t{1}), Value(std::uint64_t{2}), 0.0));
}
