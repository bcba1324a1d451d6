// SPDX-License-Identifier: MIT
// fmt's compiled part, built once for all of opskit. Its headers alone declare these functions;
// format-inl.h defines them, and the templates that format.h leaves to the library are
// instantiated here for char, the only character type opskit formats. The tools link this
// object statically, so no libfmt.so is loaded at start-up.
#include <fmt/format-inl.h>

FMT_BEGIN_NAMESPACE
namespace detail {
template FMT_API auto dragonbox::to_decimal(float x) noexcept -> dragonbox::decimal_fp<float>;
template FMT_API auto dragonbox::to_decimal(double x) noexcept -> dragonbox::decimal_fp<double>;
template FMT_API locale_ref::locale_ref(const std::locale& loc);
template FMT_API auto locale_ref::get<std::locale>() const -> std::locale;
template FMT_API auto thousands_sep_impl(locale_ref) -> thousands_sep_result<char>;
template FMT_API auto decimal_point_impl(locale_ref) -> char;
} // namespace detail
FMT_END_NAMESPACE
