// SPDX-License-Identifier: MIT
#include "emitter.hpp"

#include <algorithm>
#include <cstdint>
#include <numeric>

#include <unistd.h>

#include <fmt/format.h>

#include "metadata.hpp"
#include "opskit/file.hpp"
#include "opskit/text.hpp"

namespace opskit::counters {

Info* Emitter::emit(std::string name, std::string_view pattern, Kind kind, std::string_view unit,
                    Locator locator, Convert convert) {
  if (!holds(prefix_, name))
    return nullptr;
  Info info{std::move(name), kind, std::string(unit), {}};
  if (const Known* k = known(pattern)) {
    info.kind = k->kind;
    info.unit = k->unit;
    info.description = k->description;
  }
  if (info.kind == Kind::text && !convert.kind_from_value)
    convert.text = true;
  out_.push_back(Field{std::move(info), path_, layout_, std::move(locator), convert, reader_});
  return &out_.back().info;
}

void sort_by_name(std::span<Field> fields) {
  if (fields.size() < 2)
    return;
  // What every name starts with compares equal: skipped once here, not in each comparison (the
  // names of a cgroup's file share some 50 bytes), but for a run of digits it ends in, which the
  // bytes after it may make different numbers ("cpu.1" and "cpu.10").
  std::string_view first = fields.front().info.name;
  std::size_t common = first.size();
  for (const Field& field : fields.subspan(1))
    common = static_cast<std::size_t>(
        std::ranges::mismatch(first.substr(0, common), std::string_view(field.info.name)).in1 -
        first.begin());
  while (common > 0 && first[common - 1] >= '0' && first[common - 1] <= '9')
    --common;
  auto rest_of = [&](const Field& field) {
    return std::string_view(field.info.name).substr(common);
  };
  if (std::ranges::is_sorted(fields, natural_less, rest_of))
    return;
  std::vector<std::uint32_t> order(fields.size());
  std::iota(order.begin(), order.end(), 0U);
  std::ranges::stable_sort(order, natural_less,
                           [&](std::uint32_t i) { return rest_of(fields[i]); });
  std::vector<Field> sorted;
  sorted.reserve(fields.size());
  for (std::uint32_t i : order)
    sorted.push_back(std::move(fields[i]));
  std::ranges::move(sorted, fields.begin());
}

void emit_columns(std::string_view text, std::string_view base, std::span<const ColumnSpec> columns,
                  Emitter& emitter) {
  for_each_record(text, k_lines, [&](const Record& r) {
    std::string name = fmt::format("{}.{}", base, component_of(r.key));
    if (!related(emitter.prefix(), name))
      return;
    for (std::size_t i = 0; i < columns.size() && i < r.tokens.size(); ++i) {
      const auto& column = columns[i];
      if (r.tokens[i] == "-")
        continue;
      if (Info* info =
              emitter.emit(fmt::format("{}.{}", name, column.name),
                           fmt::format("{}.*.{}", base, column.name), column.kind, column.unit,
                           {std::string(r.key), static_cast<int>(i), r.offset}, column.convert))
        info->description = column.description;
    }
  });
}

std::optional<std::string> read_rendered(const std::string& path, Reader reader) {
  auto raw = read_file(path);
  if (!raw)
    return std::nullopt;
  std::string text;
  detail::render_file(reader, *raw, text);
  return text;
}

void find_rendered(const Roots& roots, std::string_view prefix, std::string_view file,
                   Reader reader, std::string_view base, std::span<const ColumnSpec> columns,
                   std::vector<Field>& out) {
  if (!related(prefix, base))
    return;
  std::string path = fmt::format("{}/{}", roots.proc, file);
  auto text = read_rendered(path, reader);
  if (!text)
    return;
  Emitter emitter(roots, path, Layout{.end = detail::end_of(reader)}, prefix, out, reader);
  emit_columns(*text, base, columns, emitter);
}

bool related(std::string_view prefix, std::string_view source_prefix) noexcept {
  return !source_prefix.empty() && (holds(prefix, source_prefix) || holds(source_prefix, prefix));
}

void read_source(const SourceSpec& spec, std::string_view base, Emitter& emitter) {
  auto text = read_file(emitter.path());
  if (!text) {
    for (std::string_view key : spec.fallback_keys)
      spec.enumerate(Record{key, {}, {}, {}, 0}, base, emitter);
    return;
  }
  for_each_record(*text, spec.layout, [&](const Record& r) { spec.enumerate(r, base, emitter); });
}

double ticks_per_second() {
  static const double hz = [] {
    long t = ::sysconf(_SC_CLK_TCK);
    return t > 0 ? static_cast<double>(t) : 100.0;
  }();
  return hz;
}

} // namespace opskit::counters
