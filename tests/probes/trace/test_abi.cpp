// SPDX-License-Identifier: MIT
// Which ABI a stopped call went through, from the values PTRACE_GET_SYSCALL_INFO reports.
#include <catch2/catch.hpp>

#include <linux/audit.h>

#include "opskit/probes/trace/abi.hpp"

using namespace opskit::trace;

TEST_CASE("abi: the native ABI is traced first", "[probes][trace]") {
  REQUIRE_FALSE(traced_abis().empty());
  CHECK(traced_abis().front() == Abi::native);
}

#if defined(__x86_64__)
TEST_CASE("abi: x86_64 traces i386 and x32 beside its own calls", "[probes][trace]") {
  CHECK(traced_abis().size() == 3);
  CHECK(to_string(Abi::native) == "x86_64");
  CHECK(to_string(Abi::i386) == "i386");
  CHECK(to_string(Abi::x32) == "x32");
}

TEST_CASE("abi: a call is decoded by its audit architecture", "[probes][trace]") {
  CHECK(decode_call(AUDIT_ARCH_X86_64, 262) == AbiCall{Abi::native, 262});
  CHECK(decode_call(AUDIT_ARCH_I386, 195) == AbiCall{Abi::i386, 195});
  CHECK(decode_call(AUDIT_ARCH_I386, 0) == AbiCall{Abi::i386, 0});
}

TEST_CASE("abi: x32 calls are x86_64's architecture with the x32 bit", "[probes][trace]") {
  CHECK(decode_call(AUDIT_ARCH_X86_64, 0x40000000 + 262) == AbiCall{Abi::x32, 262});
  CHECK(decode_call(AUDIT_ARCH_X86_64, 0x40000000 + 512) == AbiCall{Abi::x32, 512});
  CHECK(table_nr(Abi::x32, 0x40000000 + 4) == 4);
  CHECK(table_nr(Abi::i386, 195) == 195);
  CHECK(table_nr(Abi::x32, -10062) == -10062); // libseccomp's pseudo-numbers stay as they are
}

TEST_CASE("abi: other architectures and impossible numbers are not decoded", "[probes][trace]") {
  CHECK_FALSE(decode_call(AUDIT_ARCH_AARCH64, 79).has_value());
  CHECK_FALSE(decode_call(AUDIT_ARCH_X86_64, ~std::uint64_t{0}).has_value()); // nr -1
  CHECK_FALSE(decode_call(AUDIT_ARCH_I386, 0xffffffffu).has_value());
}

TEST_CASE("abi: pointers of 32-bit ABIs are the low 32 bits of a register", "[probes][trace]") {
  CHECK((0xffffffff'0804a000u & pointer_mask(Abi::i386)) == 0x0804a000u);
  CHECK((0xffffffff'0804a000u & pointer_mask(Abi::x32)) == 0x0804a000u);
  CHECK((0x00007fff'0804a000u & pointer_mask(Abi::native)) == 0x00007fff'0804a000u);
}
#endif
