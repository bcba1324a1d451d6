// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace opskit {

enum class Align { left, right };

struct Column {
  std::string header;
  Align align = Align::left;
};

// A plain-text table: a header row, then one row per add_row, columns two spaces apart.
// Cells are counted in bytes of UTF-8 code points, not display cells. A control byte in a cell
// (a newline in a file name) is shown escaped, as strace shows it ("\n", "\t", "\x1b"), so that
// a row stays one line.
class Table {
public:
  explicit Table(std::vector<Column> columns) : columns_(std::move(columns)) {}

  // A row with fewer cells than columns is padded with empty cells; extra cells are a bug.
  void add_row(std::vector<std::string> cells);
  bool empty() const noexcept { return rows_.empty(); }

  // Renders the table. With `max_width` > 0, the widest left-aligned column is shortened (its
  // cells lose characters at the front, marked "...") so that every line fits, where it can.
  std::string render(std::size_t max_width = 0) const;

private:
  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_;
};

} // namespace opskit
