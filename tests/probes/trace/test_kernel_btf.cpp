// SPDX-License-Identifier: MIT
// The check that decides whether the eBPF programs are relocated against the BTF extract built
// in: only on the kernel it was cut from. On another kernel the extract's offsets could be wrong.
#include <cstdint>
#include <string>

#include <sys/stat.h>

#include <catch2/catch.hpp>

#include "opskit/file.hpp"
#include "skip.hpp"
#include "trace/bpf/kernel_btf.hpp"

using opskit::trace::is_build_kernel;

TEST_CASE("kernel BTF: the extract is for the kernel it was cut from, and no other",
          "[probes][trace][ebpf]") {
  auto notes = opskit::read_file("/sys/kernel/notes");
  struct stat btf {};
  if (!notes || ::stat("/sys/kernel/btf/vmlinux", &btf) != 0)
    OPSKIT_SKIP("this kernel has no notes or no BTF in /sys");
  auto size = static_cast<std::uint64_t>(btf.st_size);
  // The tests run on the machine that built them, against its own BTF.
  CHECK(is_build_kernel(*notes, size));

  std::string other_build = *notes;
  other_build[other_build.size() / 2] ^= 1;
  CHECK_FALSE(is_build_kernel(other_build, size));
  CHECK_FALSE(is_build_kernel(*notes, size + 8));
  CHECK_FALSE(is_build_kernel("", size));
  CHECK_FALSE(is_build_kernel(notes->substr(0, notes->size() - 4), size));
}
