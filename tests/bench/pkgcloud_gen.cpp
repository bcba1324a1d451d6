// SPDX-License-Identifier: MIT
// pkgcloud_gen: writes many small rpms and debs in seconds, for tests/bench/pkgcloud-scale.
//
//   pkgcloud_gen OUT-DIR PREFIX RPMS DEBS
//
// writes OUT-DIR/rpm/<PREFIX><i>-1.0-1.x86_64.rpm and OUT-DIR/deb/<PREFIX><i>_1.0-1_amd64.deb,
// i from 1. Each package has a name of its own, a summary and description, three provides,
// two to four requires (some on other generated packages), and three files under
// /usr/share/<name>/ and /usr/bin/. The rpms are a lead, a signature header and a main
// header with no payload, laid out as rpmbuild writes them (tests/repo/rpm_builder); the debs are control.tar.gz and an
// uncompressed data.tar holding the files (tests/repo/deb_builder). rpm -qp, dpkg-deb -I,
// createrepo_c and apt-ftparchive read them; nothing installs them.
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "deb_builder.hpp"
#include "opskit/repo/codec/digest.hpp"
#include "rpm_builder.hpp"

namespace {

using opskit::test::RpmTag;

constexpr std::uint32_t k_int16 = 3, k_int32 = 4, k_string = 6, k_array = 8, k_i18n = 9;
constexpr std::uint32_t k_build_time = 1764000000;

struct Package {
  std::string name;
  std::vector<std::string> requires_;
  std::vector<std::pair<std::string, std::string>> files; // path, content
};

Package package(const std::string& prefix, int i) {
  Package p{prefix + std::to_string(i), {}, {}};
  p.requires_ = {"libc.so.6()(64bit)", "/bin/sh"};
  if (i > 1)
    p.requires_.push_back(prefix + std::to_string(i - 1));
  if (i % 3 == 0)
    p.requires_.push_back("lib" + prefix + std::to_string(i / 3) + ".so.1()(64bit)");
  p.files = {{"/usr/bin/" + p.name, "#!/bin/sh\necho " + p.name + "\n"},
             {"/usr/share/" + p.name + "/README", "package " + p.name + "\n"},
             {"/usr/share/" + p.name + "/data", std::string(64 + i % 200, 'x')}};
  return p;
}

std::vector<std::uint32_t> repeat(std::uint32_t v, std::size_t n) { return std::vector(n, v); }

std::string rpm_of(const Package& p) {
  std::vector<std::string> basenames, dirnames;
  std::vector<std::uint32_t> dirindexes, sizes;
  std::uint32_t total = 0;
  for (const auto& [path, content] : p.files) {
    auto slash = path.rfind('/');
    std::string dir = path.substr(0, slash + 1);
    if (dirnames.empty() || dirnames.back() != dir)
      dirnames.push_back(dir);
    basenames.push_back(path.substr(slash + 1));
    dirindexes.push_back(static_cast<std::uint32_t>(dirnames.size() - 1));
    sizes.push_back(static_cast<std::uint32_t>(content.size()));
    total += sizes.back();
  }
  std::size_t n = p.files.size();
  std::vector<std::string> provides{p.name, p.name + "(x86-64)", "lib" + p.name + ".so.1()(64bit)"};
  std::vector<std::string> evr{"1.0-1", "1.0-1", ""};
  std::vector<std::string> req_versions(p.requires_.size(), "");
  return opskit::test::make_built_rpm({
      {100, k_array, {"C"}, {}},
      {1000, k_string, {p.name}, {}},
      {1001, k_string, {"1.0"}, {}},
      {1002, k_string, {"1"}, {}},
      {1004, k_i18n, {"The " + p.name + " bench package"}, {}},
      {1005, k_i18n, {"A small package made by pkgcloud_gen, with three files."}, {}},
      {1006, k_int32, {}, {k_build_time}},
      {1007, k_string, {"bench.example.com"}, {}},
      {1009, k_int32, {}, {total}},
      {1014, k_string, {"MIT"}, {}},
      {1016, k_i18n, {"Unspecified"}, {}},
      {1020, k_string, {"https://example.com/" + p.name}, {}},
      {1021, k_string, {"linux"}, {}},
      {1022, k_string, {"x86_64"}, {}},
      {1028, k_int32, {}, sizes},
      {1030, k_int16, {}, {0100755, 0100644, 0100644}},
      {1034, k_int32, {}, repeat(k_build_time, n)},
      {1039, k_array, std::vector<std::string>(n, "root"), {}},
      {1040, k_array, std::vector<std::string>(n, "root"), {}},
      {1044, k_string, {p.name + "-1.0-1.src.rpm"}, {}},
      {1047, k_array, provides, {}},
      {1048, k_int32, {}, repeat(0, p.requires_.size())},
      {1049, k_array, p.requires_, {}},
      {1050, k_array, req_versions, {}},
      {1112, k_int32, {}, {8, 8, 0}},
      {1113, k_array, evr, {}},
      {1116, k_int32, {}, dirindexes},
      {1117, k_array, basenames, {}},
      {1118, k_array, dirnames, {}},
      {1124, k_string, {"cpio"}, {}},
      {1125, k_string, {"gzip"}, {}},
  }, [](std::string_view header) { return opskit::repo::sha256_hex(header); });
}

std::string deb_of(const Package& p) {
  std::string depends = "libc6 (>= 2.34)";
  for (std::size_t k = 2; k < p.requires_.size(); ++k)
    if (p.requires_[k].find('(') == std::string::npos)
      depends += ", " + p.requires_[k];
  std::string control = "Package: " + p.name +
                        "\nVersion: 1.0-1\nArchitecture: amd64\nMaintainer: Bench <bench@example.com>\n"
                        "Installed-Size: 12\nDepends: " + depends +
                        "\nProvides: lib" + p.name +
                        "\nSection: misc\nPriority: optional\nHomepage: https://example.com/" + p.name +
                        "\nDescription: the " + p.name +
                        " bench package\n A small package made by pkgcloud_gen, with three files.\n";
  std::vector<std::pair<std::string, std::string>> data;
  for (const auto& [path, content] : p.files)
    data.emplace_back("." + path, content);
  return opskit::test::make_ar({{"debian-binary", "2.0\n"},
                                {"control.tar.gz", opskit::test::make_tar("./control", control, "gz")},
                                {"data.tar", opskit::test::make_tar(data)}});
}

void write(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out.flush())
    throw std::runtime_error("write " + path.string() + " failed");
}

// Packages first..count of one format, every `stride`-th from `first`.
void generate(const std::filesystem::path& out, const std::string& prefix, int count, bool rpm,
              int first, int stride) {
  for (int i = first; i <= count; i += stride) {
    Package p = package(prefix, i);
    if (rpm)
      write(out / "rpm" / (p.name + "-1.0-1.x86_64.rpm"), rpm_of(p));
    else
      write(out / "deb" / (p.name + "_1.0-1_amd64.deb"), deb_of(p));
  }
}

int number(const char* text) {
  int v = -1;
  std::string_view s(text);
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || v < 0)
    throw std::runtime_error(std::string("not a count: '") + text + "'");
  return v;
}

} // namespace

int main(int argc, char** argv) try {
  if (argc != 5) {
    std::fprintf(stderr, "usage: pkgcloud_gen OUT-DIR PREFIX RPMS DEBS\n");
    return 2;
  }
  std::filesystem::path out = argv[1];
  std::string prefix = argv[2];
  int rpms = number(argv[3]), debs = number(argv[4]);
  std::filesystem::create_directories(out / "rpm");
  std::filesystem::create_directories(out / "deb");
  unsigned workers = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::exception_ptr> failures(workers);
  {
    std::vector<std::jthread> threads;
    for (unsigned w = 0; w < workers; ++w)
      threads.emplace_back([&, w] {
        try {
          generate(out, prefix, rpms, true, static_cast<int>(w) + 1, static_cast<int>(workers));
          generate(out, prefix, debs, false, static_cast<int>(w) + 1, static_cast<int>(workers));
        } catch (...) {
          failures[w] = std::current_exception();
        }
      });
  }
  for (const auto& failure : failures)
    if (failure)
      std::rethrow_exception(failure);
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "pkgcloud_gen: %s\n", e.what());
  return 1;
}
