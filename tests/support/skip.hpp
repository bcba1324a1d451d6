// SPDX-License-Identifier: MIT
#pragma once

#include <catch2/catch.hpp>

// Catch2 v2 has no SKIP: say why in the output and end the test case.
#define OPSKIT_SKIP(reason)                                                                        \
  do {                                                                                             \
    WARN("skipped: " << reason);                                                                   \
    return;                                                                                        \
  } while (false)
