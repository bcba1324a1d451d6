// SPDX-License-Identifier: MIT
//
// One table-driven reader for every file kstat reads.
//
// Linux exposes its counters in a handful of text layouts, and the look-alike files share them:
//
//   lines   "pgfault 123456"                       /proc/vmstat, /proc/<pid>/io ("rchar: 1")
//           "MemTotal:       16316412 kB"          /proc/meminfo, /proc/<pid>/status
//           "cpu0 348 0 285 4845 3 0 5 1 0 0"      /proc/stat (a key, then columns)
//           "   8  0 vda 1234 56 ..."              /proc/diskstats (the key is the third token)
//           "0.30 0.09 0.03 1/79 2076"             /proc/loadavg (no key; '/' separates too)
//           "42 (bash) S 1 42 ..."                 /proc/<pid>/stat (no key; comm may hold
//                                                  spaces and parentheses, so tokens start
//                                                  after the last ')')
//   table   "Tcp: RtoAlgorithm RtoMin ..."         /proc/net/snmp, /proc/net/netstat: a header
//           "Tcp: 1 200 ..."                       line names the columns of the line after it
//           "some avg10=1.48 avg60=3.18 ..."       /proc/pressure/* ('=' separates too)
//           "     CPU0   CPU1"                     /proc/softirqs, /proc/interrupts: a header
//           "TIMER:  1096575  771106"              line names the columns; an interrupt's
//           " 24:  1  0  IO-APIC 5-edge ACPI:Ged"  total sums its CPU columns
//           "  eth0: 108689089 3661 0 ..."         /proc/net/dev (two header lines skipped)
//           "usage_usec 53598148442"               cgroup cpu.stat, memory.stat
//           "254:0 rbytes=1 wbytes=2 ..."          cgroup io.stat
//   whole   "60\n"                                 every /proc/sys file is one value, and so
//                                                  are /sys's statistics files
//
// A mount point's usage has no file: the statfs reader renders statvfs(3) as keyed lines
// ("size 123\navail 45\n..."), and from there it is located and converted like a file.
//
// A Layout says which of these a file is; a Locator says where one field is (record key and
// column); reading a field is: one pread of the whole file at offset 0 (see file.hpp for why
// only that is correct for /proc/sys and cheapest for seq_files), then locate() and convert().
//
// locate() is the hot path of a resolved handle. It allocates nothing: tokens are found by a
// cursor over the line, and the search starts at the byte offset where the record was found
// last time (the hint). The files keep their order between reads, so the hint is almost always
// right and a read costs one line's worth of scanning; when a record moves (a disk appears, a
// kernel adds a counter) the search falls back to a scan and remembers the new place.
//
// Values stay as the kernel writes them except for documented unit changes: "kB" in meminfo and
// status becomes bytes, and USER_HZ ticks in /proc/stat become seconds.

#include "reader.hpp"

#include <algorithm>
#include <bit>
#include <cctype>
#include <charconv>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <set>
#include <system_error>
#include <thread>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <fmt/compile.h>
#include <fmt/format.h>

#include "opskit/file.hpp"
#include "opskit/text.hpp"
#include "sources.hpp"

namespace opskit::counters {

namespace {

std::string_view strip_colon(std::string_view token) noexcept {
  if (!token.empty() && token.back() == ':')
    token.remove_suffix(1);
  return token;
}

std::string_view line_at(std::string_view text, std::size_t offset) noexcept {
  std::size_t end = text.find('\n', offset);
  return text.substr(offset, end == std::string_view::npos ? std::string_view::npos : end - offset);
}

// The line of the record at `offset`; for a layout after_paren, what follows the text's last
// ')' on its line: <pid>/stat's comm, which a task names itself, may hold a newline too.
std::string_view record_line(std::string_view text, std::size_t offset,
                             const Layout& layout) noexcept {
  if (!layout.after_paren)
    return line_at(text, offset);
  std::size_t paren = text.rfind(')');
  return paren == std::string_view::npos || paren < offset ? line_at(text, offset)
                                                           : line_at(text, paren + 1);
}

// The key of a keyed line, and a cursor positioned after it.
std::optional<std::string_view> line_key(Tokens& tokens, int key_token) noexcept {
  std::optional<std::string_view> token;
  for (int i = 0; i <= key_token; ++i)
    if (!(token = tokens.next()))
      return std::nullopt;
  return strip_colon(*token);
}

std::optional<std::string_view> column_of(Tokens& tokens, int column) noexcept {
  return column < 0 ? tokens.rest() : tokens.after(column);
}

// The field in the line at `offset`, if that line is the record `locator` names.
std::optional<std::string_view> field_in_line(std::string_view text, std::size_t offset,
                                              const Layout& layout, const Locator& locator) {
  Tokens tokens(record_line(text, offset, layout), layout.separators);
  if (layout.key_token >= 0) {
    auto key = line_key(tokens, layout.key_token);
    if (!key || *key != locator.key)
      return std::nullopt;
  }
  return column_of(tokens, locator.column);
}

// For tables: is the line at `offset` the value line of record `key` (its header just above)?
bool is_table_value_line(std::string_view text, std::size_t offset, std::string_view key) {
  if (offset < 2)
    return false;
  std::size_t header = text.rfind('\n', offset - 2);
  header = header == std::string_view::npos ? 0 : header + 1;
  Tokens value(line_at(text, offset), {});
  Tokens name(line_at(text, header), {});
  auto value_key = line_key(value, 0);
  auto header_key = line_key(name, 0);
  return value_key && header_key && *value_key == key && *header_key == key;
}

std::optional<Value> cp_time(std::string_view cpu_line) {
  std::uint64_t t[7] = {};
  Tokens tokens(cpu_line, {});
  for (auto& v : t) {
    auto token = tokens.next();
    auto number = token ? parse_number(*token) : std::nullopt;
    if (!number || !std::holds_alternative<std::uint64_t>(*number))
      return std::nullopt;
    v = std::get<std::uint64_t>(*number);
  }
  enum { user, nice, system, idle, iowait, irq, softirq };
  return Value(fmt::format("{} {} {} {} {}", t[user], t[nice], t[system], t[irq] + t[softirq],
                           t[idle] + t[iowait]));
}

// The sum of the first `count` tokens of `rest`, up to the first that is not a count.
std::optional<Value> sum_of(std::string_view rest, std::size_t count) {
  std::uint64_t sum = 0;
  Tokens tokens(rest, {});
  for (std::size_t i = 0; i < count; ++i) {
    auto token = tokens.next();
    std::uint64_t n = 0;
    if (!token || std::from_chars(token->data(), token->data() + token->size(), n).ptr !=
                      token->data() + token->size())
      return i == 0 ? std::nullopt : std::optional<Value>(sum);
    sum += n;
  }
  return Value(sum);
}

// `number` times `multiply` ("kB" -> bytes): exact while the product fits in 64 bits, else a real
// (a wrapped figure would be silently wrong).
Value scaled(const Value& number, std::uint64_t multiply) {
  if (const auto* u = std::get_if<std::uint64_t>(&number)) {
    std::uint64_t product = 0;
    if (!__builtin_mul_overflow(*u, multiply, &product))
      return product;
  } else if (const auto* i = std::get_if<std::int64_t>(&number)) {
    std::int64_t product = 0;
    if (!__builtin_mul_overflow(*i, multiply, &product))
      return product;
  }
  return *as_number(number) * static_cast<double>(multiply);
}

} // namespace

std::optional<std::string_view> locate(std::string_view text, const Layout& layout,
                                       Locator& locator) {
  switch (layout.shape) {
  case Layout::Shape::whole:
    return trim(text);
  case Layout::Shape::lines: {
    if (layout.key_token < 0) // one record: the first line
      return field_in_line(text, 0, layout, locator);
    if (is_keyed_column(layout, locator)) {
      if (auto field = field_at_hint(text, layout, locator); field.data())
        return field;
    } else if (locator.hint < text.size() &&
               (locator.hint == 0 || text[locator.hint - 1] == '\n')) {
      if (auto field = field_in_line(text, locator.hint, layout, locator))
        return field;
    }
    for (std::size_t offset = 0; offset < text.size();) {
      if (auto field = field_in_line(text, offset, layout, locator)) {
        locator.hint = offset;
        return field;
      }
      std::size_t end = text.find('\n', offset);
      offset = end == std::string_view::npos ? text.size() : end + 1;
    }
    return std::nullopt;
  }
  case Layout::Shape::table: {
    auto in_value_line = [&](std::size_t offset) -> std::optional<std::string_view> {
      if (!is_table_value_line(text, offset, locator.key))
        return std::nullopt;
      Tokens tokens(line_at(text, offset), {});
      tokens.next(); // the key
      return column_of(tokens, locator.column);
    };
    // At the hint, as for keyed lines, without finding the header line or the line's end; a
    // number tells the value line from the header line, whose tokens are names.
    if (auto field = field_at_hint(text, layout, locator);
        !field.empty() &&
        (std::isdigit(static_cast<unsigned char>(field.front())) || field.front() == '-'))
      return field;
    for (std::size_t offset = 0; offset < text.size();) {
      std::size_t end = text.find('\n', offset);
      std::size_t next = end == std::string_view::npos ? text.size() : end + 1;
      if (next < text.size())
        if (auto field = in_value_line(next)) {
          locator.hint = next;
          return field;
        }
      offset = next;
    }
    return std::nullopt;
  }
  }
  return std::nullopt;
}

namespace {

// The tokens at `columns` (ascending) of the values from `at` to the end of its line, into `out`;
// an empty view for each past the line's last token.
template <bool Separators>
void columns_of_line(const char* at, const char* end, std::string_view separators,
                     std::span<const int> columns, std::span<std::string_view> out) noexcept {
  auto separator = [&](char c) { return Separators ? is_separator(c, separators) : is_blank(c); };
  std::size_t k = 0;
  for (int column = 0; k < columns.size(); ++column) {
    while (at < end && separator(*at))
      ++at;
    if (at == end || *at == '\n')
      break;
    const char* start = at;
    while (at < end && *at != '\n' && !separator(*at))
      ++at;
    while (k < columns.size() && column == columns[k]) // a column asked for twice, each time
      out[k++] = std::string_view(start, static_cast<std::size_t>(at - start));
  }
  for (; k < columns.size(); ++k)
    out[k] = {};
}

#if defined(__SSE2__)
// The bits set in a chunk's mask, without a call (std::popcount() is one to libgcc where the
// instruction may be missing: x86-64's baseline).
int bits_set(unsigned mask) noexcept {
  mask -= (mask >> 1) & 0x5555U;
  mask = (mask & 0x3333U) + ((mask >> 2) & 0x3333U);
  mask = (mask + (mask >> 4)) & 0x0f0fU;
  return static_cast<int>((mask + (mask >> 8)) & 0x1fU);
}

// columns_of_line() for values separated by blanks and `also` (pressure's '=', or a blank),
// sixteen bytes a step: a chunk's separators as a bitmask (pcmpeqb, pmovmskb), its tokens' starts
// the others after one, and a chunk whose starts do not reach the next column asked for passed
// over whole. A byte at a time, the walk of /proc/net/netstat's line of 120 counters, mostly "0",
// was a sixth of a snapshot's parse.
void blank_columns_of_line(const char* at, const char* end, char also, std::span<const int> columns,
                           std::span<std::string_view> out) noexcept {
  constexpr std::ptrdiff_t k_width = 16;
  const auto* newline =
      static_cast<const char*>(std::memchr(at, '\n', static_cast<std::size_t>(end - at)));
  const char* line_end = newline != nullptr ? newline : end;
  std::size_t k = 0;
  int column = -1;
  unsigned blank_before = 1; // the byte before `at`, taken as a blank
  for (const char* chunk = at; chunk < line_end && k < columns.size(); chunk += k_width) {
    __m128i bytes;
    if (line_end - chunk >= k_width) {
      bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(chunk));
    } else { // the line's last bytes, blanks after them: nothing is read past the line
      char last[k_width];
      std::memset(last, ' ', sizeof last);
      std::memcpy(last, chunk, static_cast<std::size_t>(line_end - chunk));
      bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(last));
    }
    auto blanks = static_cast<unsigned>(
        _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(bytes, _mm_set1_epi8(' ')),
                                                    _mm_cmpeq_epi8(bytes, _mm_set1_epi8('\t'))),
                                       _mm_cmpeq_epi8(bytes, _mm_set1_epi8(also)))));
    unsigned starts = ~blanks & ((blanks << 1) | blank_before) & 0xffffU;
    blank_before = blanks >> (k_width - 1);
    if (int count = bits_set(starts); column + count < columns[k]) {
      column += count;
      continue;
    }
    for (; starts != 0 && k < columns.size(); starts &= starts - 1) {
      if (++column != columns[k])
        continue;
      int first = std::countr_zero(starts);
      const char* start = chunk + first;
      const char* stop = chunk + k_width; // the token runs on into the next chunk, unless
      if (unsigned after = blanks >> first; after != 0)
        stop = start + std::countr_zero(after);
      while (stop < line_end && !is_blank(*stop) && *stop != also)
        ++stop;
      for (std::string_view token(start, static_cast<std::size_t>(stop - start));
           k < columns.size() && columns[k] == column;)
        out[k++] = token; // a column asked for twice, each time
    }
  }
  for (; k < columns.size(); ++k)
    out[k] = {};
}
#endif

// columns_of_line() by the layout's separators: sixteen bytes a step where that can be.
void values_into_columns(const char* at, const char* end, const Layout& layout,
                         std::span<const int> columns, std::span<std::string_view> out) noexcept {
  bool blanks = layout.shape == Layout::Shape::table || layout.separators.empty();
#if defined(__SSE2__)
  if (blanks || layout.separators.size() == 1)
    return blank_columns_of_line(at, end, blanks ? ' ' : layout.separators.front(), columns, out);
#endif
  if (blanks)
    return columns_of_line<false>(at, end, {}, columns, out);
  columns_of_line<true>(at, end, layout.separators, columns, out);
}

// locate_columns() when the record is still at the hint, as it is at almost every read: the key
// checked in place and the line walked once, from the first value to the last column asked for.
// False, `out` untouched or not, when the record is not there or lacks the first column, or a
// table's line at the hint is its header (names, not numbers): the caller then searches.
bool columns_at_hint(std::string_view text, const Layout& layout, const Locator& locator,
                     std::span<const int> columns, std::span<std::string_view> out) noexcept {
  if (!is_keyed_column(layout, locator) && layout.shape != Layout::Shape::table)
    return false;
  const char* values = values_at_hint(text, locator);
  if (values == nullptr)
    return false;
  values_into_columns(values, text.data() + text.size(), layout, columns, out);
  if (out.front().empty())
    return false;
  char first = out.front().front();
  return layout.shape != Layout::Shape::table || std::isdigit(static_cast<unsigned char>(first)) ||
         first == '-';
}

} // namespace

bool locate_columns(std::string_view text, const Layout& layout, Locator& locator,
                    std::span<const int> columns, std::span<std::string_view> out) {
  if (columns_at_hint(text, layout, locator, columns, out))
    return true;
  if (!locate(text, layout, locator))
    return false;
  bool table = layout.shape == Layout::Shape::table;
  Tokens tokens(record_line(text, locator.hint, layout),
                table ? std::string_view{} : layout.separators);
  if (table || layout.key_token >= 0)
    line_key(tokens, table ? 0 : layout.key_token);
  int column = -1;
  std::optional<std::string_view> token;
  for (std::size_t k = 0; k < columns.size(); ++k) {
    while (column < columns[k] && (token = tokens.next()))
      ++column;
    out[k] = column == columns[k] ? *token : std::string_view{};
  }
  return true;
}

bool convert_into(std::string_view token, const Convert& how, Value& out) {
  // The common cases first, stored without a temporary: a plain unsigned counter, and one
  // made a real in a larger unit (ticks or milliseconds -> seconds).
  if (std::uint64_t count = 0; !how.text && !how.cp_time && !how.hex && !how.human) {
    if (how.divide == 1 && parse_count(token, how.multiply, count)) {
      out = count;
      return true;
    }
    if (how.divide != 1 && how.sum_columns == 0 && parse_count(token, 1, count)) {
      double now = static_cast<double>(count) / how.divide;
      if (const auto* before = how.never_back ? std::get_if<double>(&out) : nullptr;
          before && now < *before && *before - now < k_back_seconds)
        now = *before;
      out = now;
      return true;
    }
    // A real as it is ("0.66": a load average, pressure's averages).
    if (auto decimal = how.divide == 1 && how.multiply == 1 && how.sum_columns == 0
                           ? parse_short_decimal(token)
                           : std::nullopt) {
      out = *decimal;
      return true;
    }
  }
  // Text into the string the last read left, whose room it reuses (a link's addresses).
  if (auto* text = std::get_if<std::string>(&out);
      text && how.text && !how.octal_escapes && !how.hex && !how.human) {
    text->assign(token);
    return true;
  }
  auto value = convert(token, how);
  if (!value)
    return false;
  out = std::move(*value);
  return true;
}

namespace {

// "0x1f" or "1f" in hexadecimal: a number, or its digits as text.
std::optional<Value> hexadecimal(std::string_view token, bool text) {
  if (token.starts_with("0x") || token.starts_with("0X"))
    token.remove_prefix(2);
  if (text)
    return Value(std::string(token));
  std::uint64_t n = 0;
  auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), n, 16);
  if (token.empty() || ec != std::errc() || end != token.data() + token.size())
    return std::nullopt;
  return Value(n);
}

// bcache's "3.5M": whole units and a digit the kernel's bch_hprint() writes for the tenths of
// the rest (its 1024ths, times 10, over 1024). node_exporter's procfs reads that digit d as d /
// 10.24 of a unit, and so does this, that the two agree: at most a tenth of a unit apart from
// what the kernel had. A number without a unit is as it is written.
std::optional<Value> human_size(std::string_view token) {
  if (token.ends_with("/sec"))
    token.remove_suffix(4);
  bool negative = token.starts_with('-');
  if (negative)
    token.remove_prefix(1);
  double unit = 1;
  if (!token.empty() && (token.back() < '0' || token.back() > '9')) {
    constexpr std::string_view k_units = "kMGTPE";
    std::size_t power = k_units.find(token.back());
    if (power == std::string_view::npos)
      return std::nullopt;
    unit = static_cast<double>(std::uint64_t{1} << (10 * (power + 1)));
    token.remove_suffix(1);
  }
  std::size_t dot = token.find('.');
  std::string_view whole = token.substr(0, dot);
  std::string_view tenths = dot == std::string_view::npos ? "" : token.substr(dot + 1);
  std::uint64_t units = 0, digits = 0;
  if (!parse_count(whole, 1, units) ||
      (dot != std::string_view::npos && !parse_count(tenths, 1, digits)))
    return std::nullopt;
  double mantissa = static_cast<double>(units);
  if (dot != std::string_view::npos)
    mantissa += unit == 1 ? static_cast<double>(digits) / std::pow(10.0, tenths.size())
                          : static_cast<double>(digits) / 10.24;
  double value = mantissa * unit;
  if (value >= 0x1p64)
    return std::nullopt;
  auto size = static_cast<std::uint64_t>(value);
  if (negative && size > std::uint64_t{1} << 63)
    return std::nullopt;
  if (negative)
    return Value(static_cast<std::int64_t>(0 - size));
  return Value(size);
}

} // namespace

std::optional<Value> convert(std::string_view token, const Convert& how) {
  if (how.hex)
    return hexadecimal(token, how.text);
  if (how.human)
    return human_size(token);
  if (how.cp_time)
    return cp_time(token);
  if (how.sum_columns > 0)
    return sum_of(token, how.sum_columns);
  if (how.text)
    return Value(how.octal_escapes ? mount_path(token) : std::string(token));
  auto number = parse_number(token);
  if (!number)
    return how.kind_from_value ? std::optional<Value>(Value(std::string(token))) : std::nullopt;
  if (how.divide != 1)
    return Value(*as_number(*number) / how.divide);
  if (how.multiply != 1)
    return scaled(*number, how.multiply);
  return number;
}

void for_each_record(std::string_view text, const Layout& layout,
                     const std::function<void(const Record&)>& visit) {
  std::vector<std::string_view> tokens, names;
  std::string_view previous_key;
  std::vector<std::string_view> previous_tokens;
  for (std::size_t offset = 0; offset < text.size();) {
    std::string_view line = line_at(text, offset);
    std::size_t next = offset + line.size() + 1;
    if (layout.shape == Layout::Shape::whole) {
      visit(Record{{}, {}, {}, trim(text), 0});
      return;
    }
    if (layout.header_line && offset == 0) {
      Tokens header(line, layout.separators);
      while (auto token = header.next())
        names.push_back(*token);
      offset = next;
      continue;
    }
    if (layout.after_paren)
      line = record_line(text, offset, layout);
    Tokens cursor(line, layout.separators);
    std::string_view key;
    if (layout.key_token >= 0) {
      auto k = line_key(cursor, layout.key_token);
      if (!k) {
        offset = next;
        continue;
      }
      key = *k;
    }
    std::string_view rest = cursor.rest();
    tokens.clear();
    while (auto token = cursor.next())
      tokens.push_back(*token);
    if (layout.shape == Layout::Shape::table) {
      if (key == previous_key && !previous_tokens.empty()) {
        names = previous_tokens;
        visit(Record{key, tokens, names, rest, offset});
        previous_key = {};
        previous_tokens.clear();
      } else {
        previous_key = key;
        previous_tokens = tokens;
      }
    } else {
      visit(Record{key, tokens, names, rest, offset});
    }
    if (layout.key_token < 0)
      return; // one record: the first line
    offset = next;
  }
}

namespace detail {

namespace {

// The paths whose call missed its deadline and has not returned (hung()). Never destroyed: a
// call that returns after main() does still unmarks its path.
struct HungCalls {
  std::mutex mutex;
  std::set<std::string, std::less<>> paths;
};
HungCalls& hung_calls() {
  static auto* calls = new HungCalls;
  return *calls;
}

} // namespace

bool hung(std::string_view path) {
  HungCalls& calls = hung_calls();
  std::lock_guard lock(calls.mutex);
  return calls.paths.contains(path);
}

void set_hung(const std::string& path, bool now) {
  HungCalls& calls = hung_calls();
  std::lock_guard lock(calls.mutex);
  if (now)
    calls.paths.insert(path);
  else if (auto it = calls.paths.find(path); it != calls.paths.end())
    calls.paths.erase(it);
}

namespace {

// A statvfs(3) on a thread of its own, which may outlive the read that started it.
struct StatvfsCall {
  std::mutex mutex;
  std::condition_variable cv;
  bool done = false;
  bool hung = false; // its read gave up on it: its return unmarks the path
  int err = 0;
  struct statvfs st {};
};

// A mount point's statvfs(3) figures as lines of a keyed file, so that they are located and
// converted as every other source's are.
void render_statfs(Source& source, const struct statvfs& st) {
  std::uint64_t block = st.f_frsize;
  char text[6 * 32]; // six lines of a key and at most 20 digits
  char* end = fmt::format_to(
      text, FMT_COMPILE("size {}\nfree {}\navail {}\nfiles {}\nfiles_free {}\nreadonly {}\n"),
      st.f_blocks * block, st.f_bfree * block, st.f_bavail * block, st.f_files, st.f_ffree,
      (st.f_flag & ST_RDONLY) != 0 ? 1 : 0);
  source.buffer.assign(text, end);
  source.text = source.buffer;
}

// statvfs(3) on a thread of its own, waited for until `deadline`: the thread holds the call's
// state, so a call that never returns costs that thread and nothing else, and the mount point
// is not called again, by any source, until it has (hung(); node_exporter's filesystem collector
// treats a stuck mount the same way). Why there is no answer, or nothing when the call returned,
// with `err` its errno or 0.
std::optional<std::string_view> statvfs_by(Source& source, Source::Clock::time_point deadline,
                                           struct statvfs& st, int& err) {
  if (hung(source.path))
    return "still no answer to an earlier call";
  auto call = std::make_shared<StatvfsCall>();
  try {
    std::thread([call, fn = source.statvfs_fn, path = source.path] {
      struct statvfs got {};
      int rc = fn(path.c_str(), &got);
      int saved = rc == 0 ? 0 : errno;
      std::unique_lock lock(call->mutex);
      call->st = got;
      call->err = saved;
      call->done = true;
      call->cv.notify_all();
      if (call->hung) {
        lock.unlock();
        set_hung(path, false);
      }
    }).detach();
  } catch (const std::system_error&) { // no thread to be had: call it here
    err = source.statvfs_fn(source.path.c_str(), &st) == 0 ? 0 : errno;
    return std::nullopt;
  }
  std::unique_lock lock(call->mutex);
  if (!call->cv.wait_until(lock, deadline, [&] { return call->done; })) {
    set_hung(source.path, true); // under the call's lock: before its return unmarks it
    call->hung = true;
    return "no answer by the deadline";
  }
  st = call->st;
  err = call->err;
  return std::nullopt;
}

bool read_statfs(Source& source, Source::Clock::time_point deadline) {
  struct statvfs st {};
  int err = 0;
  if (deadline == Source::Clock::time_point::max()) {
    err = source.statvfs_fn(source.path.c_str(), &st) == 0 ? 0 : errno;
  } else if (auto why = statvfs_by(source, deadline, st, err)) {
    source.read_error =
        Error(fmt::format("statfs {}: {}; skipped until it returns", source.path, *why));
    return false;
  }
  if (err != 0) {
    source.read_error = Error::from_errno("statfs", source.path, err);
    return false;
  }
  render_statfs(source, st);
  return true;
}

// An open(2) that failed for want of descriptors, worded the same for every source it befell
// (a line for them all): a snapshot holds each of its files open.
Error out_of_descriptors() {
  rlimit limit{};
  ::getrlimit(RLIMIT_NOFILE, &limit);
  return Error(fmt::format("not opened: this process holds as many files open as its limit "
                           "allows ({}; ulimit -n)",
                           limit.rlim_cur),
               EMFILE);
}

} // namespace

// A plain file's first read goes to a page of the thread's, and what it read to a buffer of
// the source's twice its size: a snapshot of every cgroup holds thousands of files, most of a
// line or a few (a page each would be megabytes of zeros). A file that grows past its buffer
// costs a read again (pread_whole()).
Result<std::string_view> Source::read_first() {
  thread_local std::string first_read(4096, '\0');
  OPSKIT_TRY_ASSIGN(auto got, read_whole(first_read));
  fitted = true;
  buffer.assign(std::max<std::size_t>(2 * got.size(), 64), '\0');
  std::memcpy(buffer.data(), got.data(), got.size());
  return std::string_view(buffer.data(), got.size());
}

Result<std::string_view> Source::read_whole(std::string& into) {
  auto read = end == Layout::End::empty_read   ? pread_to_end
              : end == Layout::End::first_read ? pread_one_record
                                               : pread_whole;
  return read(fd.get(), into, path);
}

bool Source::read(Clock::time_point deadline) {
  bool was_ok = read_ok;
  unchanged = false; // read_now() says where the bytes are the last read's
  read_ok = read_now(deadline);
  unchanged = unchanged && was_ok && read_ok;
  failed_anew = was_ok && !read_ok;
  return read_ok;
}

Error Source::not_read_late() const {
  return Error(fmt::format("{}: not read: the deadline passed", path), ETIMEDOUT);
}

bool Source::open() {
  if (!fd && !open_error) {
    // Never blocking: a FIFO or device where a /proc file should be fails instead of hanging.
    auto opened = open_file(path, O_RDONLY | O_NONBLOCK);
    if (!opened)
      open_error = opened.error().errno_value() == EMFILE ? out_of_descriptors() : opened.error();
    else
      fd = std::move(*opened);
  }
  return !open_error;
}

bool Source::settle(const Result<std::string_view>& got) {
  bool was_ok = read_ok;
  read_error.reset();
  if (got) {
    buffer.assign(*got);
    text = buffer;
  } else {
    read_error = got.error();
  }
  read_ok = got.has_value();
  unchanged = false;
  failed_anew = was_ok && !read_ok;
  return read_ok;
}

bool Source::read_now(Clock::time_point deadline) {
  read_error.reset();
  if (reader == Reader::statfs)
    return read_statfs(*this, deadline);
  if (reader == Reader::statfs_local)
    return read_statfs(*this, Clock::time_point::max());
  if (reader == Reader::adjtimex)
    return read_adjtimex(*this);
  if (reader == Reader::links)
    return read_links(*this);
  if (reader == Reader::bonding)
    return read_bonding(*this);
  if (reader == Reader::btrfs)
    return read_btrfs(*this);
  if (reader == Reader::exists && !kept) {
    buffer = ::access(path.c_str(), F_OK) == 0 ? "1" : "0";
    text = buffer;
    kept = true;
  }
  if (kept)
    return unchanged = true;
  if (!open())
    return false;
  // A rendered file's first read has a page of room, the second the first's room, which
  // pread_whole() grew to the file (raw and rendered_from trade places after each).
  bool rendered = is_rendered(reader);
  if (rendered && raw.empty())
    raw.resize(std::max<std::size_t>(4096, rendered_from.size()));
  auto got = rendered ? read_whole(raw) : fitted ? read_whole(buffer) : read_first();
  if (!got) {
    read_error = got.error();
    return false;
  }
  if (!rendered) {
    text = *got;
    kept = reader == Reader::once;
    return true;
  }
  // A rendering is a function of the bytes alone: os-release, and an idle machine's mdstat, ARP
  // table and conntrack statistics, read the same from one scrape to the next.
  if (got->size() == rendered_size &&
      std::memcmp(got->data(), rendered_from.data(), got->size()) == 0)
    return unchanged = true;
  text = render_file(reader, *got, buffer);
  std::swap(raw, rendered_from); // the next read goes to the older bytes' room
  rendered_size = got->size();
  return true;
}

} // namespace detail

} // namespace opskit::counters
