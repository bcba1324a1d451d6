// SPDX-License-Identifier: MIT
// Which system call table a stopped call went through. The kernel tells by the audit
// architecture of the call (PTRACE_GET_SYSCALL_INFO's `arch`): AUDIT_ARCH_I386 for a 32-bit
// program on x86_64. x32 has no audit architecture of its own: its calls are AUDIT_ARCH_X86_64
// with __X32_SYSCALL_BIT (0x40000000) set in the number, as the kernel's x32 entry and
// libseccomp's x32 filters see them. libseccomp's tokens are the audit values (SCMP_ARCH_X86 is
// AUDIT_ARCH_I386) but for x32, which it marks by the missing 64-bit flag.
#include "opskit/probes/trace/abi.hpp"

#include <array>

#include <seccomp.h>

namespace opskit::trace {

namespace {

constexpr std::uint64_t k_x32_bit = 0x40000000; // __X32_SYSCALL_BIT

#if defined(__x86_64__)
constexpr std::array k_traced = {Abi::native, Abi::i386, Abi::x32};
constexpr std::string_view k_native_name = "x86_64";
#else
constexpr std::array k_traced = {Abi::native};
#if defined(__aarch64__)
constexpr std::string_view k_native_name = "aarch64";
#else
constexpr std::string_view k_native_name = "native";
#endif
#endif

} // namespace

std::span<const Abi> traced_abis() noexcept {
  return k_traced;
}

std::string_view to_string(Abi abi) noexcept {
  switch (abi) {
  case Abi::native:
    return k_native_name;
  case Abi::i386:
    return "i386";
  case Abi::x32:
    return "x32";
  }
  return "?";
}

std::uint32_t seccomp_arch(Abi abi) noexcept {
  switch (abi) {
  case Abi::native:
    break;
  case Abi::i386:
    return SCMP_ARCH_X86;
  case Abi::x32:
    return SCMP_ARCH_X32;
  }
  return seccomp_arch_native();
}

std::optional<AbiCall> decode_call(std::uint32_t audit_arch, std::uint64_t nr) noexcept {
  if (nr > 0x7fffffff)
    return std::nullopt; // -1 (a call skipped by a tracer or seccomp) and nonsense
  auto call = [](Abi abi, std::uint64_t n) { return AbiCall{abi, static_cast<int>(n)}; };
#if defined(__x86_64__)
  if (audit_arch == SCMP_ARCH_X86_64)
    return (nr & k_x32_bit) != 0 ? call(Abi::x32, nr & ~k_x32_bit) : call(Abi::native, nr);
  if (audit_arch == SCMP_ARCH_X86)
    return call(Abi::i386, nr);
  return std::nullopt;
#else
  if (audit_arch != seccomp_arch_native())
    return std::nullopt;
  return call(Abi::native, nr);
#endif
}

int table_nr(Abi abi, int seccomp_nr) noexcept {
  if (abi == Abi::x32 && seccomp_nr >= 0)
    return static_cast<int>(static_cast<std::uint64_t>(seccomp_nr) & ~k_x32_bit);
  return seccomp_nr;
}

std::uint64_t pointer_mask(Abi abi) noexcept {
  return abi == Abi::native ? ~std::uint64_t{0} : 0xffff'ffffu;
}

} // namespace opskit::trace
