// SPDX-License-Identifier: MIT
#include "format/read_package.hpp"

#include <utility>

#include "opskit/repo/codec/digest.hpp"

namespace opskit::repo {

namespace {

// What a package's index needs: apt's Packages MD5sum and SHA256 (SHA1 and SHA512 are optional
// and cost most of the hashing time), dnf's primary only SHA-256.
Hash package_hashes(PackageFormat format) {
  return format == PackageFormat::deb ? Hash::md5 | Hash::sha256 : Hash::sha256;
}

// Sets the digests `r`'s format needs but SHA-256 from its package's `bytes`.
void set_other_digests(PackageRecord& r, std::string_view bytes) {
  if (auto others = package_hashes(r.format) & ~Hash::sha256; others != Hash{}) {
    Digests d = digest_all(bytes, others);
    r.md5 = std::move(d.md5);
    r.sha1 = std::move(d.sha1);
    r.sha512 = std::move(d.sha512);
  }
}

} // namespace

Result<ReadPackage> read_package(std::string_view bytes, std::string_view path,
                                 PackageFormat format) {
  ReadPackage out;
  PackageRecord& r = out.record;
  r.format = format;
  r.size = bytes.size();
  if (format == PackageFormat::deb) {
    OPSKIT_TRY_ASSIGN(auto deb, read_deb(bytes, path));
    r.name = deb.name;
    r.version = deb.version;
    r.arch = deb.architecture;
    r.metadata = deb.control.render();
    out.deb = std::move(deb);
  } else {
    OPSKIT_TRY_ASSIGN(auto rpm, read_rpm(bytes, path));
    r.name = rpm.name;
    r.version = rpm.evr();
    r.arch = rpm.arch;
    r.metadata = rpm_to_json(rpm);
    out.rpm = std::move(rpm);
  }
  set_other_digests(r, bytes);
  return out;
}

} // namespace opskit::repo
