// SPDX-License-Identifier: MIT
#pragma once

// Writing a repository's metadata: apt suites (write_apt.cpp), dnf repositories
// (write_yum.cpp), the public key, and the rewrite after a change (write.cpp). Every index is
// built and signed in memory before its first file is written, and written through tree/ in
// the order that keeps readers safe. Not installed.

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ops/context.hpp"
#include "opskit/error.hpp"
#include "opskit/repo/repository.hpp"
#include "tree/yum_plan.hpp"

namespace opskit::repo::ops {

using tree::Reuse;

// Writes the apt suites (distro, codename) of `records`, which hold every deb in state (taken:
// each suite's records move into its index).
Result<std::vector<WrittenIndex>>
write_deb_suites(const Context& ctx, std::vector<PackageRecord> records,
                 const std::vector<std::pair<std::string, std::string>>& suites,
                 std::optional<Signer>& signer);

// What puts indexes built and signed in memory into the publication.
using Placing = std::function<Result<void>()>;

// Builds the apt suites (distro, codename) after a change to some of their packages (push, rm,
// prune): each suite's Packages files as the last rewrite left them, with the packages changed
// since taken out and put in again, where the state saved those files' digests and they are
// still the files saved (else from all the suite's records, as write_deb_suites does). Placing
// them saves the digests of the files written, in the caller's transaction.
Result<Placing> build_deb_rewrite(const Context& ctx,
                                  const std::vector<std::pair<std::string, std::string>>& suites,
                                  std::optional<Signer>& signer);

// Builds the dnf repositories of `dists` after such a change, copying the unchanged parts of
// each one's current .xml.gz files; `signer` must outlive the placing.
Result<Placing> build_rpm_rewrite(const Context& ctx, const std::set<std::string>& dists,
                                  std::optional<Signer>& signer);

// Writes the dnf repositories of `dists`; Reuse::previous copies the unchanged parts of each
// repository's current .xml.gz files (push, rm, prune), Reuse::none compresses everything anew.
Result<std::vector<WrittenIndex>> write_rpm_dists(const Context& ctx,
                                                  const std::set<std::string>& dists,
                                                  std::optional<Signer>& signer,
                                                  Reuse reuse = Reuse::none);

// gpg.key and gpg.gpg, the public key armored and binary, at the top of the publication:
// KeyFiles::if_changed when gpg.key differs from the key's export (a signing subkey added) or
// gpg.gpg is missing, one export when neither; KeyFiles::always anew.
enum class KeyFiles { if_changed, always };
Result<void> write_public_key(const Context& ctx, Signer& signer, KeyFiles when);

// The deb suites and rpm dists that a change to some packages touches.
struct Touched {
  std::set<std::pair<std::string, std::string>> suites;
  std::set<std::string> rpm_dists;
  std::size_t records = 0;      // added, changed or removed
  std::uint64_t text_bytes = 0; // the metadata of those added or changed, which takes room
  // `record` added or changed; or, with Text::freed, removed: its text then takes no room.
  enum class Text { takes_room, freed };
  void add(const PackageRecord& record, Text text = Text::takes_room);
};

// Fails with ENOSPC, naming the publication, when its file system has less room than
// rewriting the indexes of `touched` takes: about what they hold now (each is written anew
// before the old one goes, and a suite's by-hash files with it), and a margin for the state's
// log and the records changed: their text four times (the database and its log, the dnf
// metadata kept under .pkgcloud/, the indexes). A disk filled midway by another process is still
// possible: each index then fails whole, as ever.
Result<void> check_room(const Context& ctx, const Touched& touched);

// Rewrites the indexes `touched` names, signed when the repository has a key, once
// check_room() finds room for them: every one built and signed before the first is placed, and
// `before_placing`, when given, called between (push puts its pool files in place there, so
// that a key that cannot sign, or a build that fails, leaves the publication as it was).
Result<void> rewrite(const Context& ctx, const Touched& touched,
                     const std::function<Result<void>()>& before_placing = {});

} // namespace opskit::repo::ops
