// SPDX-License-Identifier: MIT
//
// The operating system: os.release.<KEY>, each variable of os-release(5) as text
// (os.release.PRETTY_NAME: Debian GNU/Linux 12 (bookworm)), and os.version, the major.minor of
// its VERSION_ID as a number (12, 22.04), which node_exporter's os collector serves as
// node_os_info{id,name,version_id,...} 1 and node_os_version. A fleet's dashboards list the
// hosts by release with them, and alerts find the ones an upgrade missed.
//
// The file is <rootfs>/etc/os-release, else <rootfs>/usr/lib/os-release: shell-like
// assignments, one a line, a value quoted or not ("NAME=\"Debian GNU/Linux\"",
// "ID=debian"). The reader renders each assignment as a keyed line, the value unquoted and its
// escapes undone ("NAME Debian GNU/Linux\n"), and a line keyed "version" for os.version; the
// variables' names are upper case, so no variable's line is that one.

#include <iterator>

#include <sys/stat.h>
#include <unistd.h>

#include <fmt/compile.h>
#include <fmt/format.h>

#include "emitter.hpp"
#include "opskit/file.hpp"
#include "opskit/text.hpp"

namespace opskit::counters {

namespace {

// Appends an assignment's value as the shell would take it: in double quotes with \" \\ \$ \`
// escaped, in single quotes as it is, unquoted to the first blank. A newline inside quotes is
// a blank.
void append_unquoted(std::string_view value, std::string& out) {
  char quote = 0;
  for (std::size_t i = 0; i < value.size(); ++i) {
    char c = value[i];
    if (quote == 0 && (c == '"' || c == '\'')) {
      quote = c;
    } else if (c == quote) {
      quote = 0;
    } else if (quote == 0 && (c == ' ' || c == '\t')) {
      break;
    } else if (c == '\\' && quote != '\'' && i + 1 < value.size()) {
      out.push_back(value[++i]);
    } else {
      out.push_back(c == '\n' ? ' ' : c);
    }
  }
}

// The major.minor that begins a VERSION_ID ("22.04.3" -> "22.04", "12" -> "12"), as
// node_exporter reads it; empty when it begins with no digit.
std::string_view major_minor(std::string_view version) {
  auto digits = [&](std::size_t from) {
    std::size_t end = from;
    while (end < version.size() && version[end] >= '0' && version[end] <= '9')
      ++end;
    return end;
  };
  std::size_t major = digits(0);
  if (major == 0)
    return {};
  if (major < version.size() && version[major] == '.' && digits(major + 1) > major + 1)
    return version.substr(0, digits(major + 1));
  return version.substr(0, major);
}

// The os-release file under `rootfs`: an absolute symbolic link is taken under it too.
std::string os_release_path(const std::string& rootfs) {
  for (const char* place : {"/etc/os-release", "/usr/lib/os-release"}) {
    std::string path = rootfs + place;
    std::array<char, 4096> target{};
    ssize_t n = rootfs.empty() ? -1 : ::readlink(path.c_str(), target.data(), target.size() - 1);
    if (n > 0 && target[0] == '/')
      path = rootfs + std::string(target.data(), static_cast<std::size_t>(n));
    if (::access(path.c_str(), R_OK) == 0)
      return path;
  }
  return {};
}

// The value of `key` in a rendering, or empty.
std::string_view value_of(std::string_view text, std::string_view key) {
  std::string_view found;
  for_each_record(text, k_lines, [&](const Record& r) {
    if (r.key == key)
      found = r.rest;
  });
  return found;
}

} // namespace

namespace detail {

std::string_view render_os_release(std::string_view raw, std::string& out) {
  out.clear();
  std::string version;
  for (std::string_view rest = raw; !rest.empty();) {
    std::string_view line = trim(next_line(rest));
    std::size_t equals = line.find('=');
    if (line.empty() || line.front() == '#' || equals == std::string_view::npos || equals == 0)
      continue;
    std::string_view key = line.substr(0, equals);
    if (key.find_first_of(" \t") != std::string_view::npos)
      continue;
    out.append(key).push_back(' ');
    std::size_t value = out.size();
    append_unquoted(line.substr(equals + 1), out);
    if (key == "VERSION_ID")
      version = major_minor(std::string_view(out).substr(value));
    out.push_back('\n');
  }
  if (!version.empty())
    fmt::format_to(std::back_inserter(out), FMT_COMPILE("version {}\n"), version);
  return out;
}

} // namespace detail

void find_os_release(const Roots& roots, std::string_view prefix, std::vector<Field>& out) {
  if (!related(prefix, "os"))
    return;
  std::string path = os_release_path(roots.rootfs);
  auto text = path.empty() ? std::nullopt : read_rendered(path, Reader::os_release);
  if (!text)
    return;
  Emitter emitter(roots, path, k_lines, prefix, out, Reader::os_release);
  for_each_record(*text, k_lines, [&](const Record& r) {
    if (r.key == "version") {
      // node_exporter's node_os_version is labelled with the system's id and name.
      if (Info* info = emitter.emit("os.version", "os.version", Kind::gauge, "",
                                    {std::string(r.key), 0, r.offset})) {
        info->description = "The major.minor of the operating system's VERSION_ID";
        for (auto [label, key] : {std::pair{"id", "ID"}, {"id_like", "ID_LIKE"}, {"name", "NAME"}})
          if (auto value = value_of(*text, key); !value.empty())
            info->labels.emplace_back(label, value);
      }
      return;
    }
    if (Info* info = emitter.emit(fmt::format("os.release.{}", r.key), "os.release.*", Kind::text,
                                  "", {std::string(r.key), -1, r.offset}))
      info->description = "A variable of os-release(5)";
  });
}

} // namespace opskit::counters
