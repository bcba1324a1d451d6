// SPDX-License-Identifier: MIT
#include "ops/write.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <utility>

#include <sys/statvfs.h>
#include <unistd.h>

#include <fmt/format.h>

#include "layout/paths.hpp"
#include "opskit/atomic_file.hpp"
#include "tree/local.hpp"

namespace fs = std::filesystem;

namespace opskit::repo::ops {

using detail::join_path;

Result<void> write_public_key(const Context& ctx, Signer& signer, KeyFiles when) {
  OPSKIT_TRY_ASSIGN(auto armored, signer.keyring.export_key(signer.fingerprint, Armor::yes));
  if (when == KeyFiles::if_changed && read_file(join_path(ctx.publication, "gpg.key")) == armored &&
      ::access(join_path(ctx.publication, "gpg.gpg").c_str(), F_OK) == 0)
    return {};
  OPSKIT_TRY_ASSIGN(auto binary, signer.keyring.export_key(signer.fingerprint, Armor::no));
  StagedFiles files;
  for (auto [name, data] : {std::pair{"gpg.key", &armored}, std::pair{"gpg.gpg", &binary}})
    OPSKIT_TRY(files.stage(join_path(ctx.publication, name), *data));
  return files.commit();
}

void Touched::add(const PackageRecord& record, Text text) {
  ++records;
  if (text == Text::takes_room)
    text_bytes += record.metadata.size() + record.xml_primary.size() + record.xml_filelists.size() +
                  record.xml_other.size();
  if (record.format == PackageFormat::deb)
    suites.insert(*split_dist(record.dist));
  else
    rpm_dists.insert(record.dist);
}

namespace {

constexpr std::uint64_t k_room_margin = 64 * 1024;
constexpr std::uint64_t k_room_per_record = 8 * 1024;

// What the files below `dir` take in blocks of `block` bytes, but those in directories named
// Packages (a dnf repository's links to the pool).
std::uint64_t taken(const std::string& dir, std::uint64_t block) {
  std::uint64_t bytes = 0;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec);
       it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_directory(ec) && it->path().filename() == "Packages")
      it.disable_recursion_pending();
    else if (it->is_regular_file(ec))
      bytes += (it->file_size(ec) + block - 1) / block * block;
  }
  return bytes;
}

} // namespace

Result<void> check_room(const Context& ctx, const Touched& touched) {
  struct statvfs st {};
  if (::statvfs(ctx.publication.c_str(), &st) != 0)
    return fail(Error::from_errno("statvfs", ctx.publication));
  std::uint64_t block = st.f_frsize;
  std::uint64_t need = k_room_margin + k_room_per_record * touched.records + 4 * touched.text_bytes;
  for (const auto& [distro, codename] : touched.suites)
    need += taken(join_path(ctx.publication, detail::deb_suite(distro, codename)), block);
  for (const auto& dist : touched.rpm_dists) {
    need += taken(join_path(ctx.publication, detail::rpm_dist_dir(dist)), block);
    need += taken(join_path(ctx.root, tree::yum_text_dir(detail::rpm_dist_dir(dist))), block);
  }
  std::uint64_t room = static_cast<std::uint64_t>(st.f_bavail) * block;
  if (room < need)
    return fail(fmt::format("{}: {} (writing the indexes takes about {} KiB, {} KiB are free)",
                            ctx.publication, std::strerror(ENOSPC), need / 1024, room / 1024),
                ENOSPC);
  return {};
}

Result<void> rewrite(const Context& ctx, const Touched& touched,
                     const std::function<Result<void>()>& before_placing) {
  if (touched.suites.empty() && touched.rpm_dists.empty())
    return before_placing ? before_placing() : Result<void>{};
  OPSKIT_TRY(check_room(ctx, touched));
  OPSKIT_TRY_ASSIGN(auto signer, open_signer(ctx, SignRequest::if_key));
  if (signer) // a subkey added since it was written signs too: apt needs it before the signatures
    OPSKIT_TRY(write_public_key(ctx, *signer, KeyFiles::if_changed));
  std::vector<Placing> placings;
  if (!touched.suites.empty()) {
    OPSKIT_TRY_ASSIGN(
        auto deb, build_deb_rewrite(ctx, {touched.suites.begin(), touched.suites.end()}, signer));
    placings.push_back(std::move(deb));
  }
  if (!touched.rpm_dists.empty()) {
    OPSKIT_TRY_ASSIGN(auto rpm, build_rpm_rewrite(ctx, touched.rpm_dists, signer));
    placings.push_back(std::move(rpm));
  }
  if (before_placing)
    OPSKIT_TRY(before_placing());
  for (const auto& place : placings)
    OPSKIT_TRY(place());
  return {};
}

} // namespace opskit::repo::ops
