// SPDX-License-Identifier: MIT
#include <catch2/catch.hpp>

#include "opskit/http_accept.hpp"

using opskit::accept_quality;

TEST_CASE("http accept: Prometheus's Accept header prefers OpenMetrics", "[lib][http]") {
  std::string_view prometheus = "application/openmetrics-text;version=1.0.0,application/"
                                "openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;"
                                "q=0.5,*/*;q=0.1";
  CHECK(accept_quality(prometheus, "application/openmetrics-text") == 1);
  CHECK(accept_quality(prometheus, "text/plain") == 0.5);
  CHECK(accept_quality(prometheus, "image/png") == 0.1);
}

TEST_CASE("http accept: wildcards, refusals and an empty header", "[lib][http]") {
  CHECK(accept_quality("*/*", "text/plain") == 1);
  CHECK(accept_quality("text/*;q=0.3", "text/plain") == 0.3);
  CHECK(accept_quality("text/html", "text/plain") == 0);
  CHECK(accept_quality("gzip, deflate, br", "gzip") == 1);
  CHECK(accept_quality("gzip;q=0, *", "gzip") == 0);
  CHECK(accept_quality("", "gzip") == 1);
}

TEST_CASE("http accept: the most specific range decides wherever it stands", "[lib][http]") {
  std::string_view header = "*/*;q=0.1, text/*;q=0.9, application/openmetrics-text;q=0.5";
  CHECK(accept_quality(header, "text/plain") == 0.9);
  CHECK(accept_quality(header, "application/openmetrics-text") == 0.5);
  CHECK(accept_quality("text/*;q=0.9, */*;q=0.1", "text/plain") == 0.9);
  CHECK(accept_quality("text/plain;q=0.2, text/*;q=0.9", "text/plain") == 0.2);
}

TEST_CASE("http accept: media types and codings in any case", "[lib][http]") {
  CHECK(accept_quality("Application/OpenMetrics-Text;version=1.0.0",
                       "application/openmetrics-text") == 1);
  CHECK(accept_quality("GZIP", "gzip") == 1);
  CHECK(accept_quality("TEXT/*;q=0.3", "text/plain") == 0.3);
}
