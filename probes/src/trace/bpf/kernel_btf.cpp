// SPDX-License-Identifier: MIT
#include "kernel_btf.hpp"

#include <cstdlib>

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "opskit/file.hpp"
#include "syscount_btf.h"

namespace opskit::trace {

namespace {

// The extract in a memfd, for libbpf to read by its path.
Result<UniqueFd> extract_file() {
  UniqueFd fd(::memfd_create("syscount.btf", MFD_CLOEXEC));
  if (!fd)
    return fail(Error::from_errno("make a file for", "the kernel's BTF"));
  OPSKIT_TRY(write_all(fd.get(),
                       {reinterpret_cast<const char*>(syscount_min_btf), SYSCOUNT_MIN_BTF_SIZE},
                       "the kernel's BTF"));
  return fd;
}

std::size_t size_of(const char* path) {
  struct stat st {};
  return ::stat(path, &st) == 0 ? static_cast<std::size_t>(st.st_size) : 0;
}

} // namespace

bool is_build_kernel(std::string_view notes, std::uint64_t btf_size) noexcept {
  std::string_view built(reinterpret_cast<const char*>(syscount_build_notes),
                         SYSCOUNT_BUILD_NOTES_SIZE);
  return !built.empty() && notes == built && btf_size == SYSCOUNT_BUILD_BTF_SIZE;
}

Result<KernelBtf> KernelBtf::choose() {
  KernelBtf btf;
  if (const char* path = std::getenv("SYSCOUNT_BTF"); path && *path) {
    if (::access(path, R_OK) != 0)
      return fail(Error::from_errno("read SYSCOUNT_BTF", path));
    btf.path_ = path;
    btf.whole_size_ = size_of(path);
    return btf;
  }
  btf.whole_size_ = size_of(k_kernel_btf);
  auto notes = read_file("/sys/kernel/notes");
  if (!notes || !is_build_kernel(*notes, btf.whole_size_))
    return btf;
  btf.whole_size_ = 0;
  OPSKIT_TRY_ASSIGN(btf.extract_, extract_file());
  btf.path_ = fmt::format("/proc/self/fd/{}", btf.extract_.get());
  return btf;
}

} // namespace opskit::trace
