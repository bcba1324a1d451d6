// SPDX-License-Identifier: MIT
#include "format/detect.hpp"

namespace opskit::repo {

std::optional<PackageFormat> detect_format(std::string_view bytes) noexcept {
  if (bytes.substr(0, 8) == "!<arch>\n")
    return PackageFormat::deb;
  if (bytes.substr(0, 4) == "\xed\xab\xee\xdb")
    return PackageFormat::rpm;
  return std::nullopt;
}

} // namespace opskit::repo
