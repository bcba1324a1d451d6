// SPDX-License-Identifier: MIT
// The syscall classes as tables of names, resolved to numbers once through libseccomp so that
// the same table serves every ABI libseccomp knows (x86_64 has `stat`, arm64 only `newfstatat`).
#include "opskit/probes/trace/syscalls.hpp"

#include <array>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <seccomp.h>

#include "opskit/handle.hpp"

namespace opskit::trace {

namespace {

struct NamedCall {
  std::string_view name;
  int path_arg;
};

// The stat family; glibc 2.33+ sends stat/lstat/fstat through newfstatat.
constexpr std::array k_stats = {
    NamedCall{"stat", 0},       NamedCall{"lstat", 0},      NamedCall{"fstat", -1},
    NamedCall{"newfstatat", 1}, NamedCall{"statx", 1},      NamedCall{"access", 0},
    NamedCall{"faccessat", 1},  NamedCall{"faccessat2", 1}, NamedCall{"readlink", 0},
    NamedCall{"readlinkat", 1},
};

// What `files` adds to the stat family. rename* count their first (source) path.
constexpr std::array k_files_extra = {
    NamedCall{"open", 0},     NamedCall{"openat", 1},    NamedCall{"openat2", 1},
    NamedCall{"creat", 0},    NamedCall{"execve", 0},    NamedCall{"execveat", 1},
    NamedCall{"unlink", 0},   NamedCall{"unlinkat", 1},  NamedCall{"rename", 0},
    NamedCall{"renameat", 1}, NamedCall{"renameat2", 1}, NamedCall{"mkdir", 0},
    NamedCall{"mkdirat", 1},  NamedCall{"chdir", 0},
};

// Native syscall numbers stay well below this on every Linux ABI; larger ones are never counted.
constexpr int k_max_nr = 1024;

struct Tables {
  std::vector<SyscallSpec> stats, files;
  std::array<signed char, k_max_nr> path_arg{};
  std::array<unsigned char, k_max_nr> class_bits{}; // bit 0: stats, bit 1: files

  Tables() {
    path_arg.fill(-1);
    auto add = [this](const NamedCall& call, std::vector<SyscallSpec>& into, unsigned bits) {
      int nr = seccomp_syscall_resolve_name(std::string(call.name).c_str());
      if (nr < 0 || nr >= k_max_nr)
        return;
      into.push_back({call.name, nr, call.path_arg});
      path_arg[static_cast<std::size_t>(nr)] = static_cast<signed char>(call.path_arg);
      class_bits[static_cast<std::size_t>(nr)] |= static_cast<unsigned char>(bits);
    };
    for (const auto& call : k_stats) {
      add(call, stats, 1);
      add(call, files, 2);
    }
    for (const auto& call : k_files_extra)
      add(call, files, 2);
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

std::optional<SyscallClass> parse_class(std::string_view word) noexcept {
  for (auto cls : {SyscallClass::stats, SyscallClass::files, SyscallClass::all})
    if (word == to_string(cls))
      return cls;
  return std::nullopt;
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

bool in_class(SyscallClass cls, int nr) noexcept {
  if (cls == SyscallClass::all)
    return true;
  if (nr < 0 || nr >= k_max_nr)
    return false;
  unsigned bit = cls == SyscallClass::stats ? 1u : 2u;
  return (tables().class_bits[static_cast<std::size_t>(nr)] & bit) != 0;
}

int path_argument(int nr) noexcept {
  if (nr < 0 || nr >= k_max_nr)
    return -1;
  return tables().path_arg[static_cast<std::size_t>(nr)];
}

std::string syscall_name(int nr) {
  CPtr<char, ::free> name(seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, nr));
  if (!name)
    return "syscall_" + std::to_string(nr);
  return name.get();
}

std::string errno_name(int err) {
  if (const char* name = ::strerrorname_np(err))
    return name;
  return "E" + std::to_string(err);
}

} // namespace opskit::trace
