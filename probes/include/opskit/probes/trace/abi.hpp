// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace opskit::trace {

// A system call table a process can enter the kernel through. A 64-bit x86 kernel runs three:
// its own (x86_64), i386 for 32-bit programs (CONFIG_IA32_EMULATION), and x32 (64-bit
// registers, 32-bit pointers). Each numbers the calls its own way: i386's 4 is write,
// x86_64's 4 is stat. Other machines trace only their native table.
enum class Abi : std::uint8_t { native, i386, x32 };
inline constexpr std::size_t k_abi_count = 3;

// The ABIs this build traces, native first: all three on x86_64, only native elsewhere.
std::span<const Abi> traced_abis() noexcept;

// The ABI's name as uname -m calls the machine: "x86_64" (native on x86_64), "i386", "x32".
std::string_view to_string(Abi abi) noexcept;

// libseccomp's architecture token for the ABI (SCMP_ARCH_X86, ...).
std::uint32_t seccomp_arch(Abi abi) noexcept;

// A call as its own ABI numbers it.
struct AbiCall {
  Abi abi = Abi::native;
  int nr = -1; // in the ABI's table; for x32 without __X32_SYSCALL_BIT
  bool operator==(const AbiCall&) const = default;
};

// The ABI and number of a call that PTRACE_GET_SYSCALL_INFO reports with `audit_arch`
// (AUDIT_ARCH_*) and `nr`. x32 calls come as AUDIT_ARCH_X86_64 with __X32_SYSCALL_BIT set in
// the number. Nothing for an architecture this build does not trace.
std::optional<AbiCall> decode_call(std::uint32_t audit_arch, std::uint64_t nr) noexcept;

// The number in `abi`'s table of a call that libseccomp numbers `seccomp_nr` for that ABI
// (libseccomp gives x32's calls with __X32_SYSCALL_BIT set).
int table_nr(Abi abi, int seccomp_nr) noexcept;

// The bits of a register that hold a pointer in the ABI: the low 32 for i386 and x32.
std::uint64_t pointer_mask(Abi abi) noexcept;

} // namespace opskit::trace
