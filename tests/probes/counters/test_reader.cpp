// SPDX-License-Identifier: MIT
// The table-driven reader on literal /proc text.
#include <catch2/catch.hpp>

#include <atomic>
#include <charconv>
#include <chrono>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "driver_reads.hpp"
#include "reader.hpp"
#include "temp_dir.hpp"

using namespace opskit::counters;

namespace {

std::optional<Value> read_field(std::string_view text, const Layout& layout, Locator locator,
                                Convert how = {}) {
  auto token = locate(text, layout, locator);
  return token ? convert(*token, how) : std::nullopt;
}

} // namespace

TEST_CASE("reader: a keyed line gives its first value", "[counters][reader]") {
  constexpr std::string_view vmstat = "nr_free_pages 5807316\npgfault 7998986\npgmajfault 3202\n";
  CHECK(read_field(vmstat, {}, {"pgfault", 0}) == Value(std::uint64_t{7998986}));
  CHECK(read_field(vmstat, {}, {"pgmajfault", 0}) == Value(std::uint64_t{3202}));
  CHECK_FALSE(read_field(vmstat, {}, {"pgfaul", 0}));
}

TEST_CASE("reader: a count at its hint is read in one walk, anything else left to the general path",
          "[counters][reader]") {
  constexpr std::string_view text = "a 9999999999999999999\nb 10000000000000000000\nc -5\n"
                                    "d 1.5\ne 12\ne2 7 kB\nf 3x\n";
  auto at = [&](std::string_view key, std::uint64_t multiply = 1) -> std::optional<std::uint64_t> {
    std::uint64_t count = 0;
    Locator locator{std::string(key), 0, text.find(std::string("\n") + std::string(key) + " ") + 1};
    if (key == "a")
      locator.hint = 0;
    return count_at_hint(text, locator, multiply, count) ? std::optional(count) : std::nullopt;
  };
  CHECK(at("a") == 9999999999999999999U); // 19 digits
  CHECK_FALSE(at("b"));                   // 20: a real, as convert() makes it
  CHECK_FALSE(at("c"));
  CHECK_FALSE(at("d"));
  CHECK(at("e", 1024) == 12 * 1024U);
  CHECK(at("e2", 1024) == 7 * 1024U); // a unit after the count
  CHECK_FALSE(at("f"));
  CHECK_FALSE(at("a", 1024)); // the product past 64 bits
  std::uint64_t count = 0;
  CHECK_FALSE(count_at_hint(text, {"e", 0, 0}, 1, count)); // the hint is another record's
}

TEST_CASE("reader: a stale hint still finds the field and is corrected", "[counters][reader]") {
  constexpr std::string_view before = "a 1\npgfault 10\n";
  constexpr std::string_view after = "a 1\nnew_counter 5\npgfault 11\n";
  Locator at{"pgfault", 0};
  REQUIRE(locate(before, {}, at) == "10");
  CHECK(at.hint == 4);
  CHECK(locate(after, {}, at) == "11");
  CHECK(at.hint == after.find("pgfault"));
  // A hint in the middle of a line is never trusted.
  Locator odd{"a", 0, 2};
  CHECK(locate(before, {}, odd) == "1");
}

TEST_CASE("reader: columns of one record are read in one walk, and a moved record is not "
          "taken for another",
          "[counters][reader]") {
  // diskstats: the fields of one disk are its columns; between two reads the disks swap places.
  constexpr std::string_view before = "   8  0 sda 1 2 3\n   8 16 sdb 4 5 6\n";
  constexpr std::string_view after = "   8 16 sdb 7 8 9\n   8  0 sda 1 2 3\n";
  Layout disks{.key_token = 2};
  Locator sda{"sda", 0}, sdb{"sdb", 1};
  const int sda_columns[] = {0, 2}, sdb_columns[] = {1, 2};
  auto read_both = [&](std::string_view text) {
    std::string_view tokens[4];
    CHECK(locate_columns(text, disks, sda, sda_columns, std::span(tokens, 2)));
    CHECK(locate_columns(text, disks, sdb, sdb_columns, std::span(tokens + 2, 2)));
    return std::vector<std::string_view>(tokens, tokens + 4);
  };
  CHECK(read_both(before) == std::vector<std::string_view>{"1", "3", "5", "6"});
  // sdb's hint is now where sda was found: its fields must come from its own line.
  CHECK(read_both(after) == std::vector<std::string_view>{"1", "3", "8", "9"});
  CHECK(sdb.hint == 0);
}

TEST_CASE("reader: a record's columns at its hint are the line's tokens, however blanks and "
          "tokens fall",
          "[counters][reader]") {
  // Lines of up to 150 values between runs of blanks, tabs and separators, each asked for some of
  // its columns (some twice, some past its end) at the record's hint: the walk a chunk at a time
  // must give what splitting the line gives.
  std::uint64_t x = 0x9e3779b97f4a7c15U;
  auto next = [&](std::uint64_t below) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    return x % below;
  };
  for (int round = 0; round < 3000; ++round) {
    // Blanks alone, or one more separator as pressure's '=' and loadavg's '/', or two.
    constexpr std::string_view k_separators[] = {"", "=", "/", "=/"};
    Layout layout{.separators = k_separators[next(4)]};
    std::string between = " \t" + std::string(layout.separators);
    std::string text = "before 1\n";
    std::size_t hint = text.size();
    text += "key";
    std::vector<std::string> tokens;
    auto values = next(150) + 1;
    for (std::uint64_t v = 0; v < values; ++v) {
      text += next(5) == 0 ? '\t' : ' ';
      for (auto blanks = next(4); blanks > 0; --blanks)
        text += between[next(between.size())];
      std::string token;
      for (auto length = next(3) == 0 ? next(25) + 1 : 1; length > 0; --length)
        token += static_cast<char>('0' + next(10));
      tokens.push_back(token);
      text += token;
    }
    text += next(2) == 0 ? " \nafter 2\n" : ""; // the last line, or one before another
    std::vector<int> columns;
    for (int column = 0; column < static_cast<int>(values) + 3; ++column)
      for (auto times = next(4) == 0 ? next(3) : 0; times > 0; --times)
        columns.push_back(column);
    if (columns.empty())
      columns.push_back(static_cast<int>(next(values)));
    std::vector<std::string_view> got(columns.size(), "unset");
    Locator locator{"key", columns.front(), hint};
    INFO(text);
    INFO("separators [" << layout.separators << "]");
    REQUIRE(locate_columns(text, layout, locator, columns, got) ==
            (static_cast<std::size_t>(columns.front()) < values));
    if (static_cast<std::size_t>(columns.front()) >= values)
      continue;
    for (std::size_t k = 0; k < columns.size(); ++k) {
      auto column = static_cast<std::size_t>(columns[k]);
      INFO("column " << column);
      CHECK(got[k] == (column < values ? std::string_view(tokens[column]) : std::string_view()));
    }
  }
}

TEST_CASE("reader: a column past the line's end is empty, and a record gone leaves its columns "
          "untouched",
          "[counters][reader]") {
  constexpr std::string_view text = "cpu 1 2 3\ncpu0 4 5 6\n";
  const int columns[] = {1, 1, 2, 7};
  std::string_view tokens[4];
  Locator cpu0{"cpu0", 1};
  REQUIRE(locate_columns(text, {}, cpu0, columns, tokens));
  CHECK(std::vector<std::string_view>(tokens, tokens + 4) ==
        std::vector<std::string_view>{"5", "5", "6", ""});
  Locator gone{"cpu1", 1};
  CHECK_FALSE(locate_columns(text, {}, gone, columns, tokens));
  CHECK(tokens[0] == "5");
}

TEST_CASE("reader: a hint at a line whose key is the record's without its colon is not taken",
          "[counters][reader]") {
  // The first line's key is "Name"; "Name:" is the key of the second, written "Name::".
  constexpr std::string_view status = "Name:\thead\nName:: 10\n";
  Locator at{"Name:", 0, 0};
  CHECK(locate(status, {}, at) == "10");
  CHECK(at.hint == status.find("Name::"));
  Locator plain{"Name", 0, 0};
  CHECK(locate(status, {}, plain) == "head");
}

TEST_CASE("reader: meminfo's kB becomes bytes and parenthesized keys match", "[counters][reader]") {
  constexpr std::string_view meminfo = "MemTotal:       24684084 kB\nActive(anon):     117644 kB\n";
  CHECK(read_field(meminfo, {}, {"MemTotal", 0}, {.multiply = 1024}) ==
        Value(std::uint64_t{24684084} * 1024));
  CHECK(read_field(meminfo, {}, {"Active(anon)", 0}, {.multiply = 1024}) ==
        Value(std::uint64_t{117644} * 1024));
}

TEST_CASE("reader: a kB figure past 64 bits of bytes is a real, negative and real ones scale too",
          "[counters][reader]") {
  constexpr std::string_view meminfo = "MemTotal: 18014398509481984 kB\nMemFree: -5 kB\nCached: "
                                       "1.5 kB\nBuffers: 18014398509481983 kB\n";
  // 2^54 kB is 2^64 bytes: it wrapped to 0.
  CHECK(read_field(meminfo, {}, {"MemTotal", 0}, {.multiply = 1024}) == Value(0x1p64));
  CHECK(read_field(meminfo, {}, {"Buffers", 0}, {.multiply = 1024}) ==
        Value(std::uint64_t{18014398509481983} * 1024));
  CHECK(read_field(meminfo, {}, {"MemFree", 0}, {.multiply = 1024}) == Value(std::int64_t{-5120}));
  CHECK(read_field(meminfo, {}, {"Cached", 0}, {.multiply = 1024}) == Value(1536.0));
}

TEST_CASE("reader: a count is its digits, to the last that fits in 64 bits", "[counters][reader]") {
  auto count = [](std::string_view token, std::uint64_t multiply = 1) {
    std::uint64_t n = 0;
    return parse_count(token, multiply, n) ? std::optional(n) : std::nullopt;
  };
  CHECK(count("0") == 0U);
  CHECK(count("7998986") == 7998986U);
  CHECK(count("9999999999999999999") == 9999999999999999999U);
  CHECK(count("18446744073709551615") == 18446744073709551615U);
  CHECK(count("0018446744073709551615") == 18446744073709551615U); // leading zeros, 22 digits
  CHECK(count("18446744073709551616") == std::nullopt);
  CHECK(count("99999999999999999999") == std::nullopt);
  CHECK(count("1000", 1024) == 1024000U);
  CHECK(count("18014398509481984", 1024) == std::nullopt); // the product does not fit
  for (std::string_view bad : {"", "-5", "+5", "1.5", "12 ", " 12", "3x", "0x1f", "1/2"})
    CHECK(count(bad) == std::nullopt);
}

TEST_CASE("reader: a short decimal is the double std::from_chars() makes of it",
          "[counters][reader]") {
  auto from_chars = [](const std::string& text) {
    double d = 0;
    std::from_chars(text.data(), text.data() + text.size(), d);
    return d;
  };
  // Every load average and pressure figure the kernel writes, and longer ones to 15 digits.
  std::vector<std::string> texts;
  for (int hundredths = 0; hundredths < 100000; hundredths += 7)
    texts.push_back(fmt::format("{}.{:02}", hundredths / 100, hundredths % 100));
  std::uint64_t x = 88172645463325252U;
  for (int k = 0; k < 2000; ++k) { // xorshift: digits of every length on both sides
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    std::string digits = std::to_string(x % 1000000000000000U);
    std::size_t point = 1 + x % digits.size();
    if (point < digits.size())
      texts.push_back(digits.substr(0, point) + "." + digits.substr(point));
  }
  for (const auto& text : texts) {
    INFO(text);
    CHECK(parse_number(text) == Value(from_chars(text)));
    CHECK(parse_number("-" + text) == Value(-from_chars(text)));
  }
  CHECK(parse_number("0.66") == Value(0.66));
  CHECK(parse_number("1234567890.12345") == Value(1234567890.12345));     // 15 digits
  CHECK(parse_number("12345678901.123456") == Value(12345678901.123456)); // 17: from_chars
  CHECK(parse_number("1.") == Value(1.0));
  CHECK(parse_number(".5") == Value(0.5));
  for (std::string_view bad : {"1.2.3", "1.x", "-", "-.", "1e5x", "."})
    CHECK(parse_number(bad) == std::nullopt);
  // As a field converts: a count where it is one, else the real.
  for (std::string_view text : {"0.66", "-12.5", "7", "1.", "12345678901.123456"}) {
    Value value;
    REQUIRE(convert_into(text, {}, value));
    CHECK(value == *parse_number(text));
  }
}

TEST_CASE("reader: columns of a keyed row, ticks as seconds", "[counters][reader]") {
  constexpr std::string_view stat =
      "cpu  31619 0 4383 108051 254 0 55 38 0 0\ncpu0 150 0 20 540 1 0 3 2 0 0\n";
  CHECK(read_field(stat, {}, {"cpu0", 2}, {.divide = 100}) == Value(0.2));
  CHECK(read_field(stat, {}, {"cpu", 0}) == Value(std::uint64_t{31619}));
  CHECK_FALSE(read_field(stat, {}, {"cpu0", 10}));
}

TEST_CASE("reader: kern.cp_time folds the cpu line into FreeBSD's five states",
          "[counters][reader]") {
  constexpr std::string_view stat = "cpu  31619 7 4383 108051 254 3 55 38 0 0\n";
  // user nice sys intr(irq+softirq) idle(idle+iowait)
  CHECK(read_field(stat, {}, {"cpu", -1}, {.cp_time = true}) ==
        Value(std::string("31619 7 4383 58 108305")));
}

TEST_CASE("reader: diskstats rows are keyed by their third token", "[counters][reader]") {
  constexpr std::string_view disks = " 253 0 vda 7051 1204 577396\n   7 0 loop0 0 0 0\n";
  Layout layout{.key_token = 2};
  CHECK(read_field(disks, layout, {"vda", 2}) == Value(std::uint64_t{577396}));
  CHECK(read_field(disks, layout, {"loop0", 0}) == Value(std::uint64_t{0}));
  CHECK_FALSE(read_field(disks, layout, {"253", 0}));
}

TEST_CASE("reader: loadavg splits on '/' and has no key", "[counters][reader]") {
  Layout layout{.key_token = -1, .separators = "/"};
  constexpr std::string_view loadavg = "0.81 0.61 0.31 1/82 5961\n";
  CHECK(read_field(loadavg, layout, {{}, 0}) == Value(0.81));
  CHECK(read_field(loadavg, layout, {{}, 4}) == Value(std::uint64_t{82}));
}

TEST_CASE("reader: <pid>/stat tokens start after the last ')' of comm", "[counters][reader]") {
  Layout layout{.key_token = -1, .after_paren = true};
  constexpr std::string_view stat = "42 (my (odd) prog) S 1 42\n";
  CHECK(read_field(stat, layout, {{}, 0}, {.text = true}) == Value(std::string("S")));
  CHECK(read_field(stat, layout, {{}, 1}) == Value(std::uint64_t{1}));
  // A task may name itself with a newline (prctl(PR_SET_NAME)), which the kernel writes as is.
  constexpr std::string_view named = "4242 (x\ny) R 7 4242\n";
  CHECK(read_field(named, layout, {{}, 0}, {.text = true}) == Value(std::string("R")));
  CHECK(read_field(named, layout, {{}, 1}) == Value(std::uint64_t{7}));
}

TEST_CASE("reader: snmp tables pair a header line with a value line", "[counters][reader]") {
  Layout layout{.shape = Layout::Shape::table};
  constexpr std::string_view snmp =
      "Ip: Forwarding DefaultTTL\nIp: 2 64\nTcp: RtoMin MaxConn CurrEstab\nTcp: 200 -1 2\n";
  Locator estab{"Tcp", 2};
  CHECK(read_field(snmp, layout, estab) == Value(std::uint64_t{2}));
  CHECK(read_field(snmp, layout, {"Tcp", 1}) == Value(std::int64_t{-1}));
  CHECK(read_field(snmp, layout, {"Ip", 1}) == Value(std::uint64_t{64}));
  // The header line itself is never taken for values.
  Locator header_hint{"Tcp", 0, snmp.find("Tcp:")};
  CHECK(read_field(snmp, layout, header_hint) == Value(std::uint64_t{200}));
}

TEST_CASE("reader: /proc/sys values are whole files, numbers or text", "[counters][reader]") {
  Layout whole{.shape = Layout::Shape::whole};
  Convert from_value{.kind_from_value = true};
  CHECK(read_field("60\n", whole, {}, from_value) == Value(std::uint64_t{60}));
  CHECK(read_field("-1\n", whole, {}, from_value) == Value(std::int64_t{-1}));
  CHECK(read_field("4\t4\t1\t7\n", whole, {}, from_value) == Value(std::string("4\t4\t1\t7")));
}

TEST_CASE("reader: hexadecimal figures as numbers, and as digits without 0x as text",
          "[counters][reader]") {
  Layout whole{.shape = Layout::Shape::whole};
  CHECK(read_field("0x1f\n", whole, {}, {.hex = true}) == Value(std::uint64_t{31}));
  CHECK(read_field("0X10\n", whole, {}, {.hex = true}) == Value(std::uint64_t{16}));
  CHECK(read_field("10\n", whole, {}, {.hex = true}) == Value(std::uint64_t{16}));
  CHECK(read_field("0xffffffffffffffff\n", whole, {}, {.hex = true}) == Value(~std::uint64_t{0}));
  CHECK_FALSE(read_field("0x\n", whole, {}, {.hex = true}));
  CHECK_FALSE(read_field("0x1g\n", whole, {}, {.hex = true}));
  CHECK_FALSE(read_field("0x10000000000000000\n", whole, {}, {.hex = true})); // past 64 bits
  CHECK(read_field("0x2100f4e9d4a1b2c3\n", whole, {}, {.text = true, .hex = true}) ==
        Value(std::string("2100f4e9d4a1b2c3")));
  Value into = std::string("left from the last read");
  CHECK(convert_into("0x0a1b00", {.text = true, .hex = true}, into));
  CHECK(into == Value(std::string("0a1b00")));
  CHECK(convert_into("0x1f", {.hex = true}, into));
  CHECK(into == Value(std::uint64_t{31}));
}

TEST_CASE("reader: bcache's sizes for people, as node_exporter reads them", "[counters][reader]") {
  Layout whole{.shape = Layout::Shape::whole};
  Convert human{.human = true};
  auto u = [](std::uint64_t n) { return Value(n); };
  CHECK(read_field("97\n", whole, {}, human) == u(97));
  CHECK(read_field("0.0k\n", whole, {}, human) == u(0));
  CHECK(read_field("4.0k\n", whole, {}, human) == u(4096));
  // The digit is the tenths, read as d / 10.24 of a unit: (127 + 5 / 10.24) MiB
  CHECK(read_field("127.5M\n", whole, {}, human) == u(133681152));
  CHECK(read_field("-293.4k\n", whole, {}, human) == Value(std::int64_t{-300432}));
  CHECK(read_field("2.5M/sec\n", whole, {}, human) == u(2609152));
  CHECK(read_field("-1.2k/sec\n", whole, {}, human) == Value(std::int64_t{-1224}));
  CHECK(read_field("15.9E\n", whole, {}, human) == u(18307132485261066240u));
  CHECK_FALSE(read_field("16.0E\n", whole, {}, human)); // past 64 bits
  CHECK_FALSE(read_field("1.0Z\n", whole, {}, human));
  CHECK_FALSE(read_field("k\n", whole, {}, human));
  CHECK_FALSE(read_field("-\n", whole, {}, human));
  CHECK_FALSE(read_field("1.k\n", whole, {}, human));
  CHECK_FALSE(read_field("1.5.2M\n", whole, {}, human));
  Value into = std::uint64_t{7};
  CHECK(convert_into("93.7M", human, into));
  CHECK(into == u(98234368));
}

TEST_CASE("reader: a status line's rest is one text value", "[counters][reader]") {
  constexpr std::string_view status = "Name:\tmy (odd) prog\nState:\tS (sleeping)\n";
  CHECK(read_field(status, {}, {"State", -1}, {.text = true}) ==
        Value(std::string("S (sleeping)")));
}

TEST_CASE("reader: records are enumerated in file order with their offsets", "[counters][reader]") {
  constexpr std::string_view text = "Tcp: A B\nTcp: 1 2\nUdp: C\nUdp: 3\n";
  std::vector<std::string> seen;
  for_each_record(text, {.shape = Layout::Shape::table}, [&](const Record& r) {
    for (std::size_t i = 0; i < r.names.size(); ++i)
      seen.push_back(std::string(r.key) + "." + std::string(r.names[i]) + "=" +
                     std::string(r.tokens[i]));
  });
  CHECK(seen == std::vector<std::string>{"Tcp.A=1", "Tcp.B=2", "Udp.C=3"});
}

namespace {

// A statvfs(3) that hangs, as one of a hard NFS mount whose server is gone, until released.
std::atomic<bool> g_released{false};
std::atomic<int> g_calls{0};
int hanging_statvfs(const char* path, struct statvfs* st) {
  ++g_calls;
  while (!g_released)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return ::statvfs(path, st);
}

std::thread::id g_statvfs_thread;
int noting_statvfs(const char* path, struct statvfs* st) {
  g_statvfs_thread = std::this_thread::get_id();
  return ::statvfs(path, st);
}

} // namespace

TEST_CASE("reader: a local file system's statvfs is called in place, another's on a thread",
          "[counters][reader]") {
  using Clock = std::chrono::steady_clock;
  for (Reader reader : {Reader::statfs_local, Reader::statfs}) {
    detail::Source mount;
    mount.path = "/";
    mount.reader = reader;
    mount.statvfs_fn = noting_statvfs;
    REQUIRE(mount.read(Clock::now() + std::chrono::seconds(10)));
    CHECK(mount.text.starts_with("size "));
    CHECK((g_statvfs_thread == std::this_thread::get_id()) == (reader == Reader::statfs_local));
  }
}

TEST_CASE("reader: a mount that does not answer fails the read at its deadline, is skipped "
          "by every source while its call hangs, and is read again once it returns",
          "[counters][reader]") {
  using Clock = std::chrono::steady_clock;
  detail::Source mount;
  mount.path = "/";
  mount.reader = Reader::statfs;
  mount.statvfs_fn = hanging_statvfs;
  CHECK_FALSE(mount.read(Clock::now() + std::chrono::milliseconds(50)));
  REQUIRE(mount.read_error);
  CHECK(mount.read_error->message() ==
        "statfs /: no answer by the deadline; skipped until it returns");
  CHECK_FALSE(mount.read(Clock::now() + std::chrono::seconds(10)));
  CHECK(mount.read_error->message() ==
        "statfs /: still no answer to an earlier call; skipped until it returns");
  // The call's thread may start late on a busy machine: its one call, once it has.
  for (int i = 0; i < 400 && g_calls == 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  CHECK(g_calls == 1); // the second read did not pile another call onto the stuck one
  // Nor does a source made anew for it, as a resolve's snapshot makes one.
  detail::Source again;
  again.path = "/";
  again.reader = Reader::statfs;
  again.statvfs_fn = hanging_statvfs;
  CHECK_FALSE(again.read(Clock::now() + std::chrono::seconds(10)));
  CHECK(again.read_error->message() ==
        "statfs /: still no answer to an earlier call; skipped until it returns");
  CHECK(g_calls == 1);
  g_released = true;
  bool read = false; // the stuck call returns in the background; until then reads are skipped
  for (int i = 0; i < 2000 && !read; ++i) {
    read = mount.read(Clock::now() + std::chrono::seconds(10));
    if (!read)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  REQUIRE(read);
  CHECK(mount.text.starts_with("size "));
  CHECK(g_calls == 2);
}

TEST_CASE("reader: the hardware's files are read on a thread until the deadline, as in place",
          "[counters][reader]") {
  using Clock = std::chrono::steady_clock;
  opskit::test::TempDir dir;
  std::ofstream(dir / "temp1_input") << "42000\n";
  std::vector<std::unique_ptr<detail::Source>> sources;
  for (const char* file : {"temp1_input", "temp2_input"}) {
    sources.push_back(std::make_unique<detail::Source>());
    sources.back()->path = dir / file;
    sources.back()->reader = Reader::driver;
  }
  detail::DriverReader reader;
  reader.start(sources, Clock::now() + std::chrono::seconds(10));
  reader.finish();
  CHECK(sources[0]->text == "42000\n");
  CHECK_FALSE(sources[0]->read_error);
  REQUIRE(sources[1]->open_error);
  CHECK(sources[1]->open_error->errno_value() == ENOENT);
  std::ofstream(dir / "temp1_input") << "43000\n";
  reader.start(sources, Clock::now() + std::chrono::seconds(10));
  reader.finish();
  CHECK(sources[0]->text == "43000\n"); // read again, on the same thread
  // A deadline already passed reads nothing: no read would be waited for.
  reader.start(sources, Clock::now() - std::chrono::seconds(1));
  reader.finish();
  REQUIRE(sources[0]->read_error);
  CHECK(sources[0]->read_error->message() ==
        dir.path() + "/temp1_input: not read: the deadline passed");
  CHECK(sources[0]->failed_anew);
}
