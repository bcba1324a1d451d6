// SPDX-License-Identifier: MIT
// The syscall classes as tables of names, resolved to numbers once per traced ABI through
// libseccomp, so that one table serves every ABI: x86_64 has `stat` and `newfstatat`, arm64 only
// `newfstatat`, i386 `stat`, `stat64` and `fstatat64` but no `newfstatat`. A name an ABI lacks
// is left out of that ABI.
#include "opskit/probes/trace/syscalls.hpp"

#include <array>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <vector>

#include <seccomp.h>

#include "opskit/handle.hpp"

namespace opskit::trace {

namespace {

struct NamedCall {
  std::string_view name;
  int path_arg;
};

// The stat family; glibc 2.33+ sends stat/lstat/fstat through newfstatat (statx on i386). The
// 64-bit-size and old forms exist on 32-bit ABIs only.
constexpr std::array k_stats = {
    NamedCall{"stat", 0},       NamedCall{"lstat", 0},      NamedCall{"fstat", -1},
    NamedCall{"newfstatat", 1}, NamedCall{"statx", 1},      NamedCall{"access", 0},
    NamedCall{"faccessat", 1},  NamedCall{"faccessat2", 1}, NamedCall{"readlink", 0},
    NamedCall{"readlinkat", 1}, NamedCall{"stat64", 0},     NamedCall{"lstat64", 0},
    NamedCall{"fstat64", -1},   NamedCall{"fstatat64", 1},  NamedCall{"oldstat", 0},
    NamedCall{"oldlstat", 0},   NamedCall{"oldfstat", -1},
};

// What `files` adds to the stat family. rename* count their first (source) path.
constexpr std::array k_files_extra = {
    NamedCall{"open", 0},     NamedCall{"openat", 1},    NamedCall{"openat2", 1},
    NamedCall{"creat", 0},    NamedCall{"execve", 0},    NamedCall{"execveat", 1},
    NamedCall{"unlink", 0},   NamedCall{"unlinkat", 1},  NamedCall{"rename", 0},
    NamedCall{"renameat", 1}, NamedCall{"renameat2", 1}, NamedCall{"mkdir", 0},
    NamedCall{"mkdirat", 1},  NamedCall{"chdir", 0},
};

constexpr unsigned k_stats_bit = 1, k_files_bit = 2;

struct AbiTable {
  std::array<signed char, k_max_syscall_nr> path_arg;
  std::array<unsigned char, k_max_syscall_nr> class_bits{};
  AbiTable() { path_arg.fill(-1); }
};

struct Tables {
  std::vector<SyscallSpec> stats, files;
  std::array<AbiTable, k_abi_count> abis;

  Tables() {
    for (Abi abi : traced_abis()) {
      for (const auto& call : k_stats) {
        add(abi, call, stats, k_stats_bit);
        add(abi, call, files, k_files_bit);
      }
      for (const auto& call : k_files_extra)
        add(abi, call, files, k_files_bit);
    }
  }

  void add(Abi abi, const NamedCall& call, std::vector<SyscallSpec>& into, unsigned bit) {
    int nr = table_nr(
        abi, seccomp_syscall_resolve_name_arch(seccomp_arch(abi), std::string(call.name).c_str()));
    if (nr < 0 || nr >= k_max_syscall_nr)
      return; // not a call of this ABI (libseccomp gives its pseudo-number, below 0)
    into.push_back({call.name, abi, nr, call.path_arg});
    auto& table = abis[static_cast<std::size_t>(abi)];
    table.path_arg[static_cast<std::size_t>(nr)] = static_cast<signed char>(call.path_arg);
    table.class_bits[static_cast<std::size_t>(nr)] |= static_cast<unsigned char>(bit);
  }
};

const Tables& tables() {
  static const Tables t;
  return t;
}

} // namespace

std::string_view to_string(SyscallClass cls) noexcept {
  switch (cls) {
  case SyscallClass::stats:
    return "stats";
  case SyscallClass::files:
    return "files";
  case SyscallClass::all:
    return "all";
  }
  return "?";
}

std::span<const SyscallSpec> class_syscalls(SyscallClass cls) {
  switch (cls) {
  case SyscallClass::stats:
    return tables().stats;
  case SyscallClass::files:
    return tables().files;
  case SyscallClass::all:
    break;
  }
  return {};
}

bool in_class(SyscallClass cls, Abi abi, int nr) noexcept {
  if (cls == SyscallClass::all)
    return true;
  if (nr < 0 || nr >= k_max_syscall_nr)
    return false;
  unsigned bit = cls == SyscallClass::stats ? k_stats_bit : k_files_bit;
  return (tables().abis[static_cast<std::size_t>(abi)].class_bits[static_cast<std::size_t>(nr)] &
          bit) != 0;
}

int path_argument(Abi abi, int nr) noexcept {
  if (nr < 0 || nr >= k_max_syscall_nr)
    return -1;
  return tables().abis[static_cast<std::size_t>(abi)].path_arg[static_cast<std::size_t>(nr)];
}

std::string syscall_name(Abi abi, int nr) {
  CPtr<char, ::free> name(nr < 0 ? nullptr
                                 : seccomp_syscall_resolve_num_arch(seccomp_arch(abi), nr));
  if (!name)
    return "syscall_" + std::to_string(nr);
  return name.get();
}

std::string errno_name(int err) {
  if (const char* name = ::strerrorname_np(err))
    return name;
  // The kernel's own, which a tracer sees where a call was interrupted (as strace names
  // them, include/linux/errno.h); libc knows none.
  constexpr std::array<std::string_view, 8> k_kernel{
      "ERESTARTSYS",           "ERESTARTNOINTR", "ERESTARTNOHAND", "ENOIOCTLCMD",
      "ERESTART_RESTARTBLOCK", "EPROBE_DEFER",   "EOPENSTALE",     "ENOPARAM"};
  if (err >= 512 && err < 512 + static_cast<int>(k_kernel.size()))
    return std::string(k_kernel[static_cast<std::size_t>(err - 512)]);
  return "E" + std::to_string(err);
}

} // namespace opskit::trace
