// SPDX-License-Identifier: MIT
// The BTF that libbpf relocates the programs' field accesses against (CO-RE).
//
// Left to itself, libbpf reads the running kernel's whole BTF (/sys/kernel/btf/vmlinux: 5.5 MB
// and 126,000 types here, half of syscount's start-up) though the programs use a few dozen of
// its types. The build cuts those out (`bpftool gen min_core_btf`, under a kilobyte) and records
// the kernel it cut them from: its notes (/sys/kernel/notes, which hold its build id) and the
// size of its BTF. Where syscount runs on that same kernel, libbpf gets the extract, by the path
// of a memfd holding it, and the relocations come out as from the whole. On any other kernel it
// reads the whole BTF, as before; SYSCOUNT_BTF names a BTF file to use instead of either.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "opskit/error.hpp"
#include "opskit/handle.hpp"

namespace opskit::trace {

// The running kernel's BTF: what the verifier types the programs' accesses by, in any case.
inline constexpr const char* k_kernel_btf = "/sys/kernel/btf/vmlinux";

class KernelBtf {
public:
  // SYSCOUNT_BTF when set, else the extract where this is the kernel it was cut from, else the
  // running kernel's own BTF.
  static Result<KernelBtf> choose();

  // For bpf_object_open_opts.btf_custom_path: null for the running kernel's own BTF.
  const char* custom_path() const noexcept { return path_.empty() ? nullptr : path_.c_str(); }
  // The size of the whole BTF that libbpf reads (megabytes); 0 when it reads the extract.
  std::size_t whole_size() const noexcept { return whole_size_; }

private:
  UniqueFd extract_;
  std::string path_;
  std::size_t whole_size_ = 0;
};

// Whether a kernel with these notes and this size of BTF is the one the extract was cut from.
bool is_build_kernel(std::string_view notes, std::uint64_t btf_size) noexcept;

} // namespace opskit::trace
