// SPDX-License-Identifier: MIT
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "opskit/error.hpp"

namespace opskit::repo {

// One field of a deb822 stanza. `value` is the text after "Name:" with the spaces after the
// colon removed; continuation lines follow byte for byte, each after a '\n' with its leading
// space, so name + ": " + value reproduces a canonically written field exactly.
struct Field {
  std::string name;
  std::string value;
};

// A deb822 paragraph (a DEBIAN/control file, a Packages stanza, a Release file) with its fields
// in their original order.
class Stanza {
public:
  Stanza() = default;
  explicit Stanza(std::vector<Field> fields) : fields_(std::move(fields)) {}

  // The value of the field named `name` (case-insensitive, as deb822 says), or nullptr.
  const std::string* find(std::string_view name) const noexcept;
  const std::vector<Field>& fields() const noexcept { return fields_; }
  // Appends a field; the caller keeps names unique.
  void add(std::string name, std::string value) {
    fields_.push_back({std::move(name), std::move(value)});
  }
  // "Name: value\n" for each field, in order.
  std::string render() const;

private:
  std::vector<Field> fields_;
};

// Parses `text` as exactly one deb822 paragraph (blank lines before and after are allowed).
// Errors, worded for `what` ("control file of x.deb: ..."): a continuation line before the first
// field, a line without a colon, an empty field name, a duplicate field, a second paragraph.
Result<Stanza> parse_stanza(std::string_view text, std::string_view what);

// Parses a file of paragraphs separated by blank lines (a Packages file).
Result<std::vector<Stanza>> parse_stanzas(std::string_view text, std::string_view what);

} // namespace opskit::repo
