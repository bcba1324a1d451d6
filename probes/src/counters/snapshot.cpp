// SPDX-License-Identifier: MIT
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <map>
#include <set>
#include <unordered_map>
#include <utility>

#include <fmt/format.h>

#include "driver_reads.hpp"
#include "opskit/probes/counters.hpp"
#include "opskit/text.hpp"
#include "reader.hpp"
#include "sources.hpp"

namespace opskit::counters {

struct Snapshot::Slot {
  std::size_t source;
  Layout layout;
  Locator locator;
  Convert convert;
  // A count, kept as it is or scaled ("kB"): parse_count() without convert_into()'s cases.
  bool plain_count = false;
  // One alone in a keyed line (vmstat, meminfo, cgroup stats): read in place, at its hint
  // (count_at_hint), without the general path's calls.
  bool count_at_hint = false;
};

// Entries side by side that are columns of one record (a /proc/stat cpu line holds ten, a
// disk's line seventeen, a table's value line over a hundred): the record is located once and
// its line walked once for all of them (locate_columns), where each alone would find the line
// and walk to its own column. A field alone in its record, as each of /proc/vmstat's is, is
// read by update(i).
struct Snapshot::Record {
  std::size_t first = 0;          // slots_[first, first + slots.size())
  std::vector<std::size_t> slots; // the same, by column: the first finds the record
  std::vector<int> columns;       // each one's column
  std::vector<std::string_view> tokens;
};

namespace {

// Whether a field is a column of a record of lines, keyed or the first line (loadavg), or of a
// table, which locate_columns() reads.
bool in_record(const Layout& layout, const Locator& locator) noexcept {
  return layout.shape != Layout::Shape::whole && locator.column >= 0;
}

// The '\n's in `text`, sixteen bytes a step: a byte compare of a whole vector (SSE2's pcmpeqb on
// x86-64, in GCC's generic vectors) and a subtract per step, the lanes summed every 255 steps
// before one could wrap. A memchr call a line was a tenth of a snapshot's own time on
// /proc/vmstat; eight bytes at a time in a 64-bit word, 0.25 µs more than this.
std::size_t count_lines(std::string_view text) noexcept {
  using Bytes = std::uint8_t __attribute__((vector_size(16)));
  constexpr std::size_t k_width = sizeof(Bytes), k_most_steps = 255;
  std::size_t lines = 0, at = 0;
  while (text.size() - at >= k_width) {
    Bytes sums = {};
    std::size_t steps = std::min((text.size() - at) / k_width, k_most_steps);
    for (std::size_t step = 0; step < steps; ++step, at += k_width) {
      Bytes chunk;
      std::memcpy(&chunk, text.data() + at, k_width);
      sums -= reinterpret_cast<Bytes>(chunk == '\n'); // -1 in each lane that holds one
    }
    for (std::size_t lane = 0; lane < k_width; ++lane)
      lines += sums[lane];
  }
  for (; at < text.size(); ++at)
    lines += text[at] == '\n';
  return lines;
}

// How many sources are read between two looks at the clock for the deadline: a read of the
// steady clock is 30 ns on a KVM guest, and a source's pread a few microseconds.
constexpr std::size_t k_sources_a_look = 4;

} // namespace

Snapshot::Snapshot(std::vector<Field> fields) {
  std::map<std::pair<Reader, std::string>, std::size_t> by_source;
  slots_.reserve(fields.size());
  infos_.reserve(fields.size());
  std::size_t source = 0;
  for (auto& field : fields) {
    // Mostly the last field's source: a file's fields come together.
    const detail::Source* last = sources_.empty() ? nullptr : sources_[source].get();
    if (!last || last->reader != field.reader || last->path != field.path) {
      auto [it, fresh] = by_source.try_emplace({field.reader, field.path}, sources_.size());
      source = it->second;
      if (fresh) {
        auto made = std::make_unique<detail::Source>();
        made->path = field.path;
        made->reader = field.reader;
        made->lines_fixed = field.layout.fixed_lines || field.layout.shape == Layout::Shape::whole;
        made->end = field.layout.end;
        made->header_line = field.layout.header_line;
        sources_.push_back(std::move(made));
      }
    }
    slots_.push_back(Slot{source, field.layout, std::move(field.locator), field.convert});
    infos_.push_back(std::move(field.info));
  }
  find_records();
  values_.resize(infos_.size());
  errors_.resize(infos_.size());
}

void Snapshot::find_records() {
  auto same_record = [](const Slot& a, const Slot& b) {
    return in_record(a.layout, a.locator) && in_record(b.layout, b.locator) &&
           a.source == b.source && a.locator.key == b.locator.key;
  };
  for (Slot& slot : slots_) {
    const Convert& c = slot.convert;
    slot.plain_count = !c.text && !c.cp_time && !c.read_failed && !c.kind_from_value &&
                       c.sum_columns == 0 && c.divide == 1 && !c.hex && !c.human;
  }
  for (std::size_t i = 0, end = 0; i < slots_.size(); i = end) {
    end = i + 1;
    while (end < slots_.size() && same_record(slots_[i], slots_[end]))
      ++end;
    if (end - i == 1) {
      Slot& slot = slots_[i];
      slot.count_at_hint = slot.plain_count && is_first_value(slot.layout, slot.locator);
      continue;
    }
    Record record{i, {}, {}, {}};
    for (std::size_t k = i; k < end; ++k)
      record.slots.push_back(k);
    std::ranges::stable_sort(record.slots, {},
                             [&](std::size_t k) { return slots_[k].locator.column; });
    for (std::size_t k : record.slots)
      record.columns.push_back(slots_[k].locator.column);
    record.tokens.resize(record.slots.size());
    records_.push_back(std::move(record));
  }
}

Snapshot::Snapshot(Snapshot&&) noexcept = default;
Snapshot& Snapshot::operator=(Snapshot&&) noexcept = default;
Snapshot::~Snapshot() = default;

std::size_t Snapshot::read() {
  return read(std::chrono::steady_clock::time_point::max());
}

std::size_t Snapshot::read(std::chrono::steady_clock::time_point deadline) {
  bool timed = deadline != std::chrono::steady_clock::time_point::max(), late = false;
  // With a deadline, the files that ask a driver are read on a thread meanwhile.
  if (timed) {
    if (!driver_reader_)
      driver_reader_ = std::make_unique<detail::DriverReader>();
    driver_reader_->start(sources_, deadline);
  }
  for (std::size_t i = 0; i < sources_.size(); ++i) {
    auto& source = sources_[i];
    source->lines_changed = false;
    if (timed && source->reader == Reader::driver)
      continue;
    if (timed && !late && i % k_sources_a_look == 0)
      late = std::chrono::steady_clock::now() >= deadline;
    if (late) {
      source->skip();
      continue;
    }
    if (source->read(deadline))
      note_lines(*source);
  }
  if (timed)
    driver_reader_->finish();
  // An entry whose source read as before stands as it was, failed or not.
  std::size_t failed = 0, next = 0;
  for (std::size_t i = 0; i < slots_.size();) {
    bool record = next < records_.size() && records_[next].first == i;
    std::size_t end = i + (record ? records_[next].slots.size() : 1);
    if (sources_[slots_[i].source]->unchanged)
      for (; i < end; ++i)
        failed += errors_[i] ? 1 : 0;
    else
      failed += record ? update(records_[next]) : update(i) ? 0 : 1;
    i = end;
    next += record ? 1 : 0;
  }
  return failed;
}

bool Snapshot::reads_as(std::size_t i, const Snapshot& other, std::size_t j) const noexcept {
  const Slot &mine = slots_[i], &theirs = other.slots_[j];
  const detail::Source &a = *sources_[mine.source], &b = *other.sources_[theirs.source];
  return a.reader == b.reader && a.path == b.path &&
         mine.convert.sum_columns == theirs.convert.sum_columns;
}

void Snapshot::note_lines(detail::Source& source) {
  if (source.header_line) {
    std::string_view header = source.text.substr(0, source.text.find('\n'));
    if (source.header != header) {
      source.lines_changed = source.header.has_value();
      source.header = header;
    }
  }
  if (source.lines_fixed)
    return;
  std::size_t lines = count_lines(source.text);
  source.lines_changed =
      source.lines_changed || (source.lines != std::string_view::npos && lines != source.lines);
  source.lines = lines;
}

bool Snapshot::records_changed() const noexcept {
  return std::ranges::any_of(sources_, [](const auto& source) { return source->lines_changed; });
}

std::vector<Snapshot::RecordChange> Snapshot::record_changes() const {
  std::vector<RecordChange> out;
  for (std::size_t s = 0; s < sources_.size(); ++s) {
    const detail::Source& source = *sources_[s];
    if (!source.lines_changed)
      continue;
    RecordChange change;
    const Layout* layout = nullptr;
    bool one_layout = true;
    for (std::size_t i = 0; i < slots_.size(); ++i) {
      const Slot& slot = slots_[i];
      if (slot.source != s)
        continue;
      change.entries.push_back(i);
      change.keys.push_back(slot.locator.key);
      one_layout = one_layout && (!layout || (layout->shape == slot.layout.shape &&
                                              layout->key_token == slot.layout.key_token &&
                                              layout->separators == slot.layout.separators &&
                                              layout->header_line == slot.layout.header_line &&
                                              layout->after_paren == slot.layout.after_paren));
      layout = &slot.layout;
    }
    change.keyed = layout && one_layout && layout->shape == Layout::Shape::lines &&
                   layout->key_token >= 0 && !layout->header_line;
    if (change.keyed) {
      // A record of figures: its first value a number, not a header's word (/proc/net/dev's two).
      std::set<std::string_view> now, figures, read(change.keys.begin(), change.keys.end());
      for_each_record(source.text, *layout, [&](const counters::Record& r) {
        now.insert(r.key);
        if (!r.tokens.empty() && all_digits(r.tokens.front()))
          figures.insert(r.key);
      });
      for (std::string_view key : figures)
        if (!read.contains(key))
          change.came.emplace_back(key);
      for (std::string_view key : read)
        if (!now.contains(key))
          change.went.emplace_back(key);
    }
    out.push_back(std::move(change));
  }
  return out;
}

bool Snapshot::update(std::size_t i) {
  Slot& slot = slots_[i];
  const detail::Source& source = *sources_[slot.source];
  if (slot.convert.read_failed) {
    values_[i] = std::uint64_t{source.open_error || source.read_error ? 1U : 0U};
    errors_[i].reset();
    return true;
  }
  if (source.open_error || source.read_error)
    return fail(i, source.open_error ? *source.open_error : *source.read_error);
  if (std::uint64_t count = 0; slot.count_at_hint && count_at_hint(source.text, slot.locator,
                                                                   slot.convert.multiply, count)) {
    values_[i] = count;
  } else if (auto token = locate(source.text, slot.layout, slot.locator);
             !token || !convert_into(*token, slot.convert, values_[i])) {
    return gone(i);
  } else if (slot.convert.kind_from_value) {
    infos_[i].kind = std::holds_alternative<std::string>(values_[i]) ? Kind::text : Kind::gauge;
  }
  errors_[i].reset();
  return true;
}

std::size_t Snapshot::update(Record& record) {
  Slot& lead = slots_[record.slots.front()];
  const detail::Source& source = *sources_[lead.source];
  if (source.open_error || source.read_error ||
      !locate_columns(source.text, lead.layout, lead.locator, record.columns, record.tokens)) {
    std::size_t failed = 0; // each fails as it would alone
    for (std::size_t i : record.slots)
      failed += update(i) ? 0 : 1;
    return failed;
  }
  std::size_t failed = 0;
  for (std::size_t k = 0; k < record.slots.size(); ++k) {
    std::size_t i = record.slots[k];
    const Slot& slot = slots_[i];
    std::string_view token = record.tokens[k];
    std::uint64_t count = 0;
    if (slot.plain_count && parse_count(token, slot.convert.multiply, count)) {
      values_[i] = count;
    } else if (token.empty() || !convert_into(token, slot.convert, values_[i])) {
      gone(i);
      ++failed;
      continue;
    }
    errors_[i].reset();
  }
  return failed;
}

bool Snapshot::gone(std::size_t i) {
  return fail(i, Error(fmt::format("no longer in {}", sources_[slots_[i].source]->path)));
}

bool Snapshot::fail(std::size_t i, Error why) {
  if (errors_[i])
    *errors_[i] = std::move(why);
  else
    errors_[i] = std::make_unique<Error>(std::move(why));
  return false;
}

std::size_t Snapshot::erase_under(std::span<const std::string> prefixes,
                                  std::vector<std::size_t>& moved_to) {
  std::vector<bool> used(sources_.size());
  moved_to.assign(infos_.size(), k_erased);
  std::size_t kept = 0, failed = 0;
  for (std::size_t i = 0; i < infos_.size(); ++i) {
    auto under = [&](const std::string& prefix) { return holds(prefix, infos_[i].name); };
    if (std::ranges::any_of(prefixes, under)) {
      failed += errors_[i] ? 1 : 0;
      continue;
    }
    moved_to[i] = kept;
    used[slots_[i].source] = true;
    if (kept != i) {
      slots_[kept] = std::move(slots_[i]);
      infos_[kept] = std::move(infos_[i]);
      values_[kept] = std::move(values_[i]);
      errors_[kept] = std::move(errors_[i]);
    }
    ++kept;
  }
  if (kept == infos_.size())
    return 0;
  slots_.resize(kept);
  infos_.resize(kept);
  values_.resize(kept);
  errors_.resize(kept);
  std::vector<std::size_t> source_to(sources_.size());
  std::size_t sources = 0;
  for (std::size_t k = 0; k < sources_.size(); ++k)
    if (used[k]) {
      source_to[k] = sources;
      sources_[sources++] = std::move(sources_[k]);
    }
  sources_.resize(sources);
  for (auto& slot : slots_)
    slot.source = source_to[slot.source];
  records_.clear();
  find_records();
  return failed;
}

void Snapshot::append(Snapshot&& more) {
  std::size_t slots = slots_.size();
  // Room for these and an eighth more, not twice as many: a cgroup made a scrape would keep a
  // hierarchy's snapshot at up to twice its size; and room for these alone moved every entry
  // at each append (an interface's 30 names moved the 5,000 of 200 others).
  auto make_room = [](auto& entries, std::size_t more_entries) {
    std::size_t needed = entries.size() + more_entries;
    if (entries.capacity() < needed)
      entries.reserve(needed + needed / 8);
  };
  make_room(sources_, more.sources_.size());
  make_room(slots_, more.slots_.size());
  make_room(records_, more.records_.size());
  make_room(infos_, more.infos_.size());
  make_room(values_, more.values_.size());
  make_room(errors_, more.errors_.size());
  std::map<std::pair<Reader, std::string_view>, std::size_t> read;
  for (std::size_t s = 0; s < sources_.size(); ++s)
    read.emplace(std::pair{sources_[s]->reader, std::string_view(sources_[s]->path)}, s);
  std::vector<std::size_t> source_to(more.sources_.size());
  for (std::size_t s = 0; s < more.sources_.size(); ++s) {
    auto& source = more.sources_[s];
    auto was = read.find({source->reader, source->path});
    source_to[s] = was != read.end() ? was->second : sources_.size();
    if (was == read.end())
      sources_.push_back(std::move(source));
  }
  for (auto& slot : more.slots_) {
    slot.source = source_to[slot.source];
    slots_.push_back(std::move(slot));
  }
  for (auto& record : more.records_) {
    record.first += slots;
    for (auto& k : record.slots)
      k += slots;
    records_.push_back(std::move(record));
  }
  std::ranges::move(more.infos_, std::back_inserter(infos_));
  std::ranges::move(more.values_, std::back_inserter(values_));
  std::ranges::move(more.errors_, std::back_inserter(errors_));
  more = Snapshot({});
}

std::vector<std::string> Snapshot::source_paths() const {
  std::vector<std::string> out;
  out.reserve(sources_.size());
  for (const auto& source : sources_)
    out.push_back(source->path);
  return out;
}

std::vector<std::pair<std::string, Error>> Snapshot::source_errors() const {
  std::vector<std::pair<std::string, Error>> out;
  for (const auto& source : sources_)
    if (source->open_error || source->read_error)
      out.emplace_back(source->path,
                       source->open_error ? *source->open_error : *source->read_error);
  return out;
}

std::vector<std::string> Snapshot::answered_by_drivers() const {
  std::vector<std::string> out;
  for (const auto& source : sources_)
    if (source->reader == Reader::driver && !source->open_error && !source->read_error)
      out.push_back(source->path);
  std::ranges::sort(out);
  return out;
}

std::vector<std::size_t> Snapshot::failed_anew() const {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < slots_.size(); ++i)
    if (sources_[slots_[i].source]->failed_anew)
      out.push_back(i);
  return out;
}

std::size_t Found::size() const noexcept {
  return fields_.size();
}

bool Found::same_as(const Snapshot& snapshot) const {
  if (fields_.size() != snapshot.size())
    return false;
  // ... and read the same way: an interrupt's count sums a column more where a CPU came online.
  auto same = [&](const Field& field, std::size_t i) {
    const auto& slot = snapshot.slots_[i];
    const detail::Source& source = *snapshot.sources_[slot.source];
    return field.reader == source.reader && field.path == source.path &&
           field.info.labels == snapshot.infos_[i].labels &&
           field.convert.sum_columns == slot.convert.sum_columns;
  };
  std::size_t i = 0; // mostly in the same order: found as they were last time
  for (; i < fields_.size() && fields_[i].info.name == snapshot.infos_[i].name; ++i)
    if (!same(fields_[i], i))
      return false;
  if (i == fields_.size())
    return true;
  std::unordered_map<std::string_view, std::size_t> by_name;
  for (std::size_t k = i; k < snapshot.size(); ++k)
    by_name.emplace(snapshot.infos_[k].name, k);
  for (std::size_t k = i; k < fields_.size(); ++k)
    if (auto at = by_name.find(fields_[k].info.name);
        at == by_name.end() || !same(fields_[k], at->second))
      return false;
  return true;
}

Handle::Handle(Snapshot snapshot) : snapshot_(std::move(snapshot)) {}
Handle::Handle(Handle&&) noexcept = default;
Handle& Handle::operator=(Handle&&) noexcept = default;
Handle::~Handle() = default;

Result<Value> Handle::read() {
  if (snapshot_.read() != 0)
    return fail(snapshot_.error(0)->with_context(snapshot_.info(0).name));
  return snapshot_.value(0);
}

const Info& Handle::info() const noexcept {
  return snapshot_.info(0);
}

} // namespace opskit::counters
