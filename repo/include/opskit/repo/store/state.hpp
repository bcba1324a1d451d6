// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <sqlite3.h>

#include "opskit/error.hpp"
#include "opskit/handle.hpp"

namespace opskit::repo {

enum class PackageFormat { deb, rpm };

// One package as the repository knows it. `file` is relative to the repository root.
// `metadata` is the deb control paragraph as written, or the rpm's parsed header as JSON.
struct PackageRecord {
  std::int64_t id = 0;
  PackageFormat format = PackageFormat::deb;
  std::string dist;      // "debian/bookworm", "el/9"
  std::string component; // "main" for deb; empty for rpm
  std::string name, version, arch;
  std::string file;
  std::uint64_t size = 0;
  std::string md5, sha1, sha256, sha512;
  std::string metadata;
  // rpm only: the package's <package> elements of primary, filelists and other.xml, written
  // once at push so that indexing pastes them (see yum_index.hpp); empty for deb.
  std::string xml_primary, xml_filelists, xml_other;

  bool operator==(const PackageRecord&) const = default;
};

std::string_view format_name(PackageFormat format) noexcept;

// The part of an rpm's record that its yum metadata needs, its text held in a few large blocks
// that the rows view (an index of thousands of rpms reads megabytes of fragments): moving a
// YumRows keeps the views valid.
struct YumRows {
  struct Row {
    std::int64_t id = 0;
    std::string_view name, version, arch, file, sha256;
    std::uint64_t size = 0;
    // The fragments, when read (see State::yum_rows); the metadata only where they are missing.
    std::string_view metadata, primary, filelists, other;
    bool text_read = false;
  };
  std::vector<Row> rows;
  // A copy of `text` in the blocks, valid as long as they are.
  std::string_view hold(std::string_view text);
  // Each block is mapped with its pages populated in one call: faulting in megabytes of fresh
  // memory a page at a time cost more than reading the rows.
  struct Unmap {
    std::size_t size = 0;
    void operator()(char* p) const noexcept;
  };
  std::vector<std::unique_ptr<char[], Unmap>> blocks;

private:
  char* free_ = nullptr;
  std::size_t left_ = 0;
};

// An rpm's identity in a dist: name, version ("[epoch:]version-release") and arch.
struct YumIdentity {
  std::string name, version, arch;
};
// A run of packages of a dnf repository (see yum_index.hpp's YumRun) as a rewrite saved it:
// its last package, the key of what its fragments are made of and how many packages it has.
struct YumRunRecord {
  YumIdentity last;
  std::string key;
  std::uint64_t packages = 0;
};
struct YumTracked {
  std::map<std::string, std::vector<YumRunRecord>> runs; // by directory: "x86_64", "SRPMS"
  std::vector<YumIdentity> changed;                      // sorted
};

// The repository's SQLite database (.pkgcloud/state.db): a config table of key/value settings
// and a packages table keyed by (format, dist, name, version, arch). Writers hold a Transaction
// (BEGIN IMMEDIATE: one writer at a time, readers keep their snapshot).
class State {
public:
  // Opens (and with Create::yes creates) the database at `path`; errors name the path.
  enum class Create { no, yes };
  static Result<State> open(const std::string& path, Create create);

  Result<std::optional<std::string>> config(const std::string& key) const;
  Result<void> set_config(const std::string& key, const std::string& value);

  // Every package, sorted by format, dist, name, version text and arch.
  Result<std::vector<PackageRecord>> packages() const;
  // Every package of one format, sorted the same way.
  Result<std::vector<PackageRecord>> packages(PackageFormat format) const;
  // Every package (of `dist` only, when given) as a listing shows it, sorted the same way:
  // without its metadata, index fragments and MD5, SHA-1 and SHA-512 sums.
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
    Transaction(Transaction&& other) noexcept : db_(std::exchange(other.db_, nullptr)) {}
    Transaction& operator=(Transaction&&) = delete;
    ~Transaction();
    Result<void> commit();

  private:
    friend class State;
    explicit Transaction(sqlite3* db) : db_(db) {}
    sqlite3* db_;
  };
  Result<Transaction> begin();

private:
  using Db = CPtr<sqlite3, sqlite3_close_v2>;
  using Statement = CPtr<sqlite3_stmt, sqlite3_finalize>;
  friend class Query;
  State(Db db, std::string path)
      : db_(std::move(db)), path_(std::move(path)),
        statements_(std::make_unique<std::map<std::string, Statement>>()) {}
  Result<void> exec(const char* sql) const;
  Db db_;
  std::string path_;
  // Prepared once per process and reused (a rescan inserts thousands of rows); declared after
  // db_ so that they are finalized before it closes.
  std::unique_ptr<std::map<std::string, Statement>> statements_;
};

} // namespace opskit::repo
