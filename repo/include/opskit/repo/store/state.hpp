// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "opskit/error.hpp"
#include "opskit/repo/format/record.hpp"
#include "opskit/repo/store/yum_rows.hpp"

namespace opskit::repo {

// The repository's SQLite database (.pkgcloud/state.db): a config table of key/value settings
// and a packages table keyed by (format, dist, name, version, arch). Writers hold a Transaction
// (BEGIN IMMEDIATE: one writer at a time, readers keep their snapshot). Move-only; SQLite itself
// stays in state.cpp.
class State {
  struct Impl; // the connection and its prepared statements

public:
  // Opens (and with Create::yes creates) the database at `path`; errors name the path.
  enum class Create { no, yes };
  static Result<State> open(const std::string& path, Create create);
  // Removes the database at `path` and its log files, where there are any; none may be open.
  static void remove(const std::string& path);
  State(State&&) noexcept;
  State& operator=(State&&) noexcept;
  ~State();

  Result<std::optional<std::string>> config(const std::string& key) const;
  Result<void> set_config(const std::string& key, const std::string& value);

  // Every package, sorted by format, dist, name, version text and arch.
  Result<std::vector<PackageRecord>> packages() const;
  // Every package of one format, in no order.
  Result<std::vector<PackageRecord>> packages(PackageFormat format) const;
  // Every package (of `dist` only, when given) as a listing shows it, sorted the same way:
  // without its metadata, index fragments and SHA-1 and SHA-512 sums.
  Result<std::vector<PackageRecord>> listing(const std::optional<std::string>& dist) const;
  // What writing the yum metadata of `dist` needs of each of its rpms, in no particular order;
  // with Text::none sorted by name, version text and arch, without the fragments and
  // metadata, which read_text reads where needed.
  enum class Text { none, all };
  Result<YumRows> yum_rows(const std::string& dist, Text text = Text::all) const;
  // Reads the fragments (and the metadata where they are missing) of rows.rows[i] for each i
  // in `which` whose text is not read yet.
  Result<void> read_text(YumRows& rows, std::span<const std::size_t> which) const;
  // The rows of `dist` with names from `first` to `last` (to the end without it), sorted by
  // name, version text and arch as yum_rows(dist, Text::none) gives them, added to `into`.
  Result<void> yum_rows_between(const std::string& dist, std::string_view first,
                                std::optional<std::string_view> last, YumRows& into) const;
  // The runs of packages of the dnf repositories of `dist` as a rewrite saved them, and the
  // rpm records of `dist` changed since (triggers note them, whatever changes them); nothing
  // when no runs are saved.
  Result<std::optional<YumTracked>> yum_tracked(const std::string& dist) const;
  // Saves the runs of every dnf repository of `dist`, with no changes since.
  Result<void> save_yum_runs(const std::string& dist,
                             const std::map<std::string, std::vector<YumRunRecord>>& runs);
  // Forgets the runs of `dist` and its changes.
  Result<void> drop_yum_runs(const std::string& dist);
  // The SHA-256 of each Packages text of the apt suite `dist` ("debian/bookworm") as a rewrite
  // saved them, by path in the suite, and the deb records of `dist` changed since (triggers
  // note them, whatever changes them); nothing when no texts are saved.
  Result<std::optional<AptTracked>> apt_tracked(const std::string& dist) const;
  // Saves the texts' SHA-256 of the suite `dist`, with no changes since.
  Result<void> save_apt_texts(const std::string& dist,
                              const std::map<std::string, std::string>& sha256_by_path);
  // The package with this identity, if recorded.
  Result<std::optional<PackageRecord>> find(PackageFormat format, const std::string& dist,
                                            const std::string& name, const std::string& version,
                                            const std::string& arch) const;
  // Inserts `record`, or replaces the one with the same identity; returns its id.
  Result<std::int64_t> put(const PackageRecord& record);
  Result<void> remove(std::int64_t id);
  // How many records point at `file` (a pool file may serve several dists).
  Result<int> references(const std::string& file) const;
  // Whether `dist` holds a package of `format`.
  Result<bool> holds(PackageFormat format, const std::string& dist) const;

  // BEGIN IMMEDIATE ... COMMIT, rolled back when dropped uncommitted.
  class Transaction {
  public:
    Transaction(Transaction&& other) noexcept : impl_(std::exchange(other.impl_, nullptr)) {}
    Transaction& operator=(Transaction&&) = delete;
    ~Transaction();
    Result<void> commit();

  private:
    friend class State;
    explicit Transaction(Impl* impl) noexcept : impl_(impl) {}
    Impl* impl_; // the State's, which outlives its transactions
  };
  Result<Transaction> begin();

private:
  explicit State(std::unique_ptr<Impl> impl) noexcept;
  std::unique_ptr<Impl> impl_;
};

} // namespace opskit::repo
