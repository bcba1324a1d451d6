// SPDX-License-Identifier: MIT
#include "index/yum/packages.hpp"

#include <catch2/catch.hpp>

#include <fmt/format.h>

#include "opskit/repo/codec/compress.hpp"

namespace opskit::test {

using namespace opskit::repo;

YumPackage package(const std::string& name, const std::string& epoch, const std::string& version) {
  YumPackage p;
  p.rpm.name = name;
  p.rpm.epoch = epoch;
  p.rpm.version = version;
  p.rpm.release = "1";
  p.rpm.arch = "noarch";
  p.rpm.summary = "a <b> & \"c\"";
  p.rpm.files = {{"/etc/x.conf", RpmFileType::file}, {"/usr/share/x", RpmFileType::dir}};
  p.rpm.requirements = {{"/bin/sh", "", "", "", "", true}};
  p.location = "Packages/" + name + ".rpm";
  p.size = 100;
  p.sha256 = std::string(64, 'a');
  return p;
}

std::string uncompressed(const YumIndex& index, const std::string& type) {
  for (const auto& f : index.files)
    if (f.path.ends_with("-" + type + ".xml.gz"))
      return *gzip_decompress(f.data, 1 << 20);
  return {};
}

const IndexFile& file_of(const YumIndex& index, const std::string& type) {
  for (const auto& f : index.files)
    if (f.path.ends_with("-" + type + ".xml.gz"))
      return f;
  FAIL("no " << type << " file");
  throw;
}

std::vector<YumPackage> numbered(int count) {
  std::vector<YumPackage> out;
  for (int i = 0; i < count; ++i)
    out.push_back(package(fmt::format("p{:05}", 10 * i), "", "1.0"));
  return out;
}

} // namespace opskit::test
