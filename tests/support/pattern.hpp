// SPDX-License-Identifier: MIT
#pragma once

// Regular expressions for the tests (ECMAScript syntax, as std::regex), compiled in one file:
// <regex>'s templates took seconds a translation unit, most of a test file's compile time in
// the sanitized build.

#include <optional>
#include <string>
#include <vector>

namespace opskit::test::re {

// The captures of the first match of `pattern` in `text` ([0] is the whole match), or nothing.
std::optional<std::vector<std::string>> search(const std::string& text, const std::string& pattern);

// The captures of every match, in order.
std::vector<std::vector<std::string>> search_all(const std::string& text,
                                                 const std::string& pattern);

// The captures when `pattern` matches the whole of `text`, or nothing.
std::optional<std::vector<std::string>> match(const std::string& text, const std::string& pattern);

// `text` with every match replaced by `format` ($& the match, $1 its first capture).
std::string replace(const std::string& text, const std::string& pattern,
                    const std::string& format);

// `text` with every character that means something in a pattern escaped.
std::string escape(const std::string& text);

} // namespace opskit::test::re
