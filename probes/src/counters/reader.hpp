// SPDX-License-Identifier: MIT
#pragma once

// The one reader behind every kstat source file. See reader.cpp for the formats it covers.

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include <sys/statvfs.h>

#include "opskit/handle.hpp"
#include "opskit/probes/counters.hpp"
#include "opskit/text.hpp"

namespace opskit::counters {

// How a source file is laid out.
struct Layout {
  enum class Shape : std::uint8_t {
    whole, // the whole file is one value (/proc/sys)
    lines, // one record a line: a key token, then value tokens (vmstat, meminfo, stat, ...)
    table, // records in line pairs: "Key: names..." then "Key: values..." (net/snmp, net/netstat)
  };
  Shape shape = Shape::lines;
  // lines: which whitespace-separated token is the record's key; a trailing ':' is not part of
  // it. -1: no key; the file's first line is the one record (loadavg, <pid>/stat).
  int key_token = 0;
  // lines: characters that separate tokens besides blanks ("/" splits loadavg's "1/79").
  std::string_view separators = {};
  // lines: tokenizing starts after the last ')' (<pid>/stat, whose comm may hold anything).
  bool after_paren = false;
  // lines: the first line names the columns of the others ("CPU0 CPU1": softirqs, interrupts).
  bool header_line = false;
  // The kernel writes the same lines at each read, only their values change (vmstat, meminfo,
  // net/snmp): no record comes or goes, so a read need not count its lines to notice.
  bool fixed_lines = false;
  // How a read knows the file's end.
  enum class End : std::uint8_t {
    short_read, // a read short of the room it had (pread_whole())
    // a read that gives nothing: the kernel's records are of several lines (schedstat: a CPU's,
    // then its domains'), and a read short of a page may not be the end (pread_to_end())
    empty_read,
    // the first: the kernel writes the file as one record (single_open(): meminfo, stat,
    // net/netstat), whole in a read that has room for it (pread_one_record())
    first_read,
  };
  End end = End::short_read;
};

// Where a field is: the record's key and a column among its value tokens (the tokens after the
// key). column -1 takes the rest of the line after the key, trimmed, as one text token.
// `hint` is the byte offset where the record was last found; a read tries there first.
struct Locator {
  std::string key;
  int column = 0;
  std::size_t hint = 0;
};

inline constexpr double k_back_seconds = 3;

// How the token becomes a value.
struct Convert {
  bool text = false;          // keep the token as text
  std::uint64_t multiply = 1; // numbers: scale ("kB" -> bytes: 1024), past 64 bits as a real
  double divide = 1;          // reals: ticks -> seconds
  // A real the kernel may move back a little between reads, a CPU's idle and iowait time
  // (NO_HZ accounts a sleeping CPU's time when it wakes): kept at the last read's unless back
  // by k_back_seconds or more (a CPU online again, counting from zero), as node_exporter keeps
  // it, where a rate would take the step back for a reset and jump.
  bool never_back = false;
  bool kind_from_value = false; // /proc/sys: gauge when a number, text otherwise
  // The rest of /proc/stat's "cpu" line folded into FreeBSD's kern.cp_time order: user nice
  // sys intr idle, where intr = irq + softirq and idle = idle + iowait.
  bool cp_time = false;
  // When > 0: the rest of the line (column -1) summed over its first `sum_columns` tokens,
  // stopping at the first that is not a number (/proc/interrupts: CPUs, then the chip's name).
  std::uint16_t sum_columns = 0;
  // Text with blanks written as octal escapes ("\040"), as mountinfo writes them: undone.
  bool octal_escapes = false;
  // No token: 1 when the source could not be read in this read, 0 when it could (a mount point's
  // device_error, as node_exporter serves it).
  bool read_failed = false;
  // Hexadecimal ("0x1f", Fibre Channel's statistics): a number; text, its digits without "0x".
  bool hex = false;
  // bcache's sizes as the kernel writes them for people ("3.5M", "-1.2k", "512.0k/sec": a
  // power of 1024 and a tenth of one): a number, as node_exporter reads them (bcache.cpp).
  bool human = false;
};

// How a source is read: pread of a file; statvfs(3) of a mount point, on a thread of its own with
// a deadline when the file system may not answer (NFS, FUSE, ...); statvfs in place on a local
// file system, whose answer comes from memory; adjtimex(2) (timex.cpp); a dump of the network
// links over rtnetlink(7) (links.cpp); the bonds' files under /sys/class/net (bonding.cpp). The
// answers are rendered as keyed lines ("size N\nfree N\n..."), and so are nine kinds of file
// after their pread: /proc/net/softnet_stat's and /proc/net/stat/nf_conntrack's hexadecimal
// (softnet.cpp, conntrack.cpp), /proc/mdstat's stanzas (md.cpp), /proc/net/arp's entries, counted
// (arp.cpp), the queues of /proc/net/udp's sockets, summed (udp.cpp; udp6 likewise), os-release's
// assignments, unquoted (os_release.cpp), a disk's udev entry's properties (disk_info.cpp), and
// IPVS's totals and real servers (ipvs.cpp).
enum class Reader : std::uint8_t {
  pread,
  statfs,
  statfs_local,
  adjtimex,
  softnet,
  mdstat,
  conntrack,
  arp,
  udp,
  links,
  bonding,
  os_release,
  udev,
  ipvs_stats,
  ipvs,
  zfs_state,      // a ZFS pool's state, rendered as a flag each state (zfs.cpp)
  zfs_io,         // a ZFS pool's I/O, a header line and a line of values, rendered as keyed lines
  btrfs,          // a Btrfs file system's devices, asked of its mount point by ioctl (btrfs.cpp)
  once,           // pread until one succeeds, then kept: what cannot change until a reboot (DMI)
  exists,         // whether the file is there, "1" or "0", looked up once: SELinux's enabled
  selinux_config, // /etc/selinux/config's SELINUX= as a number (selinux.cpp)
  icmpmsg,        // /proc/net/snmp's IcmpMsg pairs, rendered as a keyed line a type (icmpmsg.cpp)
  // pread of a sysfs file whose read asks a driver, which may sleep on its hardware (a sensor's,
  // a battery's): with a deadline, made on a thread of its own (driver_reads.hpp)
  driver
};

// One name's definition: what it is, where its value lies in which file, how to convert it.
struct Field {
  Info info;
  std::string path; // the source file
  Layout layout;
  Locator locator;
  Convert convert;
  Reader reader = Reader::pread;
};

inline bool is_blank(char c) noexcept {
  return c == ' ' || c == '\t';
}

// Whether `c` separates tokens: a blank, or one of a layout's few `separators` ("/", "="),
// compared in place (find() made a memchr call a byte).
inline bool is_separator(char c, std::string_view separators) noexcept {
  if (is_blank(c))
    return true;
  for (char s : separators)
    if (c == s)
      return true;
  return false;
}

// Walks the tokens of one line (no newline inside) without allocating.
class Tokens {
public:
  Tokens(std::string_view line, std::string_view separators) noexcept
      : line_(line), separators_(separators) {}

  std::optional<std::string_view> next() noexcept {
    while (pos_ < line_.size() && is_separator(line_[pos_], separators_))
      ++pos_;
    if (pos_ >= line_.size())
      return std::nullopt;
    std::size_t start = pos_;
    while (pos_ < line_.size() && !is_separator(line_[pos_], separators_))
      ++pos_;
    return line_.substr(start, pos_ - start);
  }
  // The token `skip` places after the next (0: the next), the ones between walked past.
  std::optional<std::string_view> after(int skip) noexcept {
    std::optional<std::string_view> token = next();
    for (int i = 0; i < skip && token; ++i)
      token = next();
    return token;
  }
  // What follows the last token returned, trimmed.
  std::string_view rest() const noexcept { return trim(line_.substr(pos_)); }

private:
  std::string_view line_;
  std::string_view separators_;
  std::size_t pos_ = 0;
};

// The first line of `rest`, taken off it with its newline.
inline std::string_view next_line(std::string_view& rest) noexcept {
  std::size_t end = std::min(rest.find('\n'), rest.size());
  std::string_view line = rest.substr(0, end);
  rest.remove_prefix(std::min(end + 1, rest.size()));
  return line;
}

// Calls `f` with the token `skip` places into each line of a table's `text` (a row, a
// socket or an entry a line under a header line), for the lines that have one.
template <class F>
void for_each_row_token(std::string_view text, int skip, F&& f) {
  next_line(text); // the header
  while (!text.empty())
    if (auto token = Tokens(next_line(text), {}).after(skip))
      f(*token);
}

// A token of hexadecimal digits as a count (softnet_stat, nf_conntrack's statistics); 0 where it
// is not one.
inline std::uint64_t parse_hex(std::string_view token) noexcept {
  std::uint64_t n = 0;
  std::from_chars(token.data(), token.data() + token.size(), n, 16);
  return n;
}

// Whether `locator` names a column of a line keyed by its first token, which field_at_hint()
// finds at the hint.
inline bool is_keyed_column(const Layout& layout, const Locator& locator) noexcept {
  return layout.shape == Layout::Shape::lines && layout.key_token == 0 && !layout.after_paren &&
         locator.column >= 0;
}

// Whether it names the first value of such a line, split by blanks alone: count_at_hint().
inline bool is_first_value(const Layout& layout, const Locator& locator) noexcept {
  return is_keyed_column(layout, locator) && locator.column == 0 && layout.separators.empty();
}

// Whether the `n` bytes at `a` and at `b` are the same: eight at a time, the last eight read
// overlapping the ones before, without a call to memcmp() (a key of 3 to 30 bytes, checked at
// each of a scrape's 200 keyed lines).
inline bool same_bytes(const char* a, const char* b, std::size_t n) noexcept {
  auto word = [](const char* at) {
    std::uint64_t w;
    std::memcpy(&w, at, sizeof w);
    return w;
  };
  if (n < sizeof(std::uint64_t)) {
    for (std::size_t i = 0; i < n; ++i)
      if (a[i] != b[i])
        return false;
    return true;
  }
  for (std::size_t i = 0; i + sizeof(std::uint64_t) < n; i += sizeof(std::uint64_t))
    if (word(a + i) != word(b + i))
      return false;
  return word(a + n - sizeof(std::uint64_t)) == word(b + n - sizeof(std::uint64_t));
}

// Where the values of the keyed line at the hint begin: past its key, and a ':' after it, at
// the blank before the first; null when the record is not at the hint.
inline const char* values_at_hint(std::string_view text, const Locator& locator) noexcept {
  if (locator.hint > text.size() || (locator.hint > 0 && text[locator.hint - 1] != '\n'))
    return nullptr;
  const char *at = text.data() + locator.hint, *end = text.data() + text.size();
  while (at < end && is_blank(*at)) // "    lo: ..." in /proc/net/dev
    ++at;
  const std::string& key = locator.key;
  if (static_cast<std::size_t>(end - at) <= key.size() || !same_bytes(at, key.data(), key.size()))
    return nullptr;
  at += key.size();
  if (*at == ':')
    ++at;
  else if (key.ends_with(':'))
    return nullptr;                                // "K:" is the key of "K:: 1", not of "K: 1"
  return at < end && is_blank(*at) ? at : nullptr; // else a longer key that starts the same
}

// The hot path for keyed lines (is_keyed_column()): the field's token if its record is
// still at the hint, else a view whose data() is null. Checks the key in place and walks to the
// column without first finding the end of the line. Inline, and a view returned in registers:
// a snapshot reads most of its fields through it, and an optional view came back through
// memory, which the caller read back at once, stalled on the store.
inline std::string_view field_at_hint(std::string_view text, const Layout& layout,
                                      const Locator& locator) noexcept {
  const char* values = values_at_hint(text, locator);
  if (values == nullptr)
    return {};
  auto pos = static_cast<std::size_t>(values - text.data());
  auto separator = [&](char c) { return is_separator(c, layout.separators); };
  for (int column = 0;; ++column) {
    while (pos < text.size() && separator(text[pos]))
      ++pos;
    if (pos >= text.size() || text[pos] == '\n')
      return {};
    std::size_t start = pos;
    while (pos < text.size() && text[pos] != '\n' && !separator(text[pos]))
      ++pos;
    if (column == locator.column)
      return text.substr(start, pos - start);
  }
}

// The first value of the keyed line at the hint, split by blanks alone (is_first_value()), as
// each field of /proc/vmstat, /proc/meminfo and a cgroup's stats is, when it is a count of at
// most 19 digits: times `multiply` into `count`. Found and converted in one walk of its digits,
// without a separator set tested at each byte (a vmstat snapshot's own time 2.85 -> 2.35 us)
// nor a second walk by from_chars. False, `count` untouched, when the record is not at the hint
// or the value is anything else (negative, a real, 20 digits or more): the general path's.
inline bool count_at_hint(std::string_view text, const Locator& locator, std::uint64_t multiply,
                          std::uint64_t& count) noexcept {
  const char* at = values_at_hint(text, locator);
  if (at == nullptr)
    return false;
  const char* end = text.data() + text.size();
  while (at < end && is_blank(*at))
    ++at;
  const char* start = at;
  std::uint64_t n = 0;
  for (unsigned digit; at < end && at - start < 19 &&
                       (digit = static_cast<unsigned char>(*at) - unsigned{'0'}) <= 9;
       ++at)
    n = n * 10 + digit; // 19 digits fit
  if (at == start || (at < end && *at != '\n' && !is_blank(*at)) ||
      __builtin_mul_overflow(n, multiply, &n))
    return false;
  count = n;
  return true;
}

// The token of the field at `locator` in `text`, or nothing when the record or column is not
// there. Updates locator.hint when the record was found elsewhere.
std::optional<std::string_view> locate(std::string_view text, const Layout& layout,
                                       Locator& locator);

// The tokens of several columns of one record of lines (keyed, or a file's first line) or of a
// table, in one walk of its line: `out[k]` gets column `columns[k]`'s token, or an empty view where
// the line ends first. `columns` ascending; the record is found as locate() finds the field at
// `locator` (its column the first of them), and its hint updated. False, and `out` untouched, when
// it is not there. A line of /proc/net/netstat holds over a hundred fields, a disk's seventeen.
bool locate_columns(std::string_view text, const Layout& layout, Locator& locator,
                    std::span<const int> columns, std::span<std::string_view> out);

// `token`, all of it decimal digits, as an unsigned 64-bit count times `multiply` (a unit's:
// "kB" -> bytes); false, with `count` untouched, when it is not one or the product does not
// fit, which convert() makes a real.
inline bool parse_count(std::string_view token, std::uint64_t multiply,
                        std::uint64_t& count) noexcept {
  if (token.empty() || token.front() == '-')
    return false;
  std::uint64_t n = 0;
  if (token.size() < 20) { // 19 digits fit: summed in place, a third of std::from_chars()'s cost
    for (char c : token) {
      unsigned digit = static_cast<unsigned char>(c) - unsigned{'0'};
      if (digit > 9)
        return false;
      n = n * 10 + digit;
    }
  } else if (auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), n);
             ec != std::errc() || end != token.data() + token.size()) {
    return false;
  }
  if (__builtin_mul_overflow(n, multiply, &n))
    return false;
  count = n;
  return true;
}

// Converts a located token; nothing when a number was expected and the token is not one.
std::optional<Value> convert(std::string_view token, const Convert& how);
// The same, into `out` (untouched on failure); false where convert() gives nothing.
bool convert_into(std::string_view token, const Convert& how, Value& out);

// Every record in `text`, in file order: its key, its value tokens, and the line's offset.
// For tables the tokens are the value line's and `names` the header line's; for lines with a
// header line, `names` are its tokens; otherwise empty.
struct Record {
  std::string_view key;
  std::span<const std::string_view> tokens;
  std::span<const std::string_view> names;
  std::string_view rest; // the line after the key, trimmed
  std::size_t offset = 0;
};
void for_each_record(std::string_view text, const Layout& layout,
                     const std::function<void(const Record&)>& visit);

namespace detail {

// The files and mount points whose read or statvfs(3), made on a thread of its own, missed its
// deadline and has not returned: each is skipped by every reader in the process until it
// returns, rather than left with one thread more stuck in it at each scrape, or at each new
// snapshot that reads it.
bool hung(std::string_view path);
void set_hung(const std::string& path, bool now);

// An open source file and its read buffer, shared by every field read from it.
struct LinkDumps;  // the links' last dump, by which read_links() knows a link as before
struct DriverRead; // a Reader::driver source's read on a DriverReader's thread

struct Source {
  using Clock = std::chrono::steady_clock;
  using StatvfsFn = int (*)(const char*, struct statvfs*);

  std::string path;
  Reader reader = Reader::pread;
  UniqueFd fd;
  std::string buffer;
  std::string raw; // a rendered source's bytes as read (is_rendered()); the rendering in buffer
  // The bytes the rendering in the buffer was made from: the same bytes read again need none.
  std::string rendered_from;
  std::size_t rendered_size = std::string::npos;
  bool kept = false;   // a Reader::once source, read
  bool fitted = false; // a plain file's buffer, sized by its first read (read_first())
  Layout::End end = Layout::End::short_read; // how a read knows the file's end
  std::uint32_t sequence = 0;                // the last request's number (links)
  std::optional<Error> open_error;
  std::optional<Error> read_error;
  std::string_view text; // the bytes of the last read
  // The last read gave the bytes of the one before, which succeeded too, and so what its fields
  // were: a file read once, an unchanged rendering (os-release, an idle host's links and ARP
  // table).
  bool unchanged = false;
  // Its lines at the first read that succeeded: a change means records came or went. Not
  // counted where they cannot (Layout::fixed_lines, as the rendered calls' are; a whole file).
  std::size_t lines = std::string_view::npos;
  bool lines_fixed = false;
  bool lines_changed = false; // in the last read
  // Layout::header_line: the header at the last read that succeeded, whose columns are the
  // CPUs online (softirqs, interrupts): a change is a record change too.
  bool header_line = false;
  std::optional<std::string> header;
  bool failed_anew = false; // the last read failed, the one before it succeeded (a pid exited)
  StatvfsFn statvfs_fn = ::statvfs;        // a seam for the tests of a mount that hangs
  std::shared_ptr<LinkDumps> link_dumps;   // Reader::links: the last dump and this one
  std::shared_ptr<DriverRead> driver_read; // Reader::driver: its read on the thread

  // Opens the file on first use, then reads it whole at offset 0 into the buffer (or, for
  // statfs, calls statvfs and renders the figures into the buffer). With a deadline, statvfs of
  // a Reader::statfs source runs on a thread of its own: a mount that does not answer by then (a
  // hard NFS mount whose server is gone) fails this read, and later ones at once, until that
  // call has returned. A Reader::statfs_local source is called in place.
  bool read(Clock::time_point deadline = Clock::time_point::max());
  // Why a read the deadline left undone failed: "P: not read: the deadline passed" (ETIMEDOUT).
  Error not_read_late() const;
  // Fails this read without reading: the snapshot's deadline passed before it.
  void skip() {
    read_error = not_read_late();
    read_ok = unchanged = failed_anew = false;
  }
  // Opens the file on first use, never blocking; false (and open_error) when it cannot be.
  bool open();
  // Takes `got`, the file's bytes read elsewhere (on a DriverReader's thread) or why not, as
  // this read's.
  bool settle(const Result<std::string_view>& got);

private:
  bool read_now(Clock::time_point deadline); // read(), but for `unchanged`
  bool read_ok = false;                      // the last read succeeded
  // The file into `into` from offset 0, by the pread function of its `end`.
  Result<std::string_view> read_whole(std::string& into);
  Result<std::string_view> read_first();
};

// adjtimex(2), asked to change nothing, rendered into the source's buffer (timex.cpp).
bool read_adjtimex(Source& source);

// The links of the network namespace over rtnetlink(7), rendered into the source's buffer; the
// source's fd is the netlink socket (links.cpp).
bool read_links(Source& source);
// Its two calls: the request for a dump of the links (RTM_GETLINK, the statistics left out),
// numbered `seq`, on the netlink socket `fd`; and a link's speed in megabits a second
// (ETHTOOL_GLINKSETTINGS, asked on the same socket: an ioctl its protocol does not know falls
// through to the device layer), or -1 when unknown (a virtual device, a link down) or not given
// (loopback: LinkSettings::none), and its duplex.
bool request_links(int fd, std::uint32_t seq);
struct LinkSettings {
  long long mbps = -1;     // -1: unknown
  std::string_view duplex; // "full", "half", "unknown"; empty when not given
  // The link has none to give (EOPNOTSUPP: its driver keeps no link settings, as lo's, a dummy's
  // or an ifb's), nor will it have while it is the same link.
  bool none = false;
  bool operator==(const LinkSettings&) const = default;
};
LinkSettings link_settings(int fd, std::string_view name);

// A Btrfs file system's devices, asked of its mount point (the source's path) by ioctl, a keyed
// line each, into the source's buffer (btrfs.cpp).
bool read_btrfs(Source& source);

// The bonds of <sys>/class/net/bonding_masters, the source's path, and their interfaces
// counted, a keyed line a bond, into the source's buffer (bonding.cpp).
bool read_bonding(Source& source);

// /proc/net/softnet_stat's lines as keyed decimal ones, the CPU first, into `out` (softnet.cpp).
std::string_view render_softnet(std::string_view raw, std::string& out);
// /proc/mdstat's stanzas as keyed lines, an array each, into `out` (md.cpp).
std::string_view render_mdstat(std::string_view raw, std::string& out);

// /proc/net/stat/nf_conntrack's columns summed over the CPUs, a keyed line each, into `out`
// (conntrack.cpp).
std::string_view render_conntrack(std::string_view raw, std::string& out);

// /proc/net/snmp's IcmpMsg pairs of lines as a keyed line a type ("InType3 40"), into `out`
// (icmpmsg.cpp).
std::string_view render_icmpmsg(std::string_view raw, std::string& out);

// /proc/net/arp's entries counted by interface, a keyed line each, into `out` (arp.cpp).
std::string_view render_arp(std::string_view raw, std::string& out);

// /proc/net/udp's (or udp6's) queues summed over its sockets, one keyed line, into `out`
// (udp.cpp).
std::string_view render_udp(std::string_view raw, std::string& out);

// os-release(5)'s assignments as keyed lines, values unquoted, and a "version" line for
// VERSION_ID's major.minor, into `out` (os_release.cpp).
std::string_view render_os_release(std::string_view raw, std::string& out);

// A disk's udev database entry's properties node_exporter labels node_disk_info with, as keyed
// lines ("model Samsung_SSD_870"), into `out` (disk_info.cpp).
std::string_view render_udev(std::string_view raw, std::string& out);

// /proc/net/ip_vs_stats's totals, one keyed line ("total N N N N N"), and /proc/net/ip_vs's real
// servers, a keyed line each, into `out` (ipvs.cpp).
std::string_view render_ipvs_stats(std::string_view raw, std::string& out);
std::string_view render_ipvs(std::string_view raw, std::string& out);

// A ZFS pool's state ("ONLINE") as a keyed line a state, 1 for it and 0 for the others; and its
// I/O kstat's header and values as keyed lines ("nread 1884160"), into `out` (zfs.cpp).
std::string_view render_zfs_state(std::string_view raw, std::string& out);
std::string_view render_zfs_io(std::string_view raw, std::string& out);

// /etc/selinux/config's SELINUX= as "config_mode N": 1 enforcing, 0 permissive, -1 disabled or
// none (selinux.cpp).
std::string_view render_selinux_config(std::string_view raw, std::string& out);

// How a rendered file's read knows its end: mdstat's and ip_vs's records (an array, a service
// and its real servers) are of several lines, so a read short of a page may not be the end.
inline Layout::End end_of(Reader reader) noexcept {
  return reader == Reader::mdstat || reader == Reader::ipvs ? Layout::End::empty_read
                                                            : Layout::End::short_read;
}

// Whether a source's file is rendered after its pread, and the rendering of `raw` into `out`.
inline bool is_rendered(Reader reader) noexcept {
  return reader == Reader::softnet || reader == Reader::mdstat || reader == Reader::conntrack ||
         reader == Reader::arp || reader == Reader::udp || reader == Reader::os_release ||
         reader == Reader::udev || reader == Reader::ipvs_stats || reader == Reader::ipvs ||
         reader == Reader::zfs_state || reader == Reader::zfs_io ||
         reader == Reader::selinux_config || reader == Reader::icmpmsg;
}
inline std::string_view render_file(Reader reader, std::string_view raw, std::string& out) {
  switch (reader) {
  case Reader::softnet:
    return render_softnet(raw, out);
  case Reader::mdstat:
    return render_mdstat(raw, out);
  case Reader::arp:
    return render_arp(raw, out);
  case Reader::udp:
    return render_udp(raw, out);
  case Reader::os_release:
    return render_os_release(raw, out);
  case Reader::udev:
    return render_udev(raw, out);
  case Reader::ipvs_stats:
    return render_ipvs_stats(raw, out);
  case Reader::ipvs:
    return render_ipvs(raw, out);
  case Reader::zfs_state:
    return render_zfs_state(raw, out);
  case Reader::zfs_io:
    return render_zfs_io(raw, out);
  case Reader::selinux_config:
    return render_selinux_config(raw, out);
  case Reader::icmpmsg:
    return render_icmpmsg(raw, out);
  default:
    return render_conntrack(raw, out);
  }
}

} // namespace detail

} // namespace opskit::counters
