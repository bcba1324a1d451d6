// SPDX-License-Identifier: MIT
#pragma once

// The real clients the tests install with, each isolated from the system's state: apt-get and
// dnf, and rpmbuild to make the rpms dnf installs.

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <unistd.h>

#include <catch2/catch.hpp>

#include "fixture.hpp"

namespace opskit::test {

// An apt-get whose sources, lists, cache and preferences all live in `dir`.
class IsolatedApt {
public:
  IsolatedApt(const std::string& dir, const std::string& source_line) : dir_(dir) {
    std::filesystem::create_directories(dir + "/lists/partial");
    std::filesystem::create_directories(dir + "/cache/archives/partial");
    std::filesystem::create_directories(dir + "/prefs");
    std::ofstream(dir + "/sources.list") << source_line << "\n";
  }
  Outcome operator()(std::vector<std::string> args) const {
    std::vector<std::string> argv{
        "apt-get", "-o", "Dir::Etc::sourcelist=" + dir_ + "/sources.list", "-o",
        "Dir::Etc::sourceparts=/nonexistent", "-o", "Dir::State::Lists=" + dir_ + "/lists", "-o",
        "Dir::Cache=" + dir_ + "/cache", "-o", "Dir::Etc::preferencesparts=" + dir_ + "/prefs",
        "-o", "Debug::NoLocking=1", "-o", "Acquire::Languages=none",
        // the temporary directory is private to the test's user
        "-o", "APT::Sandbox::User=" + std::string(::getuid() == 0 ? "root" : ""), "-o",
        "Acquire::Check-Valid-Until=true", "-o", "Acquire::Check-Date=true"};
    argv.insert(argv.end(), args.begin(), args.end());
    return run(argv);
  }

private:
  std::string dir_;
};

// dnf with every piece of state under `dir`, reading the repositories in `dir`/repos.
class IsolatedDnf {
public:
  explicit IsolatedDnf(std::string dir) : dir_(std::move(dir)) {
    std::filesystem::create_directories(dir_ + "/root");
    std::filesystem::create_directories(dir_ + "/repos");
    std::filesystem::create_directories(dir_ + "/cache");
  }
  void add_repo(const std::string& id, const std::string& baseurl, const std::string& key,
                bool signed_repo) {
    std::ofstream(dir_ + "/repos/" + id + ".repo")
        << "[" << id << "]\nname=" << id << "\nbaseurl=" << baseurl << "\nenabled=1\ngpgcheck=0\n"
        << "repo_gpgcheck=" << (signed_repo ? 1 : 0) << "\n"
        << (key.empty() ? "" : "gpgkey=file://" + key + "\n") << "metadata_expire=0\n";
  }
  Outcome operator()(std::vector<std::string> args) const {
    std::vector<std::string> argv{"dnf",
                                  "-y",
                                  "-q",
                                  "--installroot=" + dir_ + "/root",
                                  "--setopt=reposdir=" + dir_ + "/repos",
                                  "--setopt=cachedir=" + dir_ + "/cache",
                                  "--releasever=9",
                                  "--setopt=skip_if_unavailable=False"};
    argv.insert(argv.end(), args.begin(), args.end());
    return run(argv);
  }
  // Every package of the repositories, one line each in `format`; the query must succeed.
  std::string all(const std::string& format) const {
    auto query = (*this)({"repoquery", "--qf", format, "--all"});
    INFO(query.out << query.err);
    REQUIRE(query.exit_status == 0);
    return query.out;
  }

private:
  std::string dir_;
};

// Builds name-version-release.arch.rpm with rpmbuild; returns its path.
inline std::string rpmbuild(const std::string& dir, const std::string& name,
                            const std::string& version, const std::string& arch,
                            const std::string& epoch, const std::string& requires_line) {
  std::string spec = dir + "/" + name + ".spec";
  std::ofstream(spec) << "Name: " << name << "\nVersion: " << version << "\nRelease: 1\n"
                      << (epoch.empty() ? "" : "Epoch: " + epoch + "\n") << "Summary: Test package "
                      << name << " <&>\nLicense: MIT\nBuildArch: " << arch << "\nProvides: " << name
                      << "-virtual = " << version << "\n"
                      << requires_line << "\n%description\nTest package " << name
                      << ".\n%install\nmkdir -p %{buildroot}/usr/share/" << name
                      << " %{buildroot}/etc/" << name << "\necho data > %{buildroot}/usr/share/"
                      << name << "/data\necho conf > %{buildroot}/etc/" << name << "/" << name
                      << ".conf\n%files\n%dir /etc/" << name << "\n%config /etc/" << name << "/"
                      << name << ".conf\n/usr/share/" << name << "/data\n%ghost /var/log/" << name
                      << ".log\n%changelog\n* Mon Nov 24 2025 Test <test@example.com> - " << version
                      << "-1\n- First <entry> & more\n";
  auto built = run({"rpmbuild", "-bb", "--define", "_topdir " + dir + "/top", "--define",
                    "_build_id_links none", spec});
  if (built.exit_status != 0)
    FAIL("rpmbuild: " << built.err);
  std::string rpm = dir + "/top/RPMS/" + arch + "/" + name + "-" + version + "-1." + arch + ".rpm";
  REQUIRE(std::filesystem::exists(rpm));
  return rpm;
}

// rpmbuild of one spec whose subpackages are `names`, each of `arch` at `version`-1 holding
// `tag` (equal names and versions with another tag differ in content); their paths by name.
inline std::map<std::string, std::string> rpm_set(const std::string& dir,
                                                  const std::vector<std::string>& names,
                                                  const std::string& version,
                                                  const std::string& arch, const std::string& tag) {
  std::string top = dir + "/top-" + version + "-" + arch + "-" + tag;
  std::string spec = top + ".spec";
  {
    std::ofstream out(spec);
    out << "Name: rset\nVersion: " << version << "\nRelease: 1\nSummary: set\nLicense: MIT\n"
        << (arch == "noarch" ? "BuildArch: noarch\n" : "") << "%description\nset\n%install\n";
    for (const auto& n : names)
      out << "mkdir -p %{buildroot}/usr/share/" << n << " && echo " << tag
          << " > %{buildroot}/usr/share/" << n << "/data\n";
    for (const auto& n : names)
      out << "%package -n " << n << "\nSummary: " << n << " " << tag << "\n%description -n " << n
          << "\n"
          << n << " " << tag << "\n%files -n " << n << "\n/usr/share/" << n << "/data\n";
  }
  auto built = run({"rpmbuild", "-bb", "--target", arch, "--define", "_topdir " + top, "--define",
                    "_build_id_links none", spec});
  if (built.exit_status != 0)
    FAIL("rpmbuild: " << built.err);
  std::map<std::string, std::string> out;
  for (const auto& n : names) {
    out[n] = top + "/RPMS/" + arch + "/" + n + "-" + version + "-1." + arch + ".rpm";
    REQUIRE(std::filesystem::exists(out[n]));
  }
  return out;
}

} // namespace opskit::test
