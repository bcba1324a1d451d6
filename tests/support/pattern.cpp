// SPDX-License-Identifier: MIT
#include "pattern.hpp"

#include <regex>

namespace opskit::test::re {

namespace {

std::vector<std::string> captures(const std::smatch& m) {
  return {m.begin(), m.end()};
}

} // namespace

std::optional<std::vector<std::string>> search(const std::string& text,
                                               const std::string& pattern) {
  std::smatch m;
  if (!std::regex_search(text, m, std::regex(pattern)))
    return std::nullopt;
  return captures(m);
}

std::vector<std::vector<std::string>> search_all(const std::string& text,
                                                 const std::string& pattern) {
  std::vector<std::vector<std::string>> out;
  std::regex re(pattern);
  for (std::sregex_iterator m(text.begin(), text.end(), re), end; m != end; ++m)
    out.push_back(captures(*m));
  return out;
}

std::optional<std::vector<std::string>> match(const std::string& text,
                                              const std::string& pattern) {
  std::smatch m;
  if (!std::regex_match(text, m, std::regex(pattern)))
    return std::nullopt;
  return captures(m);
}

std::string replace(const std::string& text, const std::string& pattern,
                    const std::string& format) {
  return std::regex_replace(text, std::regex(pattern), format);
}

std::string escape(const std::string& text) {
  return replace(text, R"([.^$|()\[\]*+?{}\\])", R"(\$&)");
}

} // namespace opskit::test::re
