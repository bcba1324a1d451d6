// SPDX-License-Identifier: MIT
#include "index/yum/replaced.hpp"

#include <charconv>
#include <cstdint>

namespace opskit::repo {

namespace {

// What stands between `open` and the next `close` in `text`, or nothing.
std::string_view between(std::string_view text, std::string_view open, std::string_view close) {
  std::size_t at = text.find(open);
  if (at == std::string_view::npos)
    return {};
  at += open.size();
  std::size_t end = text.find(close, at);
  return end == std::string_view::npos ? std::string_view() : text.substr(at, end - at);
}

std::string_view file_name(std::string_view path) {
  return path.substr(path.rfind('/') + 1);
}

std::string key(std::string_view pkgid, std::string_view name) {
  std::string key(pkgid);
  key += ' ';
  key += name;
  return key;
}

} // namespace

void ReplacedRuns::add(Document document, std::string text) {
  constexpr std::string_view k_end = "</package>\n";
  std::string_view all = texts_.emplace_back(std::move(text));
  for (std::size_t at = 0; at < all.size() && all.substr(at).starts_with("<package ");) {
    std::size_t end = all.find(k_end, at);
    if (end == std::string_view::npos)
      return;
    end += k_end.size();
    std::string_view fragment = all.substr(at, end - at);
    at = end;
    if (document == primary) {
      std::string_view pkgid = between(fragment, "pkgid=\"YES\">", "<");
      primary_.emplace(key(pkgid, between(fragment, "<name>", "</name>")),
                       Primary{fragment, file_name(between(fragment, "<location href=\"", "\"")),
                               between(fragment, "<size package=\"", "\"")});
    } else {
      std::string_view head = fragment.substr(0, fragment.find('>'));
      others_[document - 1].emplace(
          key(between(head, "<package pkgid=\"", "\""), between(head, " name=\"", "\"")), fragment);
    }
  }
}

bool ReplacedRuns::fill(YumEntry& e) const {
  std::string wanted = key(e.pkgid, e.name);
  auto p = primary_.find(wanted);
  if (p == primary_.end())
    return false;
  const Primary& found = p->second;
  std::uint64_t size = 0;
  const char* end = found.size.data() + found.size.size();
  if (auto [at, ec] = std::from_chars(found.size.data(), end, size);
      ec != std::errc() || at != end || size != e.size || found.file_name != file_name(e.file))
    return false;
  auto f = others_[0].find(wanted);
  auto o = others_[1].find(wanted);
  if (f == others_[0].end() || o == others_[1].end())
    return false;
  e.xml = {found.fragment, f->second, o->second};
  return true;
}

} // namespace opskit::repo
