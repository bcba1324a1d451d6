// SPDX-License-Identifier: MIT
#pragma once

// Sending a publication to a target so that a client fetching at any moment finds every file
// that what it fetched names: each phase of the generation (tree/generation.hpp) complete
// before the next starts, repomd.xml.asc one batch before repomd.xml, then the manifest; stale
// files only after it. A lock object with an owner and an expiry keeps a second publisher out.
// Not installed.

#include <chrono>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "opskit/error.hpp"
#include "publish/manifest.hpp"
#include "publish/snapshot.hpp"
#include "publish/transfer.hpp"

namespace opskit::repo::publish {

class Publisher {
public:
  // `progress` (may be empty) is called with (done, total) files as they are sent. The lock,
  // once taken, is checked and written again every `lock_refresh` while requests are in
  // flight; the publish fails when another publisher has taken it meanwhile.
  Publisher(Remote& remote, TransferOptions options,
            std::function<void(std::size_t, std::size_t)> progress,
            std::chrono::seconds lock_refresh = std::chrono::minutes(2));

  // The target's manifest; nothing when it has none, or one that is not pkgcloud's (`notice`
  // says so: the publish sends everything).
  Result<std::optional<Manifest>>
  read_manifest(const std::function<void(std::string_view)>& notice);
  // Takes the target's lock, waiting up to `wait` for another publisher's to be released or
  // to expire; the error names its owner and when it expires. A lock whose owner is provably
  // dead (publish/lock_owner.hpp) is taken at once, and `notice` (may be empty) says so.
  Result<void> lock(std::chrono::seconds wait, const std::function<void(std::string_view)>& notice);
  Result<void> unlock();
  // Sends `plan.upload` (with their MD5s), phase by phase, then `next` as the manifest.
  Result<void> send(const Plan& plan, const std::vector<std::string>& md5, const Manifest& next);
  // Deletes `paths`; what is gone already is not an error.
  Result<void> remove(const std::vector<std::string>& paths);
  // Writes `manifest` as the target's.
  Result<void> write_manifest(const Manifest& manifest);

  // The requests made, those that renewed the lock included.
  TransferStats stats() const;
  Transfer& transfer() noexcept { return transfer_; }

private:
  // Writes this publisher's lock, with `condition` (a header) when not empty, and again without
  // it where the store does not take it (400, 501); returns the status: 412 when the condition
  // failed.
  Result<long> put_lock(std::string condition, Transfer& transfer);
  // Checks that the target's lock is still this publisher's, and writes it again.
  Result<void> renew_lock();
  Result<void> send_in_parts(std::span<const Request> files, const std::function<void()>& step);
  Result<void> run_batch(std::vector<Request> batch);
  struct Previous {
    std::string path, bytes;
  };
  Result<std::vector<Previous>> signatures_before(const std::vector<Request>& signatures);
  void restore_signatures(const std::vector<Previous>& previous, const Manifest& next);

  Remote& remote_;
  Transfer transfer_;
  Transfer renewals_; // the lock's, from within a run of transfer_
  std::function<void(std::size_t, std::size_t)> progress_;
  std::size_t done_ = 0, total_ = 0;
  std::string token_; // of the lock this publisher holds; empty: none
  std::chrono::seconds lock_refresh_;
};

} // namespace opskit::repo::publish
