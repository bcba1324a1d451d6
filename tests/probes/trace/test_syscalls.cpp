// SPDX-License-Identifier: MIT
#include <catch2/catch.hpp>

#include <algorithm>
#include <cerrno>

#include <sys/syscall.h>

#include "opskit/probes/trace/syscalls.hpp"

using namespace opskit::trace;

namespace {

bool has(SyscallClass cls, std::string_view name) {
  auto calls = class_syscalls(cls);
  return std::any_of(calls.begin(), calls.end(), [&](const auto& c) { return c.name == name; });
}

} // namespace

TEST_CASE("syscalls: the stats class is the stat family with access and readlink",
          "[probes][trace]") {
  for (auto name : {"newfstatat", "statx", "faccessat", "faccessat2", "readlinkat"})
    CHECK(has(SyscallClass::stats, name));
  CHECK_FALSE(has(SyscallClass::stats, "openat"));
  CHECK(in_class(SyscallClass::stats, SYS_newfstatat));
  CHECK_FALSE(in_class(SyscallClass::stats, SYS_openat));
#ifdef SYS_stat
  CHECK(has(SyscallClass::stats, "stat"));
  CHECK(path_argument(SYS_stat) == 0);
#endif
  CHECK(path_argument(SYS_newfstatat) == 1);
}

TEST_CASE("syscalls: files adds opening, executing, removing and renaming", "[probes][trace]") {
  for (auto name : {"newfstatat", "openat", "execve", "unlinkat", "renameat2", "mkdirat"})
    CHECK(has(SyscallClass::files, name));
  CHECK(in_class(SyscallClass::files, SYS_openat));
  CHECK(path_argument(SYS_openat) == 1);
  CHECK(path_argument(SYS_execve) == 0);
  CHECK(path_argument(SYS_read) == -1);
  CHECK_FALSE(in_class(SyscallClass::files, SYS_read));
}

TEST_CASE("syscalls: all is every call", "[probes][trace]") {
  CHECK(class_syscalls(SyscallClass::all).empty());
  CHECK(in_class(SyscallClass::all, SYS_read));
  CHECK(in_class(SyscallClass::all, SYS_getpid));
}

TEST_CASE("syscalls: names of classes, calls and errnos", "[probes][trace]") {
  CHECK(parse_class("files") == SyscallClass::files);
  CHECK_FALSE(parse_class("stat").has_value());
  CHECK(to_string(SyscallClass::all) == "all");
  CHECK(syscall_name(SYS_newfstatat) == "newfstatat");
  CHECK(syscall_name(SYS_read) == "read");
  CHECK(syscall_name(100000) == "syscall_100000");
  CHECK(errno_name(ENOENT) == "ENOENT");
  CHECK(errno_name(ENOTDIR) == "ENOTDIR");
  CHECK(errno_name(4000) == "E4000");
}
