// SPDX-License-Identifier: MIT
#include "layout/architectures.hpp"

#include <array>

#include <fmt/format.h>

namespace opskit::repo::detail {

namespace {

struct Names {
  std::string_view deb, rpm;
};

// Debian's release architectures and ports with an rpm counterpart that Fedora or EL builds,
// and whose dnf $basearch is the rpm architecture (i686's is i386, armv7hl's armhfp: not
// repositories pkgcloud names by their packages' architecture).
constexpr std::array<Names, 7> k_architectures{{
    {"amd64", "x86_64"},
    {"arm64", "aarch64"},
    {"ppc64el", "ppc64le"},
    {"s390x", "s390x"},
    {"riscv64", "riscv64"},
    {"mips64el", "mips64el"},
    {"loong64", "loongarch64"},
}};

} // namespace

Result<Architecture> architecture(std::string_view name) {
  for (const auto& a : k_architectures)
    if (name == a.deb || name == a.rpm)
      return Architecture{std::string(a.deb), std::string(a.rpm)};
  std::string known;
  for (const auto& a : k_architectures)
    known += fmt::format("{}{} ({})", known.empty() ? "" : ", ", a.deb, a.rpm);
  return fail(fmt::format("--arch {}: not an architecture pkgcloud knows: {}", name, known));
}

} // namespace opskit::repo::detail
