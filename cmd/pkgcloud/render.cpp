// SPDX-License-Identifier: MIT
#include "render.hpp"

#include <iterator>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "json_text.hpp"

namespace opskit::cmd::pkgcloud {

namespace {

nlohmann::json record_json(const repo::PackageRecord& p) {
  return {{"name", p.name},    {"version", p.version},
          {"arch", p.arch},    {"format", repo::format_name(p.format)},
          {"dist", p.dist},    {"component", p.component},
          {"file", p.file},    {"size", p.size},
          {"sha256", p.sha256}};
}

} // namespace

std::string records_json(const std::vector<repo::PackageRecord>& records) {
  auto array = nlohmann::json::array();
  for (const auto& p : records)
    array.push_back(record_json(p));
  return json_text(array);
}

std::string pushed_json(const std::vector<repo::PushedPackage>& pushed) {
  auto array = nlohmann::json::array();
  for (const auto& p : pushed) {
    auto record = record_json(p.record);
    record["action"] = action_word(p.action);
    array.push_back(std::move(record));
  }
  return json_text(array);
}

std::string_view action_word(repo::PushAction action) {
  switch (action) {
  case repo::PushAction::added:
    return "added";
  case repo::PushAction::replaced:
    return "replaced";
  case repo::PushAction::unchanged:
    return "unchanged";
  }
  return "";
}

std::string index_text(const repo::IndexReport& report, bool rebuilt) {
  auto packages = [](std::size_t n) { return fmt::format("{} package{}", n, n == 1 ? "" : "s"); };
  std::string out;
  if (rebuilt)
    out += fmt::format("rescanned {} from the pool\n", packages(report.rescanned));
  for (const auto& index : report.indexes)
    fmt::format_to(std::back_inserter(out), "{}: {}, {}\n", index.dir, packages(index.packages),
                   report.is_signed ? "signed" : "unsigned");
  return out;
}

std::string index_json(const repo::IndexReport& report, bool rebuilt) {
  auto indexes = nlohmann::json::array();
  for (const auto& index : report.indexes)
    indexes.push_back({{"format", repo::format_name(index.format)},
                       {"dir", index.dir},
                       {"packages", index.packages},
                       {"files", index.files}});
  nlohmann::json out{{"indexes", indexes}, {"signed", report.is_signed}};
  if (rebuilt)
    out["rescanned"] = report.rescanned;
  return json_text(out);
}

std::string problems_text(const std::vector<repo::Problem>& problems) {
  std::string out;
  for (const auto& p : problems)
    out += p.message + "\n";
  return out;
}

std::string problems_json(const std::vector<repo::Problem>& problems) {
  auto out = nlohmann::json::array();
  for (const auto& p : problems) {
    out.push_back({{"file", p.file},
                   {"what", p.what},
                   {"expected", p.expected},
                   {"found", p.found},
                   {"message", p.message}});
  }
  return json_text(out);
}

namespace {

constexpr const char* k_unsigned =
    "# unsigned: apt and dnf take it only with their signature checks off\n";

// /etc/apt/sources.list.d/<name>.sources and <name>.list, after the line that fetches the key
// (for an unsigned repository, trusted as it is).
std::pair<std::string, std::string> apt_entries(const repo::Sources& s) {
  std::string keyring = fmt::format("/etc/apt/keyrings/{}.gpg", s.name);
  std::string fetch = s.is_signed ? fmt::format("# curl -fsSL {} -o {}\n", s.gpg_url, keyring)
                                  : std::string(k_unsigned);
  std::string trust = s.is_signed ? "Signed-By: " + keyring : "Trusted: yes";
  std::string option = s.is_signed ? "signed-by=" + keyring : "trusted=yes";
  std::string deb822 = fetch, one_line = fetch;
  for (std::size_t i = 0; i < s.apt.size(); ++i) {
    const auto& a = s.apt[i];
    std::string components = fmt::format("{}", fmt::join(a.components, " "));
    if (i > 0)
      deb822 += "\n";
    fmt::format_to(std::back_inserter(deb822),
                   "Types: deb\nURIs: {}\nSuites: {}\nComponents: {}\n{}\n", a.uri, a.suite,
                   components, trust);
    fmt::format_to(std::back_inserter(one_line), "deb [{}] {} {} {}\n", option, a.uri, a.suite,
                   components);
  }
  return {deb822, one_line};
}

// /etc/yum.repos.d/<name>.repo: one section per dist.
std::string dnf_repo(const repo::Sources& s) {
  std::string out = s.is_signed ? "" : k_unsigned;
  std::string checks = s.is_signed
                           ? fmt::format("repo_gpgcheck=1\ngpgcheck=0\ngpgkey={}\n", s.key_url)
                           : "repo_gpgcheck=0\ngpgcheck=0\n";
  for (std::size_t i = 0; i < s.dnf.size(); ++i) {
    const auto& d = s.dnf[i];
    if (i > 0)
      out += "\n";
    fmt::format_to(std::back_inserter(out), "[{}-{}-{}]\nname={} {} {}\nbaseurl={}\nenabled=1\n{}",
                   s.name, d.distro, d.version, s.label, d.distro, d.version, d.baseurl, checks);
  }
  return out;
}

} // namespace

std::string sources_text(const repo::Sources& sources, const std::string& publication,
                         const std::string& url) {
  auto [deb822, one_line] = apt_entries(sources);
  return fmt::format("# for {} served at {}\n"
                     "# /etc/apt/sources.list.d/{}.sources\n{}\n"
                     "# /etc/apt/sources.list.d/{}.list\n{}\n"
                     "# /etc/yum.repos.d/{}.repo\n{}",
                     publication, url, sources.name, deb822, sources.name, one_line, sources.name,
                     dnf_repo(sources));
}

std::string publish_text(const repo::PublishReport& r) {
  std::string out;
  if (r.dry_run) {
    for (const auto& f : r.uploaded)
      fmt::format_to(std::back_inserter(out), "send {} ({} bytes)\n", f.path, f.size);
    for (const auto& path : r.deleted)
      fmt::format_to(std::back_inserter(out), "delete {}\n", path);
  }
  std::size_t total = 0;
  std::vector<std::string> by_method;
  for (const auto& [method, n] : r.requests) {
    total += n;
    by_method.push_back(fmt::format("{} {}", n, method));
  }
  auto plural = [](std::size_t n, std::string_view one, std::string_view many) {
    return fmt::format("{} {}", n, n == 1 ? one : many);
  };
  fmt::format_to(std::back_inserter(out),
                 "{} {}: {} ({} bytes) {}, {} {}, {} unchanged{}; {}{}, {}, {:.2f} s\n",
                 r.dry_run ? "would publish to" : "published to", r.target,
                 plural(r.uploaded.size(), "file", "files"), r.bytes,
                 r.dry_run ? "to send" : "sent", r.deleted.size(),
                 r.dry_run ? "to delete" : "deleted", r.unchanged,
                 r.had_manifest ? "" : " (the target had no manifest: everything is sent)",
                 plural(total, "request", "requests"),
                 by_method.empty() ? "" : fmt::format(" ({})", fmt::join(by_method, ", ")),
                 plural(r.retries, "retry", "retries"), r.seconds);
  return out;
}

std::string publish_json(const repo::PublishReport& r) {
  auto uploaded = nlohmann::json::array();
  for (const auto& f : r.uploaded)
    uploaded.push_back({{"path", f.path}, {"size", f.size}});
  nlohmann::json out{
      {"target", r.target},   {"dry_run", r.dry_run},   {"had_manifest", r.had_manifest},
      {"uploaded", uploaded}, {"deleted", r.deleted},   {"unchanged", r.unchanged},
      {"bytes", r.bytes},     {"requests", r.requests}, {"retries", r.retries},
      {"seconds", r.seconds}};
  return json_text(out);
}

} // namespace opskit::cmd::pkgcloud
