// SPDX-License-Identifier: MIT
#include "ops/fragments.hpp"

#include <utility>

#include <fmt/format.h>

namespace opskit::repo::ops {

Result<YumFragments> rpm_fragments(RpmInfo rpm, std::string_view file, std::uint64_t size,
                                   std::string sha256) {
  return yum_fragments({std::move(rpm),
                        fmt::format("Packages/{}", file.substr(file.rfind('/') + 1)), size,
                        std::move(sha256)});
}

Result<void> add_yum_fragments(PackageRecord& r, RpmInfo rpm) {
  OPSKIT_TRY_ASSIGN(auto xml, rpm_fragments(std::move(rpm), r.file, r.size, r.sha256));
  r.xml_primary = std::move(xml.primary);
  r.xml_filelists = std::move(xml.filelists);
  r.xml_other = std::move(xml.other);
  return {};
}

} // namespace opskit::repo::ops
