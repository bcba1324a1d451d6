// SPDX-License-Identifier: MIT
// A package's <package> elements of the dnf metadata: one each in primary.xml, filelists.xml and
// other.xml.
//
// The format is createrepo's, documented by example in createrepo_c and read by libsolv and
// librepo: primary.xml holds one <package> per rpm with its EVR (epoch="0" when the rpm has
// none), checksum (the pkgid), sizes, location, header range and dependency lists; filelists.xml
// every file; other.xml the changelogs.
//
// Each package's three <package> elements are written once, when it is pushed, and kept in the
// database, so that re-indexing a dist of thousands for one new package pastes text together
// instead of re-parsing and re-writing every package.
//
// What is subtle: XML escaping of summaries, descriptions and changelogs (libxml2's writer does
// it, including characters that are illegal in XML 1.0 which it would otherwise emit as-is, so
// those are dropped); requirements carry pre="1" when needed before install; and primary lists
// only the "primary" files (under /etc/, any bin/ directory, /usr/lib/sendmail) as createrepo
// does, filelists all of them.
#include "opskit/repo/index/yum/fragments.hpp"

#include <algorithm>
#include <ranges>
#include <span>
#include <string_view>
#include <vector>

#include "index/yum/xml.hpp"

namespace opskit::repo {

namespace {

using detail::Xml;

void version_element(Xml& xml, const RpmInfo& r) {
  xml.open("version")
      .attr("epoch", r.epoch.empty() ? "0" : r.epoch)
      .attr("ver", r.version)
      .attr("rel", r.release)
      .close();
}

// Whether a dependency list marks the entries needed before install with pre="1".
enum class Pre { omit, mark };

void dependency_list(Xml& xml, const char* name, const std::vector<RpmDependency>& deps, Pre pre) {
  if (deps.empty())
    return;
  xml.open(name);
  for (const auto& d : deps) {
    xml.open("rpm:entry").attr("name", d.name);
    if (!d.flags.empty()) {
      xml.attr("flags", d.flags)
          .attr("epoch", d.epoch.empty() ? "0" : d.epoch)
          .attr("ver", d.version);
      if (!d.release.empty())
        xml.attr("rel", d.release);
    }
    if (pre == Pre::mark && d.pre)
      xml.attr("pre", "1");
    xml.close();
  }
  xml.close();
}

bool primary_file(std::string_view path) {
  return path.starts_with("/etc/") || path.find("bin/") != std::string_view::npos ||
         path == "/usr/lib/sendmail";
}

// primary.xml lists only the files dnf resolves paths against; filelists.xml every file.
enum class Listing { primary, all };

void file_elements(Xml& xml, const RpmInfo& r, Listing which) {
  for (const auto& f : r.files) {
    if (which == Listing::primary && !primary_file(f.path))
      continue;
    xml.open("file");
    if (f.type == RpmFileType::dir)
      xml.attr("type", "dir");
    else if (f.type == RpmFileType::ghost)
      xml.attr("type", "ghost");
    xml.text(f.path).close();
  }
}

Result<std::string> primary_fragment(const YumPackage& p) {
  const RpmInfo& r = p.rpm;
  Xml xml(Xml::Part::fragment);
  xml.open("package").attr("type", "rpm");
  xml.element("name", r.name).element("arch", r.arch);
  version_element(xml, r);
  xml.open("checksum").attr("type", "sha256").attr("pkgid", "YES").text(p.sha256).close();
  xml.element("summary", r.summary)
      .element("description", r.description)
      .element("packager", r.packager);
  xml.element("url", r.url);
  xml.open("time")
      .attr("file", std::to_string(r.build_time))
      .attr("build", std::to_string(r.build_time))
      .close();
  xml.open("size")
      .attr("package", std::to_string(p.size))
      .attr("installed", std::to_string(r.installed_size))
      .attr("archive", std::to_string(r.archive_size))
      .close();
  xml.open("location").attr("href", p.location).close();
  xml.open("format");
  xml.element("rpm:license", r.license)
      .element("rpm:vendor", r.vendor)
      .element("rpm:group", r.group);
  xml.element("rpm:buildhost", r.buildhost).element("rpm:sourcerpm", r.sourcerpm);
  xml.open("rpm:header-range")
      .attr("start", std::to_string(r.header_start))
      .attr("end", std::to_string(r.header_end))
      .close();
  dependency_list(xml, "rpm:provides", r.provides, Pre::omit);
  dependency_list(xml, "rpm:requires", r.requirements, Pre::mark);
  dependency_list(xml, "rpm:conflicts", r.conflicts, Pre::omit);
  dependency_list(xml, "rpm:obsoletes", r.obsoletes, Pre::omit);
  dependency_list(xml, "rpm:suggests", r.suggests, Pre::omit);
  dependency_list(xml, "rpm:enhances", r.enhances, Pre::omit);
  dependency_list(xml, "rpm:recommends", r.recommends, Pre::omit);
  dependency_list(xml, "rpm:supplements", r.supplements, Pre::omit);
  file_elements(xml, r, Listing::primary);
  xml.close().close();
  return xml.finish("primary.xml");
}

Result<std::string> filelists_fragment(const YumPackage& p) {
  Xml xml(Xml::Part::fragment);
  xml.open("package").attr("pkgid", p.sha256).attr("name", p.rpm.name).attr("arch", p.rpm.arch);
  version_element(xml, p.rpm);
  file_elements(xml, p.rpm, Listing::all);
  xml.close();
  return xml.finish("filelists.xml");
}

constexpr std::size_t k_changelogs_kept = 10;

Result<std::string> other_fragment(const YumPackage& p) {
  Xml xml(Xml::Part::fragment);
  xml.open("package").attr("pkgid", p.sha256).attr("name", p.rpm.name).attr("arch", p.rpm.arch);
  version_element(xml, p.rpm);
  // As createrepo_c writes them: the newest ten (rpm keeps them newest first), oldest first,
  // the order dnf reads them in and shows reversed.
  auto newest = std::min(p.rpm.changelogs.size(), k_changelogs_kept);
  for (const auto& c : std::views::reverse(std::span(p.rpm.changelogs).first(newest)))
    xml.open("changelog")
        .attr("author", c.author)
        .attr("date", std::to_string(c.date))
        .text(c.text)
        .close();
  xml.close();
  return xml.finish("other.xml");
}

} // namespace

Result<YumFragments> yum_fragments(const YumPackage& package) {
  auto primary = primary_fragment(package);
  auto filelists = filelists_fragment(package);
  auto other = other_fragment(package);
  if (!primary || !filelists || !other)
    return fail(!primary ? primary.error() : !filelists ? filelists.error() : other.error());
  return YumFragments{std::move(*primary), std::move(*filelists), std::move(*other)};
}

} // namespace opskit::repo
