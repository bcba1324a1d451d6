// SPDX-License-Identifier: MIT
#include <catch2/catch.hpp>

#include <algorithm>
#include <cerrno>

#include <sys/syscall.h>

#include "opskit/probes/trace/syscalls.hpp"

using namespace opskit::trace;

namespace {

bool has(SyscallClass cls, std::string_view name, Abi abi = Abi::native) {
  auto calls = class_syscalls(cls);
  return std::any_of(calls.begin(), calls.end(),
                     [&](const auto& c) { return c.name == name && c.abi == abi; });
}

} // namespace

TEST_CASE("syscalls: the stats class is the stat family with access and readlink",
          "[probes][trace]") {
  for (auto name : {"newfstatat", "statx", "faccessat", "faccessat2", "readlinkat"})
    CHECK(has(SyscallClass::stats, name));
  CHECK_FALSE(has(SyscallClass::stats, "openat"));
  CHECK(in_class(SyscallClass::stats, Abi::native, SYS_newfstatat));
  CHECK_FALSE(in_class(SyscallClass::stats, Abi::native, SYS_openat));
#ifdef SYS_stat
  CHECK(has(SyscallClass::stats, "stat"));
  CHECK(path_argument(Abi::native, SYS_stat) == 0);
#endif
  CHECK(path_argument(Abi::native, SYS_newfstatat) == 1);
}

TEST_CASE("syscalls: files adds opening, executing, removing and renaming", "[probes][trace]") {
  for (auto name : {"newfstatat", "openat", "execve", "unlinkat", "renameat2", "mkdirat"})
    CHECK(has(SyscallClass::files, name));
  CHECK(in_class(SyscallClass::files, Abi::native, SYS_openat));
  CHECK(path_argument(Abi::native, SYS_openat) == 1);
  CHECK(path_argument(Abi::native, SYS_execve) == 0);
  CHECK(path_argument(Abi::native, SYS_read) == -1);
  CHECK_FALSE(in_class(SyscallClass::files, Abi::native, SYS_read));
}

TEST_CASE("syscalls: all is every call", "[probes][trace]") {
  CHECK(class_syscalls(SyscallClass::all).empty());
  CHECK(in_class(SyscallClass::all, Abi::native, SYS_read));
  CHECK(in_class(SyscallClass::all, Abi::native, SYS_getpid));
}

TEST_CASE("syscalls: names of classes, calls and errnos", "[probes][trace]") {
  CHECK(to_string(SyscallClass::all) == "all");
  CHECK(syscall_name(Abi::native, SYS_newfstatat) == "newfstatat");
  CHECK(syscall_name(Abi::native, SYS_read) == "read");
  CHECK(syscall_name(Abi::native, 100000) == "syscall_100000");
  CHECK(errno_name(ENOENT) == "ENOENT");
  CHECK(errno_name(ENOTDIR) == "ENOTDIR");
  CHECK(errno_name(4000) == "E4000");
  CHECK(errno_name(512) == "ERESTARTSYS"); // the kernel's, as strace names them
  CHECK(errno_name(516) == "ERESTART_RESTARTBLOCK");
}

#if defined(__x86_64__)
// i386's numbers, from the kernel's arch/x86/entry/syscalls/syscall_32.tbl.
constexpr int k_i386_write = 4, k_i386_open = 5, k_i386_stat = 106, k_i386_stat64 = 195,
              k_i386_fstat64 = 197, k_i386_fstatat64 = 300, k_i386_statx = 383, k_i386_oldstat = 18;

TEST_CASE("syscalls: on i386 the stats class has the 32-bit stat family", "[probes][trace]") {
  for (auto name :
       {"stat", "lstat", "fstat", "stat64", "lstat64", "fstat64", "fstatat64", "statx", "oldstat",
        "oldlstat", "oldfstat", "access", "faccessat", "faccessat2", "readlink", "readlinkat"})
    CHECK(has(SyscallClass::stats, name, Abi::i386));
  CHECK_FALSE(has(SyscallClass::stats, "newfstatat", Abi::i386)); // i386 has none
  CHECK_FALSE(has(SyscallClass::stats, "stat64", Abi::native));
  CHECK(in_class(SyscallClass::stats, Abi::i386, k_i386_stat64));
  CHECK(in_class(SyscallClass::stats, Abi::i386, k_i386_statx));
  // i386's 4 is write, x86_64's 4 is stat: the same number, two verdicts.
  CHECK_FALSE(in_class(SyscallClass::stats, Abi::i386, k_i386_write));
  CHECK(in_class(SyscallClass::stats, Abi::native, SYS_stat));
  CHECK(path_argument(Abi::i386, k_i386_stat64) == 0);
  CHECK(path_argument(Abi::i386, k_i386_oldstat) == 0);
  CHECK(path_argument(Abi::i386, k_i386_fstatat64) == 1);
  CHECK(path_argument(Abi::i386, k_i386_statx) == 1);
  CHECK(path_argument(Abi::i386, k_i386_fstat64) == -1);
}

TEST_CASE("syscalls: on i386 files adds the 32-bit open and exec calls", "[probes][trace]") {
  for (auto name : {"open", "openat", "execve", "unlink", "rename", "mkdir", "chdir"})
    CHECK(has(SyscallClass::files, name, Abi::i386));
  CHECK(in_class(SyscallClass::files, Abi::i386, k_i386_open));
  CHECK_FALSE(in_class(SyscallClass::stats, Abi::i386, k_i386_open));
  CHECK(path_argument(Abi::i386, k_i386_open) == 0);
  CHECK(in_class(SyscallClass::all, Abi::i386, k_i386_write));
}

TEST_CASE("syscalls: x32 has the x86_64 names without the x32 bit", "[probes][trace]") {
  CHECK(has(SyscallClass::stats, "newfstatat", Abi::x32));
  CHECK(in_class(SyscallClass::stats, Abi::x32, SYS_newfstatat));
  CHECK(path_argument(Abi::x32, SYS_newfstatat) == 1);
  CHECK(syscall_name(Abi::x32, SYS_newfstatat) == "newfstatat");
}

TEST_CASE("syscalls: calls are named by their own ABI's table", "[probes][trace]") {
  CHECK(syscall_name(Abi::i386, k_i386_stat64) == "stat64");
  CHECK(syscall_name(Abi::i386, k_i386_stat) == "stat");
  CHECK(syscall_name(Abi::i386, k_i386_write) == "write");
  CHECK(syscall_name(Abi::native, k_i386_write) == "stat");
  CHECK(syscall_name(Abi::i386, 192) == "mmap2");
  CHECK(syscall_name(Abi::i386, 100000) == "syscall_100000");
}
#endif
