// SPDX-License-Identifier: MIT
// A Packages text read back as the stanzas build_apt_suite wrote, for a rewrite that takes out
// and puts in only the packages that changed (ops/write_apt.cpp).
//
// What is subtle: a stanza's identity is read from its own Package, Version and Architecture
// lines, which are the record's name, version and arch as they were recorded (the control
// file's values, checked when the package was read); field names are matched without regard
// to case, as dpkg does. A control file holds no blank line, so one ends a stanza.
#include <cstring>
#include <utility>

#include <strings.h>

#include "opskit/repo/index/apt/suite.hpp"

namespace opskit::repo {

namespace {

// Whether `line` starts with the field `name` (any case) and a colon; its value then.
std::optional<std::string_view> field_value(std::string_view line, std::string_view name) {
  if (line.size() <= name.size() || line[name.size()] != ':' ||
      strncasecmp(line.data(), name.data(), name.size()) != 0)
    return std::nullopt;
  std::string_view value = line.substr(name.size() + 1);
  while (!value.empty() && value.front() == ' ')
    value.remove_prefix(1);
  return value;
}

} // namespace

std::string_view stanza_field(const AptStanza& stanza, std::string_view name) {
  for (std::size_t line = 0; line < stanza.text.size();) {
    std::size_t eol = stanza.text.find('\n', line);
    if (auto value = field_value(stanza.text.substr(line, eol - line), name))
      return *value;
    line = eol + 1;
  }
  return {};
}

std::optional<std::vector<AptStanza>> packages_stanzas(std::string_view text) {
  std::vector<AptStanza> out;
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = text.find("\n\n", at);
    end = end == std::string_view::npos ? text.size() : end + 1;
    AptStanza s;
    s.text = text.substr(at, end - at);
    if (s.text.empty() || s.text.back() != '\n')
      return std::nullopt;
    // A control file names each field once: the reading stops at the last of the three.
    for (std::size_t line = 0;
         line < s.text.size() && (s.name.empty() || s.version.empty() || s.arch.empty());) {
      std::size_t eol = s.text.find('\n', line);
      std::string_view l = s.text.substr(line, eol - line);
      for (auto [name, into] : {std::pair{"Package", &s.name}, std::pair{"Version", &s.version},
                                std::pair{"Architecture", &s.arch}})
        if (auto value = field_value(l, name))
          *into = *value;
      line = eol + 1;
    }
    if (s.name.empty() || s.version.empty() || s.arch.empty())
      return std::nullopt;
    out.push_back(s);
    at = end + 1; // past the blank line
  }
  return out;
}

} // namespace opskit::repo
