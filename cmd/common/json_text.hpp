// SPDX-License-Identifier: MIT
#pragma once

// JSON output, shared by every tool's --json.

#include <string>

#include <nlohmann/json.hpp>

namespace opskit::cmd {

// `json` as text, `indent` spaces a level (-1: on one line), and a newline. A string that is not
// UTF-8 (a path's, a mount point's or a package field's bytes) has each byte that breaks it as
// U+FFFD, where dump() would throw.
template <class Json>
std::string json_text(const Json& json, int indent = 2) {
  return json.dump(indent, ' ', false, Json::error_handler_t::replace) + "\n";
}

} // namespace opskit::cmd
