// SPDX-License-Identifier: MIT
#include "opskit/repo/store/state.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <new>

#include <sys/mman.h>
#include <unistd.h>

#include <sqlite3.h>

#include <fmt/format.h>

#include "opskit/handle.hpp"
#include "opskit/text.hpp"

namespace opskit::repo {

namespace {

constexpr const char* k_schema = R"sql(
CREATE TABLE IF NOT EXISTS config (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS packages (
  id INTEGER PRIMARY KEY,
  format TEXT NOT NULL, dist TEXT NOT NULL, component TEXT NOT NULL,
  name TEXT NOT NULL, version TEXT NOT NULL, arch TEXT NOT NULL,
  file TEXT NOT NULL, size INTEGER NOT NULL,
  md5 TEXT NOT NULL, sha1 TEXT NOT NULL, sha256 TEXT NOT NULL, sha512 TEXT NOT NULL,
  metadata TEXT NOT NULL,
  xml_primary TEXT NOT NULL DEFAULT '', xml_filelists TEXT NOT NULL DEFAULT '',
  xml_other TEXT NOT NULL DEFAULT '',
  UNIQUE (format, dist, name, version, arch));
CREATE INDEX IF NOT EXISTS packages_yum ON packages (dist, format, name, version, arch, file,
  sha256, size);
-- The runs of packages of each dnf repository of a dist as the last rewrite wrote them (see
-- ops::write_rpm_dists), and the identities of the dist's rpm records changed since
-- (noted by the triggers of yum_triggers, whatever makes the change).
CREATE TABLE IF NOT EXISTS yum_tracked (dist TEXT PRIMARY KEY, repositories TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS yum_runs (
  dist TEXT NOT NULL, repository TEXT NOT NULL, position INTEGER NOT NULL,
  last_name TEXT NOT NULL, last_version TEXT NOT NULL, last_arch TEXT NOT NULL,
  key BLOB NOT NULL, packages INTEGER NOT NULL,
  PRIMARY KEY (dist, repository, position)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS yum_changed (
  dist TEXT NOT NULL, name TEXT NOT NULL, version TEXT NOT NULL, arch TEXT NOT NULL,
  PRIMARY KEY (dist, name, version, arch)) WITHOUT ROWID;
-- The SHA-256 of each Packages text of an apt suite (a deb dist) as the last rewrite wrote it
-- (see ops::build_deb_rewrite), and the identities of the dist's deb records changed since.
CREATE TABLE IF NOT EXISTS apt_texts (
  dist TEXT NOT NULL, path TEXT NOT NULL, sha256 TEXT NOT NULL,
  PRIMARY KEY (dist, path)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS apt_changed (
  dist TEXT NOT NULL, name TEXT NOT NULL, version TEXT NOT NULL, arch TEXT NOT NULL,
  PRIMARY KEY (dist, name, version, arch)) WITHOUT ROWID;
)sql";

// The triggers that note in yum_changed each rpm record inserted, changed or removed in a dist
// whose runs are saved, and in apt_changed each deb record of a dist whose texts are. (A
// conflict clause in a trigger gives way to the statement's: they look before they insert.)
std::string change_triggers() {
  auto note = [](std::string_view row) {
    std::string sql;
    for (auto [prefix, format, tracked] :
         {std::tuple{"yum", "rpm", "yum_tracked"}, std::tuple{"apt", "deb", "apt_texts"}})
      sql += fmt::format(
          "INSERT INTO {1}_changed SELECT {0}.dist, {0}.name, {0}.version, {0}.arch "
          "WHERE {0}.format = '{2}' AND EXISTS (SELECT 1 FROM {3} WHERE dist = {0}.dist) "
          "AND NOT EXISTS (SELECT 1 FROM {1}_changed WHERE dist = {0}.dist AND name = {0}.name "
          "AND version = {0}.version AND arch = {0}.arch);",
          row, prefix, format, tracked);
    return sql;
  };
  return fmt::format(
      "CREATE TRIGGER IF NOT EXISTS changed_inserted AFTER INSERT ON packages BEGIN {} END;"
      "CREATE TRIGGER IF NOT EXISTS changed_removed AFTER DELETE ON packages BEGIN {} END;"
      "CREATE TRIGGER IF NOT EXISTS changed_updated AFTER UPDATE ON packages BEGIN {} {} END;",
      note("NEW"), note("OLD"), note("OLD"), note("NEW"));
}

constexpr const char* k_columns =
    "id, format, dist, component, name, version, arch, file, size, "
    "md5, sha1, sha256, sha512, metadata, xml_primary, xml_filelists, xml_other";

std::string column_text(sqlite3_stmt* s, int i) {
  const unsigned char* text = sqlite3_column_text(s, i);
  return text ? std::string(reinterpret_cast<const char*>(text),
                            static_cast<std::size_t>(sqlite3_column_bytes(s, i)))
              : std::string();
}

// Fills `r` from the row at `s`, in place: a record moved is seventeen strings moved.
void read_record(sqlite3_stmt* s, PackageRecord& r) {
  r.id = sqlite3_column_int64(s, 0);
  r.format = column_text(s, 1) == "rpm" ? PackageFormat::rpm : PackageFormat::deb;
  r.dist = column_text(s, 2);
  r.component = column_text(s, 3);
  r.name = column_text(s, 4);
  r.version = column_text(s, 5);
  r.arch = column_text(s, 6);
  r.file = column_text(s, 7);
  r.size = static_cast<std::uint64_t>(sqlite3_column_int64(s, 8));
  r.md5 = column_text(s, 9);
  r.sha1 = column_text(s, 10);
  r.sha256 = column_text(s, 11);
  r.sha512 = column_text(s, 12);
  r.metadata = column_text(s, 13);
  r.xml_primary = column_text(s, 14);
  r.xml_filelists = column_text(s, 15);
  r.xml_other = column_text(s, 16);
}

PackageRecord read_record(sqlite3_stmt* s) {
  PackageRecord r;
  read_record(s, r);
  return r;
}

} // namespace

std::string_view format_name(PackageFormat format) noexcept {
  return format == PackageFormat::rpm ? "rpm" : "deb";
}

namespace {

using Db = CPtr<sqlite3, sqlite3_close_v2>;
using Statement = CPtr<sqlite3_stmt, sqlite3_finalize>;
using Statements = std::map<std::string, Statement>;

// Why the connection's last call failed: SQLite's words (`said`, else its message), or the
// system's where a system call is what failed. A full disk is "database or disk is full" or
// "disk I/O error" to SQLite, which keeps no errno for the first: a user must read "No space
// left on device".
std::string reason(sqlite3* db, const char* said = nullptr) {
  int code = sqlite3_errcode(db) & 0xff;
  if (code == SQLITE_FULL)
    return std::strerror(ENOSPC);
  int err = sqlite3_system_errno(db);
  if (err != 0 && (code == SQLITE_IOERR || code == SQLITE_CANTOPEN))
    return std::strerror(err);
  return said ? said : sqlite3_errmsg(db);
}

// "database PATH: WHY", from the connection's last error.
Error problem(sqlite3* db, const std::string& path, const char* said = nullptr) {
  return Error(fmt::format("database {}: {}", path, reason(db, said)));
}

// A statement of the State's cache with its parameters bound by position; errors carry the
// database path. The statement is reset for its next use when the Query dies.
class Query {
public:
  Query(sqlite3* db, const std::string& path, Statements& cache, const std::string& sql)
      : db_(db), path_(path) {
    auto& slot = cache[sql];
    if (!slot) {
      sqlite3_stmt* s = nullptr;
      rc_ = sqlite3_prepare_v3(db_, sql.c_str(), -1, SQLITE_PREPARE_PERSISTENT, &s, nullptr);
      slot.reset(s);
    }
    stmt_ = slot.get();
  }
  Query(const Query&) = delete;
  Query& operator=(const Query&) = delete;
  ~Query() {
    if (stmt_)
      reset();
  }
  Query& bind(std::string_view text) {
    if (rc_ == SQLITE_OK)
      rc_ = sqlite3_bind_text(stmt_, ++index_, text.data(), static_cast<int>(text.size()),
                              SQLITE_TRANSIENT);
    return *this;
  }
  Query& bind(std::int64_t value) {
    if (rc_ == SQLITE_OK)
      rc_ = sqlite3_bind_int64(stmt_, ++index_, value);
    return *this;
  }
  // Steps once: true with a row, false when done.
  Result<bool> step() {
    if (rc_ != SQLITE_OK)
      return fail(problem(db_, path_));
    int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW)
      return true;
    if (rc == SQLITE_DONE)
      return false;
    rc_ = rc;
    return fail(problem(db_, path_));
  }
  sqlite3_stmt* get() const noexcept { return stmt_; }
  // Ready to bind and step again.
  void reset() noexcept {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
    index_ = 0;
  }

private:
  sqlite3* db_;
  const std::string& path_;
  sqlite3_stmt* stmt_ = nullptr;
  int rc_ = SQLITE_OK;
  int index_ = 0;
};

} // namespace

struct State::Impl {
  Impl(Db connection, std::string file) : db(std::move(connection)), path(std::move(file)) {}
  // A Query of the statement `sql`, prepared on its first use.
  Query query(const std::string& sql) const { return Query(db.get(), path, statements, sql); }
  Result<void> exec(const char* sql) const;

  Db db;
  std::string path;
  // Prepared once per process and reused (a rescan inserts thousands of rows); declared after
  // db so that they are finalized before it closes.
  mutable Statements statements;
};

State::State(std::unique_ptr<Impl> impl) noexcept : impl_(std::move(impl)) {}
State::State(State&&) noexcept = default;
State& State::operator=(State&&) noexcept = default;
State::~State() = default;

void State::remove(const std::string& path) {
  for (const char* suffix : {"", "-wal", "-shm"}) // the database, its write-ahead log and index
    ::unlink((path + suffix).c_str());
}

Result<State> State::open(const std::string& path, Create create) {
  sqlite3* raw = nullptr;
  int flags = SQLITE_OPEN_READWRITE | (create == Create::yes ? SQLITE_OPEN_CREATE : 0);
  int rc = sqlite3_open_v2(path.c_str(), &raw, flags, nullptr);
  Db db(raw);
  if (rc != SQLITE_OK)
    return fail(raw ? problem(raw, path)
                    : Error(fmt::format("database {}: {}", path, sqlite3_errstr(rc))));
  // Concurrent writers wait for each other instead of failing with SQLITE_BUSY.
  sqlite3_busy_timeout(db.get(), 60'000);
  auto impl = std::make_unique<Impl>(std::move(db), path);
  // Reads through a memory map rather than a pread per 4 KiB page: an index of thousands of
  // packages reads the whole table.
  OPSKIT_TRY(
      impl->exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA mmap_size=1073741824;"));
  OPSKIT_TRY(impl->exec(k_schema));
  // Databases made before apt_changed was noted have triggers for yum_changed alone: they give
  // way to the new ones at once, whoever else opens the database meanwhile (a failure leaves
  // the transaction to the connection's close, which rolls it back).
  bool old_triggers = impl->query("SELECT 1 FROM sqlite_master WHERE type = 'trigger' AND "
                                  "name = 'yum_inserted'")
                          .step()
                          .value_or(false);
  OPSKIT_TRY(impl->exec((old_triggers
                             ? fmt::format("BEGIN IMMEDIATE; DROP TRIGGER IF EXISTS yum_inserted; "
                                           "DROP TRIGGER IF EXISTS yum_removed; "
                                           "DROP TRIGGER IF EXISTS yum_updated; {} COMMIT;",
                                           change_triggers())
                             : change_triggers())
                            .c_str()));
  // Databases made before the index fragments were kept lack their columns: add them empty
  // (indexing then writes the fragments from the metadata).
  if (!impl->exec("SELECT xml_primary FROM packages LIMIT 0"))
    OPSKIT_TRY(impl->exec("ALTER TABLE packages ADD COLUMN xml_primary TEXT NOT NULL DEFAULT '';"
                          "ALTER TABLE packages ADD COLUMN xml_filelists TEXT NOT NULL DEFAULT '';"
                          "ALTER TABLE packages ADD COLUMN xml_other TEXT NOT NULL DEFAULT '';"));
  return State(std::move(impl));
}

Result<void> State::Impl::exec(const char* sql) const {
  char* message = nullptr;
  if (sqlite3_exec(db.get(), sql, nullptr, nullptr, &message) != SQLITE_OK) {
    auto error = problem(db.get(), path, message);
    sqlite3_free(message);
    return fail(std::move(error));
  }
  return {};
}

Result<std::optional<std::string>> State::config(const std::string& key) const {
  auto q = impl_->query("SELECT value FROM config WHERE key = ?");
  q.bind(key);
  OPSKIT_TRY_ASSIGN(auto row, q.step());
  if (!row)
    return std::nullopt;
  return column_text(q.get(), 0);
}

Result<void> State::set_config(const std::string& key, const std::string& value) {
  auto q = impl_->query("INSERT OR REPLACE INTO config (key, value) VALUES (?, ?)");
  q.bind(key).bind(value);
  OPSKIT_TRY(q.step());
  return {};
}

namespace {

// Steps `q` to its end, calling `each` with every row.
template <typename Each>
Result<void> for_each_row(Query& q, Each each) {
  for (;;) {
    OPSKIT_TRY_ASSIGN(auto row, q.step());
    if (!row)
      return {};
    each(q.get());
  }
}

// The records `q` selects; `expected` of them, which the vector is sized for at once (records
// are large: growing a vector of 10,000 moved them a dozen times).
Result<std::vector<PackageRecord>> all_records(Query& q, std::size_t expected = 0) {
  std::vector<PackageRecord> out;
  out.reserve(expected);
  OPSKIT_TRY(for_each_row(q, [&out](sqlite3_stmt* s) { read_record(s, out.emplace_back()); }));
  return out;
}

} // namespace

Result<std::vector<PackageRecord>> State::packages() const {
  std::string sql =
      fmt::format("SELECT {} FROM packages ORDER BY format, dist, name, version, arch", k_columns);
  auto q = impl_->query(sql);
  return all_records(q);
}

Result<std::vector<PackageRecord>> State::packages(PackageFormat format) const {
  auto count = impl_->query("SELECT count(*) FROM packages WHERE format = ?");
  count.bind(format_name(format));
  OPSKIT_TRY(count.step());
  auto expected = static_cast<std::size_t>(sqlite3_column_int64(count.get(), 0));
  // In table order: reading rows in the index's order looked each up in the table apart.
  std::string sql = fmt::format("SELECT {} FROM packages WHERE format = ?", k_columns);
  auto q = impl_->query(sql);
  q.bind(format_name(format));
  return all_records(q, expected);
}

Result<std::vector<PackageRecord>> State::listing(const std::optional<std::string>& dist) const {
  // The columns of read_record, the long ones left empty.
  std::string sql = fmt::format(
      "SELECT id, format, dist, component, name, version, arch, file, size, md5, '', sha256, '', "
      "'', '', '', '' FROM packages {} ORDER BY format, dist, name, version, arch",
      dist ? "WHERE dist = ?" : "");
  auto q = impl_->query(sql);
  if (dist)
    q.bind(*dist);
  return all_records(q);
}

void YumRows::Unmap::operator()(char* p) const noexcept {
  ::munmap(p, size);
}

std::string_view YumRows::hold(std::string_view text) {
  constexpr std::size_t k_block = std::size_t{1} << 20;
  if (text.size() > left_) {
    left_ = std::max(k_block, text.size());
    void* block = ::mmap(nullptr, left_, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (block == MAP_FAILED)
      throw std::bad_alloc();
    free_ = blocks.emplace_back(static_cast<char*>(block), Unmap{left_}).get();
  }
  if (!text.empty())
    std::memcpy(free_, text.data(), text.size());
  std::string_view kept(free_, text.size());
  free_ += text.size();
  left_ -= text.size();
  return kept;
}

namespace {

std::string_view column_view(sqlite3_stmt* s, int i) {
  const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(s, i));
  return text ? std::string_view(text, static_cast<std::size_t>(sqlite3_column_bytes(s, i)))
              : std::string_view();
}

// The text columns of YumRows::Row, in this order, after `id, name, ..., size`.
constexpr const char* k_yum_text_columns = "CASE WHEN xml_primary = '' THEN metadata ELSE '' END, "
                                           "xml_primary, xml_filelists, xml_other";

// A row from `id, name, version, arch, file, sha256, size`.
YumRows::Row& read_yum_identity(YumRows& rows, sqlite3_stmt* s) {
  YumRows::Row& r = rows.rows.emplace_back();
  r.id = sqlite3_column_int64(s, 0);
  r.name = rows.hold(column_view(s, 1));
  r.version = rows.hold(column_view(s, 2));
  r.arch = rows.hold(column_view(s, 3));
  r.file = rows.hold(column_view(s, 4));
  r.sha256 = rows.hold(column_view(s, 5));
  r.size = static_cast<std::uint64_t>(sqlite3_column_int64(s, 6));
  return r;
}

void read_yum_text(YumRows& rows, YumRows::Row& r, sqlite3_stmt* s, int first) {
  r.metadata = rows.hold(column_view(s, first));
  r.primary = rows.hold(column_view(s, first + 1));
  r.filelists = rows.hold(column_view(s, first + 2));
  r.other = rows.hold(column_view(s, first + 3));
  r.text_read = true;
}

} // namespace

Result<YumRows> State::yum_rows(const std::string& dist, Text text) const {
  YumRows out;
  if (text == Text::none) {
    OPSKIT_TRY(yum_rows_between(dist, "", std::nullopt, out));
    return out;
  }
  auto q = impl_->query(fmt::format("SELECT id, name, version, arch, file, sha256, size, {} "
                                    "FROM packages WHERE +format = 'rpm' AND +dist = ?",
                                    k_yum_text_columns));
  q.bind(dist);
  OPSKIT_TRY(for_each_row(
      q, [&](sqlite3_stmt* s) { read_yum_text(out, read_yum_identity(out, s), s, 7); }));
  return out;
}

Result<std::optional<YumTracked>> State::yum_tracked(const std::string& dist) const {
  auto tracked = impl_->query("SELECT repositories FROM yum_tracked WHERE dist = ?");
  tracked.bind(dist);
  OPSKIT_TRY_ASSIGN(auto row, tracked.step());
  if (!row)
    return std::nullopt;
  YumTracked out;
  for (auto& name : words(column_view(tracked.get(), 0)))
    out.runs.try_emplace(std::move(name));
  auto runs = impl_->query("SELECT repository, last_name, last_version, last_arch, key, packages "
                           "FROM yum_runs WHERE dist = ? ORDER BY repository, position");
  runs.bind(dist);
  auto ok = for_each_row(runs, [&](sqlite3_stmt* s) {
    auto& run = out.runs[column_text(s, 0)].emplace_back();
    run.last = {column_text(s, 1), column_text(s, 2), column_text(s, 3)};
    run.key = column_text(s, 4);
    run.packages = static_cast<std::uint64_t>(sqlite3_column_int64(s, 5));
  });
  if (!ok)
    return fail(ok.error());
  auto changed = impl_->query("SELECT name, version, arch FROM yum_changed WHERE dist = ? "
                              "ORDER BY name, version, arch");
  changed.bind(dist);
  ok = for_each_row(changed, [&](sqlite3_stmt* s) {
    out.changed.push_back({column_text(s, 0), column_text(s, 1), column_text(s, 2)});
  });
  if (!ok)
    return fail(ok.error());
  return out;
}

Result<void> State::save_yum_runs(const std::string& dist,
                                  const std::map<std::string, std::vector<YumRunRecord>>& runs) {
  OPSKIT_TRY(drop_yum_runs(dist));
  std::string names;
  for (const auto& [repository, list] : runs)
    names += (names.empty() ? "" : " ") + repository;
  auto tracked = impl_->query("INSERT INTO yum_tracked (dist, repositories) VALUES (?, ?)");
  tracked.bind(dist).bind(names);
  OPSKIT_TRY(tracked.step());
  auto insert =
      impl_->query("INSERT INTO yum_runs (dist, repository, position, last_name, "
                   "last_version, last_arch, key, packages) VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
  for (const auto& [dir, list] : runs)
    for (std::size_t i = 0; i < list.size(); ++i) {
      const YumRunRecord& run = list[i];
      insert.bind(dist).bind(dir).bind(static_cast<std::int64_t>(i)).bind(run.last.name);
      insert.bind(run.last.version).bind(run.last.arch).bind(run.key);
      insert.bind(static_cast<std::int64_t>(run.packages));
      OPSKIT_TRY(insert.step());
      insert.reset();
    }
  return {};
}

Result<void> State::drop_yum_runs(const std::string& dist) {
  for (const char* sql :
       {"DELETE FROM yum_tracked WHERE dist = ?", "DELETE FROM yum_runs WHERE dist = ?",
        "DELETE FROM yum_changed WHERE dist = ?"}) {
    auto q = impl_->query(sql);
    q.bind(dist);
    OPSKIT_TRY(q.step());
  }
  return {};
}

Result<std::optional<AptTracked>> State::apt_tracked(const std::string& dist) const {
  AptTracked out;
  auto texts = impl_->query("SELECT path, sha256 FROM apt_texts WHERE dist = ?");
  texts.bind(dist);
  OPSKIT_TRY(for_each_row(
      texts, [&](sqlite3_stmt* s) { out.sha256.emplace(column_text(s, 0), column_text(s, 1)); }));
  if (out.sha256.empty())
    return std::nullopt;
  auto changed = impl_->query("SELECT name, version, arch FROM apt_changed WHERE dist = ? "
                              "ORDER BY name, version, arch");
  changed.bind(dist);
  OPSKIT_TRY(for_each_row(changed, [&](sqlite3_stmt* s) {
    out.changed.push_back({column_text(s, 0), column_text(s, 1), column_text(s, 2)});
  }));
  return out;
}

Result<void> State::save_apt_texts(const std::string& dist,
                                   const std::map<std::string, std::string>& sha256_by_path) {
  for (const char* sql :
       {"DELETE FROM apt_texts WHERE dist = ?", "DELETE FROM apt_changed WHERE dist = ?"}) {
    auto q = impl_->query(sql);
    q.bind(dist);
    OPSKIT_TRY(q.step());
  }
  auto insert = impl_->query("INSERT INTO apt_texts (dist, path, sha256) VALUES (?, ?, ?)");
  for (const auto& [path, sha256] : sha256_by_path) {
    insert.bind(dist).bind(path).bind(sha256);
    OPSKIT_TRY(insert.step());
    insert.reset();
  }
  return {};
}

Result<void> State::yum_rows_between(const std::string& dist, std::string_view first,
                                     std::optional<std::string_view> last, YumRows& into) const {
  auto q = impl_->query(last ? "SELECT id, name, version, arch, file, sha256, size FROM packages "
                               "WHERE dist = ? AND format = 'rpm' AND name >= ? AND name <= ? "
                               "ORDER BY name, version, arch"
                             : "SELECT id, name, version, arch, file, sha256, size FROM packages "
                               "WHERE dist = ? AND format = 'rpm' AND name >= ? "
                               "ORDER BY name, version, arch");
  q.bind(dist).bind(first);
  if (last)
    q.bind(*last);
  return for_each_row(q, [&](sqlite3_stmt* s) { read_yum_identity(into, s); });
}

Result<void> State::read_text(YumRows& rows, std::span<const std::size_t> which) const {
  auto q = impl_->query(fmt::format("SELECT {} FROM packages WHERE id = ?", k_yum_text_columns));
  for (std::size_t i : which) {
    YumRows::Row& r = rows.rows.at(i);
    if (r.text_read)
      continue;
    q.bind(r.id);
    OPSKIT_TRY_ASSIGN(auto row, q.step());
    if (!row)
      return fail(fmt::format("database {}: package {} is gone", impl_->path, r.file));
    read_yum_text(rows, r, q.get(), 0);
    q.reset();
  }
  return {};
}

Result<std::optional<PackageRecord>> State::find(PackageFormat format, const std::string& dist,
                                                 const std::string& name,
                                                 const std::string& version,
                                                 const std::string& arch) const {
  std::string sql =
      fmt::format("SELECT {} FROM packages WHERE format = ? AND dist = ? AND name = ? "
                  "AND version = ? AND arch = ?",
                  k_columns);
  auto q = impl_->query(sql);
  q.bind(format_name(format)).bind(dist).bind(name).bind(version).bind(arch);
  OPSKIT_TRY_ASSIGN(auto row, q.step());
  if (!row)
    return std::nullopt;
  return read_record(q.get());
}

Result<std::int64_t> State::put(const PackageRecord& r) {
  auto q = impl_->query(
      "INSERT INTO packages (format, dist, component, name, version, arch, file, size, md5, "
      "sha1, sha256, sha512, metadata, xml_primary, xml_filelists, xml_other) "
      "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
      "ON CONFLICT (format, dist, name, version, arch) DO UPDATE SET "
      "component = excluded.component, file = excluded.file, size = excluded.size, "
      "md5 = excluded.md5, sha1 = excluded.sha1, sha256 = excluded.sha256, "
      "sha512 = excluded.sha512, metadata = excluded.metadata, "
      "xml_primary = excluded.xml_primary, xml_filelists = excluded.xml_filelists, "
      "xml_other = excluded.xml_other");
  q.bind(format_name(r.format)).bind(r.dist).bind(r.component).bind(r.name).bind(r.version);
  q.bind(r.arch).bind(r.file).bind(static_cast<std::int64_t>(r.size)).bind(r.md5).bind(r.sha1);
  q.bind(r.sha256).bind(r.sha512).bind(r.metadata).bind(r.xml_primary).bind(r.xml_filelists);
  q.bind(r.xml_other);
  OPSKIT_TRY(q.step());
  return sqlite3_last_insert_rowid(impl_->db.get());
}

Result<void> State::remove(std::int64_t id) {
  auto q = impl_->query("DELETE FROM packages WHERE id = ?");
  q.bind(id);
  OPSKIT_TRY(q.step());
  return {};
}

Result<int> State::references(const std::string& file) const {
  auto q = impl_->query("SELECT count(*) FROM packages WHERE file = ?");
  q.bind(file);
  OPSKIT_TRY(q.step());
  return sqlite3_column_int(q.get(), 0);
}

Result<bool> State::holds(PackageFormat format, const std::string& dist) const {
  auto q = impl_->query("SELECT EXISTS (SELECT 1 FROM packages WHERE format = ? AND dist = ?)");
  q.bind(format_name(format)).bind(dist);
  OPSKIT_TRY(q.step());
  return sqlite3_column_int(q.get(), 0) != 0;
}

Result<State::Transaction> State::begin() {
  OPSKIT_TRY(impl_->exec("BEGIN IMMEDIATE"));
  return Transaction(impl_.get());
}

State::Transaction::~Transaction() {
  if (impl_)
    sqlite3_exec(impl_->db.get(), "ROLLBACK", nullptr, nullptr, nullptr);
}

Result<void> State::Transaction::commit() {
  Impl* impl = std::exchange(impl_, nullptr);
  sqlite3* db = impl->db.get();
  if (sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr) != SQLITE_OK) {
    auto error = problem(db, impl->path).with_context("commit");
    sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
    return fail(std::move(error));
  }
  return {};
}

} // namespace opskit::repo
