// SPDX-License-Identifier: MIT
#include "opskit/table.hpp"

#include <algorithm>
#include <cassert>
#include <numeric>

#include <fmt/format.h>

namespace opskit {

namespace {

std::size_t width_of(const std::string& s) {
  return static_cast<std::size_t>(std::count_if(
      s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

// Keeps the last `width` code points of `s`, marking the cut with "...".
std::string shorten_front(const std::string& s, std::size_t width) {
  if (width_of(s) <= width)
    return s;
  if (width <= 3)
    return std::string(width, '.');
  std::size_t keep = width - 3, seen = 0, pos = s.size();
  while (pos > 0 && seen < keep) {
    --pos;
    if ((static_cast<unsigned char>(s[pos]) & 0xC0) != 0x80)
      ++seen;
  }
  return "..." + s.substr(pos);
}

bool control(char c) {
  return static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
}

// `s` with its control bytes escaped.
std::string escape_controls(std::string s) {
  if (std::none_of(s.begin(), s.end(), control))
    return s;
  std::string out;
  for (char c : s) {
    if (c == '\n')
      out += "\\n";
    else if (c == '\t')
      out += "\\t";
    else if (c == '\r')
      out += "\\r";
    else if (control(c))
      out += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
    else
      out += c;
  }
  return out;
}

} // namespace

void Table::add_row(std::vector<std::string> cells) {
  assert(cells.size() <= columns_.size());
  cells.resize(columns_.size());
  for (auto& cell : cells)
    cell = escape_controls(std::move(cell));
  rows_.push_back(std::move(cells));
}

std::string Table::render(std::size_t max_width) const {
  std::vector<std::size_t> widths(columns_.size());
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    widths[c] = width_of(columns_[c].header);
    for (const auto& row : rows_)
      widths[c] = std::max(widths[c], width_of(row[c]));
  }
  std::size_t total = std::accumulate(widths.begin(), widths.end(), std::size_t{0}) +
                      2 * (columns_.empty() ? 0 : columns_.size() - 1);
  std::size_t squeeze = columns_.size(); // column to shorten, if any
  if (max_width > 0 && total > max_width) {
    for (std::size_t c = 0; c < columns_.size(); ++c)
      if (columns_[c].align == Align::left &&
          (squeeze == columns_.size() || widths[c] > widths[squeeze]))
        squeeze = c;
    if (squeeze < columns_.size()) {
      std::size_t excess = total - max_width;
      std::size_t floor = std::max<std::size_t>(width_of(columns_[squeeze].header), 8);
      widths[squeeze] = widths[squeeze] > floor + excess ? widths[squeeze] - excess
                                                         : std::min(widths[squeeze], floor);
    }
  }

  std::string out;
  auto emit = [&](const std::vector<std::string>& cells) {
    std::string line;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      std::string cell = c == squeeze ? shorten_front(cells[c], widths[c]) : cells[c];
      std::size_t pad = widths[c] - std::min(widths[c], width_of(cell));
      bool last = c + 1 == cells.size();
      if (columns_[c].align == Align::right)
        line.append(pad, ' ').append(cell);
      else
        line.append(cell).append(last ? 0 : pad, ' ');
      if (!last)
        line.append("  ");
    }
    out.append(line).push_back('\n');
  };
  std::vector<std::string> header;
  for (const auto& column : columns_)
    header.push_back(column.header);
  emit(header);
  for (const auto& row : rows_)
    emit(row);
  return out;
}

} // namespace opskit
