// SPDX-License-Identifier: MIT
#pragma once

#include <string_view>

namespace opskit::repo {

// dpkg's version ordering (deb-version(7)): negative, zero or positive as a <, ==, > b.
// "1:0.9" > "2.0" (epoch first), "1.0~rc1" < "1.0" (tilde sorts before everything).
int compare_deb_versions(std::string_view a, std::string_view b) noexcept;

// rpm's ordering of [epoch:]version[-release] (rpmvercmp per part, epoch 0 when missing).
int compare_rpm_versions(std::string_view a, std::string_view b) noexcept;

} // namespace opskit::repo
