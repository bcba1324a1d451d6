// SPDX-License-Identifier: MIT
// Reading .deb binary packages.
//
// A .deb (deb(5)) is an ar(1) archive of three members, in this order: "debian-binary" holding
// the format version "2.0\n", "control.tar[.gz|.xz|.zst]" holding ./control and the maintainer
// scripts, and "data.tar[.gz|.xz|.zst|.bz2|.lzma]" holding the files. dpkg accepts members whose
// names start with '_' in between (ignored), and an uncompressed control.tar since dpkg 1.17.6;
// zstd arrived with Ubuntu 21.10 and dpkg 1.21.18. The member names in an ar archive are padded
// with spaces or end in '/' (GNU ar); libarchive removes both.
//
// What is subtle: the control member is decompressed in memory, so its size is bounded
// (k_deb_control_tar_limit, headers counted: a bomb of empty entries is as slow to walk as one
// of data) against decompression bombs; dpkg unpacks the control.tar into a directory of its
// own, so an entry or a link that climbs out of it with "..", or a symbolic link to an absolute
// path, is refused; the control file is kept as written (field order, multi-line Description
// byte for byte) because it becomes the Packages stanza; and the name, version and architecture
// end up in a path in the pool, so they are checked against Debian policy before anything is
// written.
#include "opskit/repo/format/deb/deb.hpp"

#include <algorithm>
#include <array>
#include <climits>
#include <optional>
#include <span>
#include <vector>

#include <archive.h>
#include <archive_entry.h>

#include <fmt/format.h>

#include "layout/paths.hpp"
#include "opskit/handle.hpp"
#include "opskit/text.hpp"

namespace opskit::repo {

namespace {

using ArchiveReadPtr = CPtr<archive, archive_read_free>;

std::string archive_problem(archive* a) {
  const char* message = archive_error_string(a);
  return message ? message : "unreadable archive";
}

bool starts_with(std::string_view s, std::string_view prefix) noexcept {
  return s.substr(0, prefix.size()) == prefix;
}

// Reads the current entry's data, failing past `limit` bytes.
Result<std::string> read_entry(archive* a, std::size_t limit, std::string_view what) {
  std::string out;
  char buffer[65536];
  for (;;) {
    la_ssize_t n = archive_read_data(a, buffer, sizeof buffer);
    if (n < 0)
      return fail(fmt::format("{}: {}", what, archive_problem(a)));
    if (n == 0)
      return out;
    out.append(buffer, static_cast<std::size_t>(n));
    if (out.size() > limit)
      return fail(fmt::format("{}: larger than the limit of {} bytes", what, limit));
  }
}

// An error when entry `path` of a control.tar, or what it links to, is outside the directory
// dpkg unpacks the control.tar in. A leading '/' of a path is dropped in unpacking (as tar
// does), not that of a symbolic link's target.
Result<void> check_inside(archive_entry* entry, std::string_view path, std::string_view what) {
  if (detail::climbs_out(path))
    return fail(fmt::format("{}: '{}' is outside the package", what, excerpt(path)));
  std::string_view link;
  if (const char* hard = archive_entry_hardlink(entry); hard && detail::climbs_out(hard))
    link = hard;
  else if (const char* soft = archive_entry_symlink(entry);
           soft && archive_entry_filetype(entry) == AE_IFLNK &&
           (starts_with(soft, "/") || detail::climbs_out(soft)))
    link = soft;
  if (!link.empty())
    return fail(fmt::format("{}: {} links to '{}', outside the package", what, excerpt(path),
                            excerpt(link)));
  return {};
}

// The size of a tar header block.
constexpr std::size_t k_tar_block = 512;

// Finds ./control in a control.tar (compressed or not) held in memory.
Result<std::string> control_file_of(std::string_view member, std::string_view what) {
  ArchiveReadPtr a(archive_read_new());
  // The compressions dpkg writes a control.tar in: none, gzip, xz and zstd.
  archive_read_support_filter_gzip(a.get());
  archive_read_support_filter_xz(a.get());
  archive_read_support_filter_zstd(a.get());
  archive_read_support_format_tar(a.get());
  if (archive_read_open_memory(a.get(), member.data(), member.size()) != ARCHIVE_OK)
    return fail(fmt::format("{}: {}", what, archive_problem(a.get())));
  std::size_t total = 0;
  std::optional<std::string> control;
  archive_entry* entry = nullptr;
  for (;;) {
    int rc = archive_read_next_header(a.get(), &entry);
    if (rc == ARCHIVE_EOF) {
      if (!control)
        return fail(fmt::format("{}: no control file", what));
      return std::move(*control);
    }
    if (rc < ARCHIVE_WARN)
      return fail(fmt::format("{}: {}", what, archive_problem(a.get())));
    std::string_view path = archive_entry_pathname(entry) ? archive_entry_pathname(entry) : "";
    OPSKIT_TRY(check_inside(entry, path, what));
    while (starts_with(path, "./") || starts_with(path, "/"))
      path.remove_prefix(path.front() == '/' ? 1 : 2);
    if (path == "control") {
      if (control)
        return fail(fmt::format("{}: two control files", what));
      // A link's target is not in the tar entry: apt would index an empty control file.
      if (archive_entry_hardlink(entry) || archive_entry_filetype(entry) != AE_IFREG)
        return fail(fmt::format("{}: control is {}, not a regular file", what,
                                archive_entry_hardlink(entry)               ? "a hard link"
                                : archive_entry_filetype(entry) == AE_IFLNK ? "a symbolic link"
                                                                            : "a special file"));
      OPSKIT_TRY_ASSIGN(auto text, read_entry(a.get(), k_deb_control_file_limit,
                                              fmt::format("{}: control", what)));
      control = std::move(text);
      continue;
    }
    // Each entry's header block counts: a control.tar of nothing but empty entries is as
    // long to walk as one of data.
    auto size = archive_entry_size(entry);
    total += k_tar_block + (size > 0 ? static_cast<std::size_t>(size) : 0);
    if (total > k_deb_control_tar_limit)
      return fail(
          fmt::format("{}: larger than the limit of {} bytes", what, k_deb_control_tar_limit));
  }
}

bool is_lower_alnum(char c) noexcept {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}
bool is_alnum(char c) noexcept {
  return is_lower_alnum(c) || (c >= 'A' && c <= 'Z');
}
// Policy §5.6.12's characters of a version (the epoch's colon among them).
bool is_version_char(char c) noexcept {
  return is_alnum(c) || c == '.' || c == '+' || c == '~' || c == '-' || c == ':';
}

// Fields of a Packages stanza that the archive computes: a control file that holds them would
// contradict the index (apt trusts the strongest hash it finds, and fails the update on a
// Description-md5 of the wrong length).
constexpr std::array<std::string_view, 7> k_archive_fields{
    "Filename", "Size", "MD5sum", "SHA1", "SHA256", "SHA512", "Description-md5"};

// The fields of a binary package that name other packages (Policy §7.1).
constexpr std::array<std::string_view, 9> k_relation_fields{
    "Depends", "Pre-Depends", "Recommends", "Suggests", "Enhances",
    "Breaks",  "Conflicts",   "Replaces",   "Provides"};

// The fields apt reads as a yes or a no.
constexpr std::array<std::string_view, 4> k_yes_no_fields{"Essential", "Protected", "Important",
                                                          "Build-Essential"};

// Whether field name `name` is one of `names`, in any case (field names are case-insensitive).
bool is_one_of(std::string_view name, std::span<const std::string_view> names) noexcept {
  return std::any_of(names.begin(), names.end(),
                     [&](std::string_view n) { return iequals(n, name); });
}

// apt aborts reading a Packages file that holds a longer string where it keeps one in its
// cache: Section, Source, and each name and version of a relation field.
constexpr std::size_t k_max_string = 65534;

constexpr std::size_t k_max_architecture = 64;

// The control fields apt reads into its cache, checked as apt reads them from a Packages file:
// one that apt cannot parse makes `apt-get update` fail for every package of the suite.
Result<void> check_control_fields(const Stanza& control) {
  for (const auto& f : control.fields()) {
    if (f.value.size() > k_max_string && (iequals(f.name, "Section") || iequals(f.name, "Source")))
      return fail(fmt::format("{}: {} bytes, past apt's limit of {}", f.name, f.value.size(),
                              k_max_string));
    if (is_one_of(f.name, k_relation_fields)) {
      if (auto ok = check_deb_relations(f.value); !ok)
        return fail(ok.error().with_context(f.name));
      if (iequals(f.name, "Provides") && trim(f.value).empty())
        return fail("Provides: empty, which apt cannot parse");
    } else if (iequals(f.name, "Multi-Arch")) { // as apt reads it: lower case
      if (f.value != "no" && f.value != "same" && f.value != "foreign" && f.value != "allowed")
        return fail(fmt::format("Multi-Arch: '{}' is none of no, same, foreign, allowed",
                                excerpt(f.value)));
    } else if (is_one_of(f.name, k_yes_no_fields)) {
      if (!iequals(f.value, "yes") && !iequals(f.value, "no"))
        return fail(fmt::format("{}: '{}' is neither yes nor no", f.name, excerpt(f.value)));
    }
  }
  return {};
}

void skip_space(std::string_view& t) {
  t.remove_prefix(std::min(t.find_first_not_of(" \t\n"), t.size()));
}

// The text of `t` up to the first of `stop`, taken off `t`.
std::string_view take(std::string_view& t, std::string_view stop) {
  std::string_view word = t.substr(0, t.find_first_of(stop));
  t.remove_prefix(word.size());
  return word;
}

// The "(op version)" that `rest` starts with, taken off it; `alt` is the alternative, for errors.
Result<void> check_version_relation(std::string_view& rest, std::string_view alt) {
  rest.remove_prefix(1);
  skip_space(rest);
  std::string_view op = take(rest, "0123456789 \t\n)");
  if (op != "<<" && op != "<=" && op != "=" && op != ">=" && op != ">>" && op != "<" && op != ">")
    return fail(fmt::format("bad relation '{}' in '{}'", excerpt(op), excerpt(alt)));
  skip_space(rest);
  std::string_view version = take(rest, " \t\n)");
  skip_space(rest);
  if (version.empty() || rest.empty() || rest.front() != ')')
    return fail(fmt::format("no version and ')' in '{}'", excerpt(alt)));
  for (char c : version)
    if (!is_version_char(c))
      return fail(fmt::format("bad version in '{}'", excerpt(alt)));
  if (version.size() > k_max_string)
    return fail(
        fmt::format("a version of {} bytes, past apt's limit of {}", version.size(), k_max_string));
  rest.remove_prefix(1);
  skip_space(rest);
  return {};
}

// One alternative of a relation: "name[:arch] [(op version)]".
Result<void> check_alternative(std::string_view alt) {
  std::string_view rest = trim(alt);
  if (rest.empty())
    return fail("an empty alternative around '|'");
  // dpkg takes any case here, and one character.
  std::string_view name = take(rest, " \t\n:([<|");
  if (name.empty() || !is_alnum(name.front()) || !std::all_of(name.begin(), name.end(), [](char c) {
        return is_alnum(c) || c == '+' || c == '.' || c == '-';
      }))
    return fail(fmt::format("bad package name in '{}'", excerpt(trim(alt))));
  if (name.size() > k_max_string)
    return fail(fmt::format("a package name of {} bytes, past apt's limit of {}", name.size(),
                            k_max_string));
  if (!rest.empty() && rest.front() == ':') {
    rest.remove_prefix(1);
    if (auto ok = check_deb_architecture(take(rest, " \t\n([<")); !ok)
      return fail(fmt::format("bad architecture qualifier in '{}'", excerpt(trim(alt))));
  }
  skip_space(rest);
  if (!rest.empty() && rest.front() == '(')
    OPSKIT_TRY(check_version_relation(rest, trim(alt)));
  if (!rest.empty() && (rest.front() == '[' || rest.front() == '<'))
    return fail(fmt::format("'{}': architecture restrictions and build profiles belong to "
                            "source packages",
                            excerpt(trim(alt))));
  if (!rest.empty())
    return fail(
        fmt::format("unexpected '{}' in '{}'", excerpt(rest.substr(0, 1)), excerpt(trim(alt))));
  return {};
}

} // namespace

Result<void> check_deb_relations(std::string_view value) {
  if (trim(value).empty())
    return {};
  for (bool more = true; more;) {
    std::string_view item = value.substr(0, value.find(','));
    more = item.size() < value.size();
    value.remove_prefix(std::min(item.size() + 1, value.size()));
    if (trim(item).empty())
      return fail("an empty entry (a comma too many?)");
    while (!item.empty()) {
      std::string_view alt = item.substr(0, item.find('|'));
      item.remove_prefix(std::min(alt.size() + 1, item.size()));
      OPSKIT_TRY(check_alternative(alt));
    }
  }
  return {};
}

Result<void> check_deb_name(std::string_view name) {
  // Policy §5.6.1: [a-z0-9][a-z0-9+.-]+, at least two characters.
  if (name.size() < 2 || !is_lower_alnum(name.front()))
    return fail(fmt::format("bad package name '{}': must be 2+ characters starting with [a-z0-9]",
                            excerpt(name)));
  for (char c : name)
    if (!is_lower_alnum(c) && c != '+' && c != '.' && c != '-')
      return fail(
          fmt::format("bad package name '{}': only [a-z0-9+.-] are allowed", excerpt(name)));
  if (name.find("..") != std::string_view::npos)
    return fail(fmt::format("bad package name '{}': '..' is not allowed", excerpt(name)));
  return {};
}

Result<void> check_deb_version(std::string_view version) {
  // Policy §5.6.12: [epoch:]upstream[-revision], epoch digits, upstream starting with a digit.
  std::string_view rest = version;
  if (auto colon = rest.find(':'); colon != std::string_view::npos) {
    std::string_view epoch = rest.substr(0, colon);
    if (epoch.empty() || epoch.find_first_not_of("0123456789") != std::string_view::npos)
      return fail(fmt::format("bad version '{}': the epoch must be a number", excerpt(version)));
    rest.remove_prefix(colon + 1);
  }
  if (rest.empty() || !(rest.front() >= '0' && rest.front() <= '9'))
    return fail(fmt::format("bad version '{}': must start with a digit", excerpt(version)));
  for (char c : rest)
    if (!is_version_char(c))
      return fail(
          fmt::format("bad version '{}': only [A-Za-z0-9.+~:-] are allowed", excerpt(version)));
  if (version.find("..") != std::string_view::npos)
    return fail(fmt::format("bad version '{}': '..' is not allowed", excerpt(version)));
  if (version.ends_with('-')) // dpkg refuses to install it
    return fail(fmt::format("bad version '{}': the revision after '-' is empty", excerpt(version)));
  return {};
}

Result<void> check_deb_architecture(std::string_view arch) {
  if (arch.empty())
    return fail("empty architecture");
  for (char c : arch)
    if (!is_lower_alnum(c) && c != '-')
      return fail(fmt::format("bad architecture '{}': only [a-z0-9-] are allowed", excerpt(arch)));
  // apt names its list files after binary-<arch>; Debian's longest is under 20 bytes.
  if (arch.size() > k_max_architecture)
    return fail(fmt::format("bad architecture '{}': longer than {} bytes", excerpt(arch),
                            k_max_architecture));
  return {};
}

std::string_view strip_epoch(std::string_view version) noexcept {
  auto colon = version.find(':');
  return colon == std::string_view::npos ? version : version.substr(colon + 1);
}

std::string deb_file_name(const DebInfo& deb) {
  return fmt::format("{}_{}_{}.deb", deb.name, strip_epoch(deb.version), deb.architecture);
}

std::string deb_pool_path(const DebInfo& deb, std::string_view component) {
  std::string_view source = deb.source;
  std::string_view prefix =
      starts_with(source, "lib") && source.size() > 3 ? source.substr(0, 4) : source.substr(0, 1);
  return fmt::format("pool/{}/{}/{}/{}", component, prefix, source, deb_file_name(deb));
}

namespace {

// The ar members read so far, to tell a missing, doubled or misplaced one.
struct Members {
  std::optional<std::string> control_text;
  bool have_version = false, have_data = false;
};

Result<void> read_debian_binary(archive* a, std::string_view what) {
  OPSKIT_TRY_ASSIGN(auto text, read_entry(a, 64, fmt::format("{}: debian-binary", what)));
  if (!starts_with(text, "2."))
    return fail(fmt::format("{}: unsupported deb format version '{}'", what,
                            excerpt(text.substr(0, text.find('\n')))));
  if (text.find('\n') == std::string::npos) // dpkg refuses it
    return fail(
        fmt::format("{}: debian-binary '{}' is not a line (no newline)", what, excerpt(text)));
  return {};
}

// ./control of control.tar member `name`.
Result<std::string> read_control_member(archive* a, std::string_view name, std::string_view what) {
  std::string member_what = fmt::format("{}: {}", what, excerpt(name));
  OPSKIT_TRY_ASSIGN(auto member, read_entry(a, k_deb_control_tar_limit, member_what));
  return control_file_of(member, member_what);
}

// Reads the current member, the `index`th, named `name`, into `found`.
Result<void> read_member(archive* a, int index, const std::string& name, std::string_view what,
                         Members& found) {
  if (index == 0) {
    if (name != "debian-binary")
      return fail(
          fmt::format("{}: first ar member is '{}', not debian-binary", what, excerpt(name)));
    OPSKIT_TRY(read_debian_binary(a, what));
    found.have_version = true;
  } else if (starts_with(name, "control.tar")) {
    // dpkg refuses both, and would install from another control file than the index shows.
    if (found.control_text)
      return fail(fmt::format("{}: two control.tar members", what));
    if (found.have_data)
      return fail(fmt::format("{}: data.tar before control.tar", what));
    OPSKIT_TRY_ASSIGN(found.control_text, read_control_member(a, name, what));
  } else if (starts_with(name, "data.tar")) {
    if (found.have_data)
      return fail(fmt::format("{}: two data.tar members", what));
    found.have_data = true;
    // The payload's integrity is checked against its digests by apt; here only its presence.
    if (archive_read_data_skip(a) != ARCHIVE_OK)
      return fail(fmt::format("{}: {}: {}", what, excerpt(name), archive_problem(a)));
  } else if (!starts_with(name, "_")) {
    return fail(fmt::format("{}: unexpected ar member '{}'", what, excerpt(name)));
  }
  return {};
}

// The text of ./control, from an ar archive of debian-binary, control.tar and data.tar.
Result<std::string> read_control_text(std::string_view bytes, std::string_view what) {
  if (!starts_with(bytes, "!<arch>\n"))
    return fail(fmt::format("{}: not a .deb (no ar archive magic)", what));
  ArchiveReadPtr a(archive_read_new());
  archive_read_support_format_ar(a.get());
  if (archive_read_open_memory(a.get(), bytes.data(), bytes.size()) != ARCHIVE_OK)
    return fail(fmt::format("{}: {}", what, archive_problem(a.get())));
  Members found;
  archive_entry* entry = nullptr;
  for (int index = 0;; ++index) {
    int rc = archive_read_next_header(a.get(), &entry);
    if (rc == ARCHIVE_EOF)
      break;
    if (rc < ARCHIVE_WARN)
      return fail(fmt::format("{}: damaged ar archive: {}", what, archive_problem(a.get())));
    std::string name = archive_entry_pathname(entry) ? archive_entry_pathname(entry) : "";
    OPSKIT_TRY(read_member(a.get(), index, name, what, found));
  }
  if (!found.have_version)
    return fail(fmt::format("{}: empty ar archive", what));
  if (!found.control_text)
    return fail(fmt::format("{}: no control.tar member", what));
  if (!found.have_data)
    return fail(fmt::format("{}: no data.tar member", what));
  return std::move(*found.control_text);
}

// The control paragraph, one that apt can read; an error on a carriage return or NUL in it.
Result<Stanza> parse_control(const std::string& text, std::string_view what) {
  if (auto bad = text.find_first_of(std::string_view("\r\0", 2)); bad != std::string::npos)
    return fail(fmt::format(
        "{}: control: line {}: {}", what, 1 + std::count(text.begin(), text.begin() + bad, '\n'),
        text[bad] == '\r' ? "a carriage return (CRLF line ends?)" : "a NUL byte"));
  OPSKIT_TRY_ASSIGN(auto control, parse_stanza(text, fmt::format("{}: control", what)));
  if (auto ok = check_control_fields(control); !ok)
    return fail(ok.error().with_context(fmt::format("{}: control field", what)));
  return control;
}

// The Package, Version and Architecture fields, as Debian policy allows them in a binary
// package.
Result<void> read_names(const Stanza& control, std::string_view what, DebInfo& deb) {
  for (auto [field, out] : {std::pair{"Package", &deb.name}, std::pair{"Version", &deb.version},
                            std::pair{"Architecture", &deb.architecture}}) {
    const std::string* value = control.find(field);
    if (!value || value->empty())
      return fail(fmt::format("{}: control file has no {} field", what, field));
    if (value->find('\n') != std::string::npos)
      return fail(fmt::format("{}: control field {} spans lines", what, field));
    *out = *value;
  }
  for (auto check : {check_deb_name(deb.name), check_deb_version(deb.version),
                     check_deb_architecture(deb.architecture)})
    if (!check)
      return fail(check.error().with_context(what));
  if (std::string_view arch = deb.architecture;
      arch == "any" || arch == "source" || starts_with(arch, "any-") || arch.ends_with("-any"))
    return fail(fmt::format("{}: Architecture '{}' names a set of architectures or sources; a "
                            "binary package is built for one, or for all",
                            what, arch));
  return {};
}

// The Source field's name, else the package's; with the pool file, names the file system can
// hold.
Result<void> read_source(const Stanza& control, std::string_view what, DebInfo& deb) {
  deb.source = deb.name;
  if (const std::string* source = control.find("Source")) {
    std::string_view s = *source;
    deb.source = std::string(s.substr(0, s.find_first_of(" (")));
    if (auto ok = check_deb_name(deb.source); !ok)
      return fail(ok.error().with_context(fmt::format("{}: Source", what)));
  }
  constexpr std::size_t k_name_max = NAME_MAX;
  std::size_t file_name = deb_file_name(deb).size();
  if (file_name > k_name_max)
    return fail(fmt::format("{}: name, version and architecture make a pool file name of {} bytes, "
                            "past the limit of {}",
                            what, file_name, k_name_max));
  if (deb.source.size() > k_name_max)
    return fail(fmt::format("{}: a Source name of {} bytes, past the limit of {}", what,
                            deb.source.size(), k_name_max));
  return {};
}

// The control paragraph without the fields the archive computes: what the archive says about
// the file is the archive's to write, not the package's.
Stanza without_archive_fields(const Stanza& control) {
  std::vector<Field> fields;
  for (auto& f : control.fields())
    if (!is_one_of(f.name, k_archive_fields))
      fields.push_back(f);
  return Stanza(std::move(fields));
}

} // namespace

Result<DebInfo> read_deb(std::string_view bytes, std::string_view what) {
  OPSKIT_TRY_ASSIGN(auto text, read_control_text(bytes, what));
  OPSKIT_TRY_ASSIGN(auto control, parse_control(text, what));
  DebInfo deb;
  OPSKIT_TRY(read_names(control, what, deb));
  OPSKIT_TRY(read_source(control, what, deb));
  deb.control = without_archive_fields(control);
  return deb;
}

} // namespace opskit::repo
