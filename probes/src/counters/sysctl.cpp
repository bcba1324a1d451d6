// SPDX-License-Identifier: MIT
//
// /proc/sys as procps sysctl names it: every readable file, its path below /proc/sys with each
// '/' written '.' and each '.' in a file name written '/' (net.ipv4.conf.eth0/100.rp_filter).

#include <algorithm>
#include <cerrno>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "metadata.hpp"
#include "opskit/handle.hpp"
#include "sources.hpp"

namespace opskit::counters {

namespace {

// A file of /proc/sys as a name: a number is a gauge, anything else text, unless the name is
// known as text (kernel.hostname "007" is not the number 7).
Field sysctl_field(std::string name, std::string path) {
  Info info{std::move(name), Kind::text, {}, {}};
  if (const Known* k = known(info.name)) {
    info.unit = k->unit;
    info.description = k->description;
  }
  bool text = known_text(info.name);
  return Field{std::move(info),
               std::move(path),
               {.shape = Layout::Shape::whole},
               {},
               {.text = text, .kind_from_value = !text}};
}

void walk_sysctl(int dir_fd, dev_t device, const std::string& path, const std::string& name,
                 std::vector<Field>& out) {
  DIR* dir = ::fdopendir(dir_fd);
  if (dir == nullptr) {
    ::close(dir_fd);
    return;
  }
  CPtr<DIR, ::closedir> owner(dir);
  while (const dirent* entry = ::readdir(dir)) {
    std::string_view leaf = entry->d_name;
    if (leaf == "." || leaf == "..")
      continue;
    struct stat st {};
    if (::fstatat(::dirfd(dir), entry->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
        st.st_dev != device)
      continue; // gone, or another file system mounted here (binfmt_misc)
    std::string child_name = (name.empty() ? "" : name + ".") + component_of(leaf);
    std::string child_path = path + "/" + std::string(leaf);
    if (S_ISDIR(st.st_mode)) {
      int fd = ::openat(::dirfd(dir), entry->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (fd >= 0)
        walk_sysctl(fd, device, child_path, child_name, out);
    } else if (S_ISREG(st.st_mode) && (st.st_mode & 0444) != 0 && !never_read(child_name)) {
      out.push_back(sysctl_field(std::move(child_name), std::move(child_path)));
    }
  }
}

} // namespace

void find_sysctl(const std::string& proc_root, std::string_view prefix, std::vector<Field>& out) {
  auto path = prefix.empty() ? std::optional(proc_root + "/sys") : sysctl_path(proc_root, prefix);
  if (!path)
    return;
  struct stat root {};
  if (::stat((proc_root + "/sys").c_str(), &root) != 0)
    return;
  int fd = ::open(path->c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    walk_sysctl(fd, root.st_dev, *path, std::string(prefix), out);
    return;
  }
  if (errno != ENOTDIR)
    return;
  struct stat st {};
  if (::stat(path->c_str(), &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0444) != 0 &&
      !never_read(prefix)) {
    out.push_back(sysctl_field(std::string(prefix), std::move(*path)));
  }
}

std::string component_of(std::string_view file_name) {
  std::string component(file_name);
  std::replace(component.begin(), component.end(), '.', '/');
  return component;
}

std::string file_name_of(std::string_view component) {
  std::string file(component);
  std::replace(file.begin(), file.end(), '/', '.');
  return file;
}

std::optional<std::string_view> never_read(std::string_view name) noexcept {
  if (name == "vm.stat_refresh")
    return "reading it acts";
  if (name.starts_with("net.ipv6.conf.") && name.ends_with(".stable_secret"))
    return "a secret, which fails to read (EIO) until one is set";
  if (name.starts_with("net.ipv") && name.find(".neigh.") != std::string_view::npos &&
      (name.ends_with(".base_reachable_time") || name.ends_with(".retrans_time")))
    return "deprecated, reading it logs a kernel warning (read the _ms entry)";
  return std::nullopt;
}

bool known_text(std::string_view name) noexcept {
  const Known* k = known(name);
  return k && k->kind == Kind::text;
}

std::optional<std::string> sysctl_path(const std::string& proc_root, std::string_view name) {
  std::string path = proc_root + "/sys";
  for (std::size_t start = 0;;) {
    std::size_t end = name.find('.', start);
    std::string_view component =
        name.substr(start, end == std::string_view::npos ? end : end - start);
    std::string file = file_name_of(component);
    if (file.empty() || file == "." || file == "..")
      return std::nullopt;
    path.append("/").append(file);
    if (end == std::string_view::npos)
      return path;
    start = end + 1;
  }
}

} // namespace opskit::counters
