// SPDX-License-Identifier: MIT
// Reading rpm package headers into what dnf's metadata needs, and that kept in the database.
//
// An rpm file (rpm's doc/manual/format.md, LSB 5 "Package File Format") is a 96-byte lead
// (magic ed ab ee db, obsolete but still checked), a signature header, padding to 8 bytes, the
// main header, then the compressed cpio payload. Both headers share one structure (header.cpp):
// entries by tag (rpm's include/rpm/rpmtag.h) over a data store.
//
// What is subtle: the main header's byte range is part of dnf's metadata (rpm:header-range);
// file names are split into basenames, dirnames and dirindexes; directories are told by the file
// mode and ghosts by RPMFILE_GHOST; a requirement needed before install (pre="1") is one flagged
// PREREQ, SCRIPT_PRE or SCRIPT_POST; and "rpmlib(...)" requirements are rpm's own and, as
// createrepo_c does, left out of the metadata, as are requirements the package provides itself.
//
// This reader is ours rather than librpm's: librpm wants global configuration (macros, a
// transaction set and a keyring) to read a header, and a reader that only bounds-checks bytes
// is easy to fuzz and to test on literal input.
#include "opskit/repo/format/rpm/rpm.hpp"

#include <algorithm>
#include <climits>
#include <unordered_set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "format/rpm/header.hpp"
#include "opskit/text.hpp"

namespace opskit::repo {

namespace {

using detail::RpmHeader;

// Tags (rpm's include/rpm/rpmtag.h).
enum : std::uint32_t {
  k_name = 1000,
  k_version = 1001,
  k_release = 1002,
  k_epoch = 1003,
  k_summary = 1004,
  k_description = 1005,
  k_buildtime = 1006,
  k_buildhost = 1007,
  k_size = 1009,
  k_vendor = 1011,
  k_license = 1014,
  k_packager = 1015,
  k_group = 1016,
  k_url = 1020,
  k_arch = 1022,
  k_filemodes = 1030,
  k_fileflags = 1037,
  k_sourcerpm = 1044,
  k_archivesize = 1046,
  k_providename = 1047,
  k_requireflags = 1048,
  k_requirename = 1049,
  k_requireversion = 1050,
  k_conflictflags = 1053,
  k_conflictname = 1054,
  k_conflictversion = 1055,
  k_changelogtime = 1080,
  k_changelogname = 1081,
  k_changelogtext = 1082,
  k_obsoletename = 1090,
  k_sourcepackage = 1106,
  k_provideflags = 1112,
  k_provideversion = 1113,
  k_obsoleteflags = 1114,
  k_obsoleteversion = 1115,
  k_dirindexes = 1116,
  k_basenames = 1117,
  k_dirnames = 1118,
  k_longarchivesize = 271,
  k_longsize = 5009,
  k_recommendname = 5046,
  k_recommendversion = 5047,
  k_recommendflags = 5048,
  k_suggestname = 5049,
  k_suggestversion = 5050,
  k_suggestflags = 5051,
  k_supplementname = 5052,
  k_supplementversion = 5053,
  k_supplementflags = 5054,
  k_enhancename = 5055,
  k_enhanceversion = 5056,
  k_enhanceflags = 5057,
  k_sig_size = 1000, // the main header and the payload, in bytes
  k_sig_payloadsize = 1007,
  k_sig_longsize = 270,        // k_sig_size of a package of 4 GiB or more
  k_sig_longarchivesize = 271, // the uncompressed payload of 4 GiB or more
};

constexpr std::uint64_t k_sense_less = 1 << 1, k_sense_greater = 1 << 2, k_sense_equal = 1 << 3,
                        k_sense_prereq = 1 << 6, k_sense_script_pre = 1 << 9,
                        k_sense_script_post = 1 << 10, k_file_ghost = 1 << 6;

std::string flags_word(std::uint64_t f) {
  switch (f & (k_sense_less | k_sense_greater | k_sense_equal)) {
  case k_sense_equal:
    return "EQ";
  case k_sense_less:
    return "LT";
  case k_sense_greater:
    return "GT";
  case k_sense_less | k_sense_equal:
    return "LE";
  case k_sense_greater | k_sense_equal:
    return "GE";
  default:
    return "";
  }
}

void split_evr(std::string_view evr, RpmDependency& d) {
  if (auto colon = evr.find(':'); colon != std::string_view::npos) {
    d.epoch = std::string(evr.substr(0, colon));
    evr.remove_prefix(colon + 1);
  } else if (!evr.empty()) {
    d.epoch = std::string(1, '0'); // move-assigned: GCC 12 warns falsely on = "0" (PR 105329)
  }
  if (auto dash = evr.rfind('-'); dash != std::string_view::npos) {
    d.version = std::string(evr.substr(0, dash));
    d.release = std::string(evr.substr(dash + 1));
  } else {
    d.version = std::string(evr);
  }
}

// `d`'s fields joined by NULs, which no field read from a header holds: equal for equal
// dependencies, to find doubles in a hash set rather than by comparing each with every other.
std::string dependency_key(const RpmDependency& d, bool pre) {
  std::string key;
  for (const std::string* field : {&d.name, &d.flags, &d.epoch, &d.version, &d.release}) {
    key += *field;
    key.push_back('\0');
  }
  key.push_back(pre ? '1' : '0');
  return key;
}

// Whether a list is of requirements, where rpm's own rpmlib() entries are left out and the
// pre-install flags count.
enum class Requirements { no, yes };

std::vector<RpmDependency> dependencies(const RpmHeader& h, std::uint32_t names_tag,
                                        std::uint32_t flags_tag, std::uint32_t versions_tag,
                                        Requirements list) {
  auto names = h.strings(names_tag);
  auto flags = h.numbers(flags_tag);
  auto versions = h.strings(versions_tag);
  std::vector<RpmDependency> out;
  std::unordered_set<std::string> seen;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (list == Requirements::yes && names[i].starts_with("rpmlib("))
      continue;
    RpmDependency d;
    d.name = names[i];
    std::uint64_t f = i < flags.size() ? flags[i] : 0;
    d.flags = flags_word(f);
    if (!d.flags.empty() && i < versions.size())
      split_evr(versions[i], d);
    d.pre = list == Requirements::yes &&
            (f & (k_sense_prereq | k_sense_script_pre | k_sense_script_post));
    if (seen.insert(dependency_key(d, d.pre)).second)
      out.push_back(std::move(d));
  }
  return out;
}

Result<void> check_name(std::string_view what, std::string_view field, std::string_view value) {
  if (value.empty())
    return fail(fmt::format("{}: rpm header has no {}", what, field));
  // These make file names and URLs; rpmbuild allows only ASCII in them.
  bool bad = value.find('/') != std::string_view::npos ||
             value.find("..") != std::string_view::npos ||
             std::any_of(value.begin(), value.end(), [](char c) {
               auto b = static_cast<unsigned char>(c);
               return b < 0x21 || b >= 0x7f;
             });
  if (bad)
    return fail(fmt::format("{}: bad {} '{}': '/', '..', spaces, control characters and "
                            "non-ASCII are not allowed",
                            what, field, excerpt(value)));
  return {};
}

// Whether the header is a source package's, decided as rpm 4.18 decides it when it reads one
// (applyRetrofits in lib/package.c): SOURCEPACKAGE marks a source package and SOURCERPM a
// binary one; a header with neither is a source package when all its files sit in one
// directory with an empty name, as rpmbuild -bs lays out the spec and the sources. The lead's
// type is not asked: rpm ignores it too.
bool is_source(const RpmHeader& h) {
  if (h.has(k_sourcepackage))
    return true;
  if (h.has(k_sourcerpm))
    return false;
  auto dirs = h.strings(k_dirnames);
  return dirs.size() == 1 && dirs.front().empty();
}

// The name, version, release and arch, each a name that can make a file name and a URL, and a
// pool file name that fits in a directory.
Result<void> read_names(const RpmHeader& h, std::string_view what, RpmInfo& r) {
  r.name = h.string(k_name);
  r.version = h.string(k_version);
  r.release = h.string(k_release);
  r.arch = is_source(h) ? "src" : h.string(k_arch);
  for (auto [field, value] : {std::pair{"name", &r.name}, std::pair{"version", &r.version},
                              std::pair{"release", &r.release}, std::pair{"arch", &r.arch}})
    OPSKIT_TRY(check_name(what, field, *value));
  if (auto file = rpm_file_name(r).size(); file > NAME_MAX)
    return fail(fmt::format("{}: name, version, release and architecture make a pool file name "
                            "of {} bytes, past the limit of {}",
                            what, file, NAME_MAX));
  return {};
}

// The epoch, the descriptive strings and the sizes: from the main header `h`, falling back on
// the signature `sig` for the archive's size.
void read_description(const RpmHeader& h, const RpmHeader& sig, RpmInfo& r) {
  if (auto epoch = h.number(k_epoch))
    r.epoch = std::to_string(*epoch);
  r.summary = h.string(k_summary);
  r.description = h.string(k_description);
  r.url = h.string(k_url);
  r.license = h.string(k_license);
  r.vendor = h.string(k_vendor);
  r.group = h.string(k_group);
  r.packager = h.string(k_packager);
  r.buildhost = h.string(k_buildhost);
  r.sourcerpm = h.string(k_sourcerpm);
  r.build_time = h.number(k_buildtime).value_or(0);
  r.installed_size = h.number(k_longsize).value_or(h.number(k_size).value_or(0));
  // Where rpm writes them: the uncompressed payload's size in the signature header (its long
  // tag for 4 GiB or more), in the main header before rpm 4.14.
  r.archive_size = sig.number(k_sig_longarchivesize)
                       .or_else([&] { return sig.number(k_sig_payloadsize); })
                       .or_else([&] { return h.number(k_longarchivesize); })
                       .value_or(h.number(k_archivesize).value_or(0));
}

void read_dependencies(const RpmHeader& h, RpmInfo& r) {
  r.provides = dependencies(h, k_providename, k_provideflags, k_provideversion, Requirements::no);
  r.requirements =
      dependencies(h, k_requirename, k_requireflags, k_requireversion, Requirements::yes);
  // A requirement the package provides itself (config(x) = EVR) is no requirement: createrepo_c
  // leaves it out, and dnf shows the metadata as written.
  std::unordered_set<std::string> provided;
  for (const auto& p : r.provides)
    provided.insert(dependency_key(p, false));
  std::erase_if(r.requirements, [&](const RpmDependency& d) {
    return provided.contains(dependency_key(d, false));
  });
  r.conflicts =
      dependencies(h, k_conflictname, k_conflictflags, k_conflictversion, Requirements::no);
  r.obsoletes =
      dependencies(h, k_obsoletename, k_obsoleteflags, k_obsoleteversion, Requirements::no);
  r.recommends =
      dependencies(h, k_recommendname, k_recommendflags, k_recommendversion, Requirements::no);
  r.suggests = dependencies(h, k_suggestname, k_suggestflags, k_suggestversion, Requirements::no);
  r.supplements =
      dependencies(h, k_supplementname, k_supplementflags, k_supplementversion, Requirements::no);
  r.enhances = dependencies(h, k_enhancename, k_enhanceflags, k_enhanceversion, Requirements::no);
}

// The files, sorted by path; an error when a file's directory index has no directory.
Result<std::vector<RpmFile>> read_files(const RpmHeader& h, std::string_view what) {
  auto basenames = h.strings(k_basenames);
  auto dirnames = h.strings(k_dirnames);
  auto dirindexes = h.numbers(k_dirindexes);
  auto modes = h.numbers(k_filemodes);
  auto fileflags = h.numbers(k_fileflags);
  if (dirindexes.size() < basenames.size())
    return fail(fmt::format("{}: rpm file list is inconsistent", what));
  std::vector<RpmFile> files;
  for (std::size_t i = 0; i < basenames.size(); ++i) {
    if (dirindexes[i] >= dirnames.size())
      return fail(fmt::format("{}: rpm file list is inconsistent", what));
    // A directory first, a %ghost %dir too, as createrepo_c tells them.
    RpmFile f{dirnames[dirindexes[i]] + basenames[i], RpmFileType::file};
    if (i < modes.size() && (modes[i] & 0170000) == 0040000)
      f.type = RpmFileType::dir;
    else if (i < fileflags.size() && (fileflags[i] & k_file_ghost))
      f.type = RpmFileType::ghost;
    files.push_back(std::move(f));
  }
  std::sort(files.begin(), files.end(),
            [](const RpmFile& a, const RpmFile& b) { return a.path < b.path; });
  return files;
}

std::vector<RpmChangelog> read_changelogs(const RpmHeader& h) {
  auto times = h.numbers(k_changelogtime);
  auto authors = h.strings(k_changelogname);
  auto texts = h.strings(k_changelogtext);
  std::vector<RpmChangelog> changelogs;
  for (std::size_t i = 0; i < times.size() && i < authors.size() && i < texts.size(); ++i)
    changelogs.push_back({authors[i], times[i], texts[i]});
  return changelogs;
}

} // namespace

std::string RpmInfo::evr() const {
  std::string out = epoch.empty() || epoch == "0" ? "" : epoch + ":";
  return out + version + "-" + release;
}

std::string rpm_file_name(const RpmInfo& rpm) {
  return fmt::format("{}-{}-{}.{}.rpm", rpm.name, rpm.version, rpm.release, rpm.arch);
}

Result<RpmInfo> read_rpm(std::string_view bytes, std::string_view what) {
  if (bytes.size() < 96 || bytes.substr(0, 4) != std::string_view("\xed\xab\xee\xdb", 4))
    return fail(fmt::format("{}: not an rpm (no lead magic)", what));
  OPSKIT_TRY_ASSIGN(auto sig, RpmHeader::parse(bytes, 96, what));
  std::size_t main_at = 96 + sig.size();
  main_at += (8 - main_at % 8) % 8;
  OPSKIT_TRY_ASSIGN(auto h, RpmHeader::parse(bytes, main_at, what));
  // The signature header gives the size of the rest, which a cut or padded file does not have.
  if (auto size = sig.number(k_sig_longsize).or_else([&] { return sig.number(k_sig_size); });
      size && *size != bytes.size() - main_at)
    return fail(fmt::format("{}: not a whole rpm: its header and payload take {} bytes, where "
                            "its signature header says {}",
                            what, bytes.size() - main_at, *size));

  RpmInfo r;
  OPSKIT_TRY(read_names(h, what, r));
  read_description(h, sig, r);
  r.header_start = main_at;
  r.header_end = main_at + h.size();
  read_dependencies(h, r);
  OPSKIT_TRY_ASSIGN(r.files, read_files(h, what));
  r.changelogs = read_changelogs(h);
  return r;
}

namespace {

nlohmann::json deps_json(const std::vector<RpmDependency>& deps) {
  auto out = nlohmann::json::array();
  for (const auto& d : deps)
    out.push_back({d.name, d.flags, d.epoch, d.version, d.release, d.pre});
  return out;
}

std::vector<RpmDependency> deps_from(const nlohmann::json& j) {
  std::vector<RpmDependency> out;
  for (const auto& d : j)
    out.push_back({d[0].get<std::string>(), d[1].get<std::string>(), d[2].get<std::string>(),
                   d[3].get<std::string>(), d[4].get<std::string>(), d[5].get<bool>()});
  return out;
}

} // namespace

std::string rpm_to_json(const RpmInfo& r) {
  nlohmann::json j;
  j["name"] = r.name;
  j["epoch"] = r.epoch;
  j["version"] = r.version;
  j["release"] = r.release;
  j["arch"] = r.arch;
  j["summary"] = r.summary;
  j["description"] = r.description;
  j["url"] = r.url;
  j["license"] = r.license;
  j["vendor"] = r.vendor;
  j["group"] = r.group;
  j["packager"] = r.packager;
  j["buildhost"] = r.buildhost;
  j["sourcerpm"] = r.sourcerpm;
  j["build_time"] = r.build_time;
  j["installed_size"] = r.installed_size;
  j["archive_size"] = r.archive_size;
  j["header_range"] = {r.header_start, r.header_end};
  j["provides"] = deps_json(r.provides);
  j["requires"] = deps_json(r.requirements);
  j["conflicts"] = deps_json(r.conflicts);
  j["obsoletes"] = deps_json(r.obsoletes);
  j["recommends"] = deps_json(r.recommends);
  j["suggests"] = deps_json(r.suggests);
  j["supplements"] = deps_json(r.supplements);
  j["enhances"] = deps_json(r.enhances);
  auto files = nlohmann::json::array();
  for (const auto& f : r.files)
    files.push_back({f.path, static_cast<int>(f.type)});
  j["files"] = files;
  auto changelogs = nlohmann::json::array();
  for (const auto& c : r.changelogs)
    changelogs.push_back({c.author, c.date, c.text});
  j["changelogs"] = changelogs;
  return j.dump();
}

Result<RpmInfo> rpm_from_json(std::string_view text) {
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object())
    return fail("rpm metadata in the database: not JSON");
  try {
    RpmInfo r;
    r.name = j.at("name");
    r.epoch = j.at("epoch");
    r.version = j.at("version");
    r.release = j.at("release");
    r.arch = j.at("arch");
    r.summary = j.at("summary");
    r.description = j.at("description");
    r.url = j.at("url");
    r.license = j.at("license");
    r.vendor = j.at("vendor");
    r.group = j.at("group");
    r.packager = j.at("packager");
    r.buildhost = j.at("buildhost");
    r.sourcerpm = j.at("sourcerpm");
    r.build_time = j.at("build_time");
    r.installed_size = j.at("installed_size");
    r.archive_size = j.at("archive_size");
    r.header_start = j.at("header_range")[0];
    r.header_end = j.at("header_range")[1];
    r.provides = deps_from(j.at("provides"));
    r.requirements = deps_from(j.at("requires"));
    r.conflicts = deps_from(j.at("conflicts"));
    r.obsoletes = deps_from(j.at("obsoletes"));
    r.recommends = deps_from(j.at("recommends"));
    r.suggests = deps_from(j.at("suggests"));
    r.supplements = deps_from(j.at("supplements"));
    r.enhances = deps_from(j.at("enhances"));
    for (const auto& f : j.at("files"))
      r.files.push_back({f[0].get<std::string>(), static_cast<RpmFileType>(f[1].get<int>())});
    for (const auto& c : j.at("changelogs"))
      r.changelogs.push_back(
          {c[0].get<std::string>(), c[1].get<std::uint64_t>(), c[2].get<std::string>()});
    return r;
  } catch (const nlohmann::json::exception& e) {
    return fail(fmt::format("rpm metadata in the database: {}", e.what()));
  }
}

} // namespace opskit::repo
