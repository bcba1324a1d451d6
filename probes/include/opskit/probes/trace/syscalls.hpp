// SPDX-License-Identifier: MIT
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace opskit::trace {

// The sets of system calls syscount can count. `stats` is the stat family (stat, lstat, fstat,
// newfstatat, statx, access, faccessat, faccessat2, readlink, readlinkat); `files` adds the calls
// that open, execute, remove, rename or create by path and chdir; `all` is every system call.
enum class SyscallClass { stats, files, all };

std::string_view to_string(SyscallClass cls) noexcept;
// "stats", "files" or "all"; nothing for any other word.
std::optional<SyscallClass> parse_class(std::string_view word) noexcept;

// One system call of a class on this machine's native ABI.
struct SyscallSpec {
  std::string_view name;
  int nr = -1;       // native syscall number
  int path_arg = -1; // argument index holding a path, -1 when the call takes none
};

// The calls of `cls` that exist on the native ABI (a name the ABI lacks, such as `stat` on
// arm64, is left out). Empty for `all`, which has no list: it is every call.
std::span<const SyscallSpec> class_syscalls(SyscallClass cls);

// True when native syscall `nr` belongs to `cls` (always for `all`).
bool in_class(SyscallClass cls, int nr) noexcept;

// Which argument of native syscall `nr` is a path name (for every call of `files`), or -1.
int path_argument(int nr) noexcept;

// The name of native syscall `nr` ("newfstatat"), or "syscall_<nr>" when the ABI has none.
std::string syscall_name(int nr);

// The symbolic name of an errno value ("ENOENT"), or "E<n>" when it has none.
std::string errno_name(int err);

} // namespace opskit::trace
