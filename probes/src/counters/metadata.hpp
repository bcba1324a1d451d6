// SPDX-License-Identifier: MIT
#pragma once

#include <string_view>

#include "opskit/probes/value.hpp"

namespace opskit::counters {

// What is known about a name beyond its value. Names with a variable part are looked up by
// pattern, the variable component written as '*': "cpu.*.user", "disk.*.reads".
struct Known {
  std::string_view name;
  Kind kind;
  std::string_view unit;
  std::string_view description;
};

// The entry for `pattern`, or nullptr.
const Known* known(std::string_view pattern) noexcept;

} // namespace opskit::counters
