// SPDX-License-Identifier: MIT
// deb822 paragraphs: DEBIAN/control, Packages stanzas and Release files.
//
// The format is specified in Debian Policy §5.1 and deb822(5): "Name: value" lines; a line that
// starts with a space or tab continues the previous field; paragraphs are separated by blank
// lines; field names are case-insensitive and unique within a paragraph. What is subtle:
// multi-line fields (Description, Conffiles) are meaningful byte for byte — a continuation line
// of " ." is an empty line of the long description, and tools such as apt show them as written —
// so continuation lines are kept exactly, never re-wrapped or trimmed. Only the first line's
// value loses its leading whitespace, the value its trailing whitespace (as dpkg's parser and
// apt-ftparchive drop it: "Architecture: amd64 " is amd64), and every line its newline.
// A line holding only spaces ends a paragraph in dpkg's parser, as an empty one does.
#include "opskit/repo/format/deb/control.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "opskit/text.hpp"

namespace opskit::repo {

namespace {

bool is_blank(std::string_view line) noexcept {
  return line.find_first_not_of(" \t\r") == std::string_view::npos;
}

// Splits `text` into lines (without '\n'); a final line without '\n' counts.
std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    auto nl = text.find('\n');
    lines.push_back(text.substr(0, nl));
    if (nl == std::string_view::npos)
      break;
    text.remove_prefix(nl + 1);
  }
  return lines;
}

// Parses lines [begin, end) that hold one paragraph; `first_line` is its 1-based line number.
Result<Stanza> parse_lines(const std::vector<std::string_view>& lines, std::size_t begin,
                           std::size_t end, std::string_view what) {
  std::vector<Field> fields;
  for (std::size_t i = begin; i < end; ++i) {
    std::string_view line = lines[i];
    if (line.front() == ' ' || line.front() == '\t') {
      if (fields.empty())
        return fail(
            fmt::format("{}: line {}: continuation line before the first field", what, i + 1));
      fields.back().value.push_back('\n');
      fields.back().value.append(line);
      continue;
    }
    auto colon = line.find(':');
    if (colon == std::string_view::npos)
      return fail(fmt::format("{}: line {}: no ':' in a field line", what, i + 1));
    std::string_view name = line.substr(0, colon);
    if (name.empty() || name.find_first_of(" \t") != std::string_view::npos)
      return fail(fmt::format("{}: line {}: bad field name '{}'", what, i + 1, excerpt(name)));
    for (const auto& f : fields)
      if (iequals(f.name, name))
        return fail(fmt::format("{}: line {}: duplicate field '{}'", what, i + 1, excerpt(name)));
    std::string_view value = line.substr(colon + 1);
    value.remove_prefix(std::min(value.find_first_not_of(" \t"), value.size()));
    fields.push_back({std::string(name), std::string(value)});
  }
  for (auto& f : fields)
    f.value.erase(f.value.find_last_not_of(" \t") + 1);
  return Stanza(std::move(fields));
}

} // namespace

const std::string* Stanza::find(std::string_view name) const noexcept {
  for (const auto& f : fields_)
    if (iequals(f.name, name))
      return &f.value;
  return nullptr;
}

std::string Stanza::render() const {
  std::string out;
  for (const auto& f : fields_) {
    out.append(f.name);
    out.append(f.value.empty() || f.value.front() == '\n' ? ":" : ": ");
    out.append(f.value);
    out.push_back('\n');
  }
  return out;
}

Result<std::vector<Stanza>> parse_stanzas(std::string_view text, std::string_view what) {
  auto lines = lines_of(text);
  std::vector<Stanza> stanzas;
  std::size_t i = 0;
  while (i < lines.size()) {
    if (is_blank(lines[i])) {
      ++i;
      continue;
    }
    std::size_t end = i;
    while (end < lines.size() && !is_blank(lines[end]))
      ++end;
    OPSKIT_TRY_ASSIGN(auto stanza, parse_lines(lines, i, end, what));
    stanzas.push_back(std::move(stanza));
    i = end;
  }
  return stanzas;
}

Result<Stanza> parse_stanza(std::string_view text, std::string_view what) {
  OPSKIT_TRY_ASSIGN(auto stanzas, parse_stanzas(text, what));
  if (stanzas.empty())
    return fail(fmt::format("{}: empty", what));
  if (stanzas.size() > 1)
    return fail(fmt::format("{}: more than one paragraph", what));
  return std::move(stanzas.front());
}

} // namespace opskit::repo
