// SPDX-License-Identifier: MIT
#include "deb_builder.hpp"

#include <filesystem>
#include <fstream>
#include <stdexcept>

#include <archive.h>
#include <archive_entry.h>

#include "opskit/handle.hpp"
#include "process.hpp"

namespace opskit::test {

namespace {

using ArchiveWrite = CPtr<archive, archive_write_free>;
using Entry = CPtr<archive_entry, archive_entry_free>;

void check(int rc, archive* a) {
  if (rc < ARCHIVE_WARN)
    throw std::runtime_error(std::string("libarchive: ") + archive_error_string(a));
}

std::string write_archive(bool ar, const std::string& compression,
                          const std::vector<std::pair<std::string, std::string>>& members) {
  ArchiveWrite a(archive_write_new());
  check(ar ? archive_write_set_format_ar_svr4(a.get()) : archive_write_set_format_ustar(a.get()),
        a.get());
  if (compression == "gz") {
    check(archive_write_add_filter_gzip(a.get()), a.get());
    // no time in the gzip header: the same members make the same bytes
    check(archive_write_set_filter_option(a.get(), "gzip", "timestamp", nullptr), a.get());
  } else if (compression == "xz")
    check(archive_write_add_filter_xz(a.get()), a.get());
  else if (compression == "zst")
    check(archive_write_add_filter_zstd(a.get()), a.get());
  if (ar)
    archive_write_set_bytes_per_block(a.get(), 1);
  // Appended to as libarchive writes: a fixed buffer large enough for any member costs a
  // fresh mapping per archive, which is most of the time of pkgcloud_gen's 20,000 packages.
  std::string out;
  auto append = [](archive*, void* to, const void* buf, std::size_t len) -> la_ssize_t {
    static_cast<std::string*>(to)->append(static_cast<const char*>(buf), len);
    return static_cast<la_ssize_t>(len);
  };
  archive_write_set_bytes_in_last_block(a.get(), 1); // as archive_write_open_memory does
  check(archive_write_open2(a.get(), &out, nullptr, append, nullptr, nullptr), a.get());
  for (const auto& [name, data] : members) {
    Entry e(archive_entry_new());
    archive_entry_set_pathname(e.get(), name.c_str());
    archive_entry_set_size(e.get(), static_cast<la_int64_t>(data.size()));
    archive_entry_set_filetype(e.get(), AE_IFREG);
    archive_entry_set_perm(e.get(), 0644);
    check(archive_write_header(a.get(), e.get()), a.get());
    archive_write_data(a.get(), data.data(), data.size());
  }
  check(archive_write_close(a.get()), a.get());
  return out;
}

} // namespace

std::string make_tar(const std::string& name, const std::string& content,
                     const std::string& compression) {
  return write_archive(false, compression, {{name, content}});
}

std::string make_tar(const std::vector<std::pair<std::string, std::string>>& files) {
  return write_archive(false, "", files);
}

std::string make_tar_link(const std::string& name, const std::string& target, Link link) {
  ArchiveWrite a(archive_write_new());
  check(archive_write_set_format_ustar(a.get()), a.get());
  std::string out(64 * 1024, '\0');
  std::size_t used = 0;
  check(archive_write_open_memory(a.get(), out.data(), out.size(), &used), a.get());
  Entry e(archive_entry_new());
  archive_entry_set_pathname(e.get(), name.c_str());
  archive_entry_set_perm(e.get(), 0644);
  if (link == Link::symbolic) {
    archive_entry_set_filetype(e.get(), AE_IFLNK);
    archive_entry_set_symlink(e.get(), target.c_str());
  } else {
    archive_entry_set_filetype(e.get(), AE_IFREG);
    archive_entry_set_hardlink(e.get(), target.c_str());
  }
  check(archive_write_header(a.get(), e.get()), a.get());
  check(archive_write_close(a.get()), a.get());
  out.resize(used);
  return out;
}

std::string make_ar(const std::vector<std::pair<std::string, std::string>>& members) {
  return write_archive(true, "", members);
}

std::string make_deb(const std::string& control, const std::string& compression) {
  std::string control_name = compression.empty() ? "control.tar" : "control.tar." + compression;
  return make_ar({{"debian-binary", "2.0\n"},
                  {control_name, make_tar("./control", control, compression)},
                  {"data.tar.gz", make_tar("./usr/share/doc/x/README", "hello\n", "gz")}});
}

std::string dpkg_deb_build(const std::string& dir, const std::string& name,
                           const std::string& control, const std::string& compression) {
  std::string root = dir + "/src-" + name;
  std::filesystem::create_directories(root + "/DEBIAN");
  std::filesystem::create_directories(root + "/usr/share/" + name);
  std::ofstream(root + "/DEBIAN/control") << control;
  std::ofstream(root + "/usr/share/" + name + "/README") << "package " << name << "\n";
  std::string deb = dir + "/" + name + ".deb";
  auto built = run({"dpkg-deb", "-Z" + compression, "--root-owner-group", "--build", root, deb});
  if (built.exit_status != 0)
    throw std::runtime_error("dpkg-deb: " + built.err);
  return deb;
}

} // namespace opskit::test
