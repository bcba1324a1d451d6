// SPDX-License-Identifier: MIT
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "opskit/probes/trace/abi.hpp"

namespace opskit::trace {

// The sets of system calls syscount can count. `stats` is the stat family (stat, lstat, fstat,
// newfstatat, statx, access, faccessat, faccessat2, readlink, readlinkat, and i386's stat64,
// lstat64, fstat64, fstatat64, oldstat, oldlstat, oldfstat); `files` adds the calls that open,
// execute, remove, rename or create by path and chdir; `all` is every system call.
enum class SyscallClass { stats, files, all };

// Syscall numbers stay well below this in every Linux ABI's table; a call numbered past it is
// never counted.
inline constexpr int k_max_syscall_nr = 1024;

std::string_view to_string(SyscallClass cls) noexcept;

// One system call of a class in one ABI.
struct SyscallSpec {
  std::string_view name;
  Abi abi = Abi::native;
  int nr = -1;       // in the ABI's table (see AbiCall)
  int path_arg = -1; // argument index holding a path, -1 when the call takes none
};

// The calls of `cls` in every traced ABI, native ones first (a name an ABI lacks, such as
// `stat64` on x86_64 or `stat` on arm64, is left out of that ABI). Empty for `all`, which has
// no list: it is every call.
std::span<const SyscallSpec> class_syscalls(SyscallClass cls);

// True when call `nr` of `abi` belongs to `cls` (always for `all`).
bool in_class(SyscallClass cls, Abi abi, int nr) noexcept;

// Which argument of call `nr` of `abi` is a path name (for every call of `files`), or -1.
int path_argument(Abi abi, int nr) noexcept;

// The name of call `nr` in `abi`'s table ("newfstatat", "stat64"), or "syscall_<nr>" when the
// ABI has none.
std::string syscall_name(Abi abi, int nr);

// The symbolic name of an errno value ("ENOENT"), or "E<n>" when it has none.
std::string errno_name(int err);

} // namespace opskit::trace
