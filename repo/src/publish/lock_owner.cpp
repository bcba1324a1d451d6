// SPDX-License-Identifier: MIT
#include "publish/lock_owner.hpp"

#include <cerrno>
#include <climits>

#include <signal.h>
#include <unistd.h>

#include "opskit/file.hpp"

namespace opskit::repo::publish {

namespace {

std::string first_line(const std::string& path) {
  auto text = read_file(path);
  if (!text)
    return "";
  return text->substr(0, text->find('\n'));
}

std::string link_target(const char* path) {
  char target[PATH_MAX] = {};
  ssize_t n = ::readlink(path, target, sizeof target - 1);
  return n > 0 ? std::string(target, static_cast<std::size_t>(n)) : "";
}

// Field 22 of /proc/<pid>/stat, counted after the command name, which may hold spaces and
// parentheses and ends at the last ')'; 0 when it cannot be read.
std::uint64_t start_time(long pid) {
  auto stat = read_file("/proc/" + std::to_string(pid) + "/stat");
  if (!stat)
    return 0;
  auto end = stat->rfind(')');
  if (end == std::string::npos)
    return 0;
  std::size_t at = end + 1; // the space before field 3
  for (int field = 3; field < 22 && at != std::string::npos; ++field)
    at = stat->find(' ', at + 1);
  if (at == std::string::npos)
    return 0;
  return std::strtoull(stat->c_str() + at + 1, nullptr, 10);
}

template <class T>
T field(const nlohmann::json& lock, const char* name) {
  auto it = lock.find(name);
  if (it == lock.end())
    return T{};
  if constexpr (std::is_same_v<T, std::string>)
    return it->is_string() ? it->get<std::string>() : T{};
  else
    return it->is_number_integer() ? it->get<T>() : T{};
}

} // namespace

LockOwner this_process() {
  long pid = ::getpid();
  return {first_line("/proc/sys/kernel/random/boot_id"), link_target("/proc/self/ns/pid"), pid,
          start_time(pid)};
}

bool provably_dead(const LockOwner& owner) {
  LockOwner self = this_process();
  if (self.boot_id.empty() || self.pid_namespace.empty() || owner.pid <= 0 || owner.started == 0 ||
      owner.boot_id != self.boot_id || owner.pid_namespace != self.pid_namespace)
    return false;
  // kill(pid, 0) sees every process of the namespace, also where /proc hides other users'
  if (::kill(static_cast<pid_t>(owner.pid), 0) != 0 && errno == ESRCH)
    return true;
  std::uint64_t started = start_time(owner.pid);
  return started != 0 && started != owner.started;
}

void add_to(nlohmann::json& lock, const LockOwner& owner) {
  lock["boot_id"] = owner.boot_id;
  lock["pid_namespace"] = owner.pid_namespace;
  lock["pid"] = owner.pid;
  lock["started"] = owner.started;
}

LockOwner owner_of(const nlohmann::json& lock) {
  if (!lock.is_object())
    return {};
  return {field<std::string>(lock, "boot_id"), field<std::string>(lock, "pid_namespace"),
          field<long>(lock, "pid"), field<std::uint64_t>(lock, "started")};
}

} // namespace opskit::repo::publish
