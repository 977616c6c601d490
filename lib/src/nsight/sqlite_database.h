// A thin, read-only view of a SQLite file for the Nsight Systems importer.
//
// The importer must never modify, lock or create anything next to the file
// it reads: exports often live on read-only shares. The database is opened
// with SQLITE_OPEN_READONLY and the `immutable=1` URI parameter, which also
// stops SQLite from looking for -wal/-journal files. Because nsys adds and
// drops columns between versions, the view answers "which tables and columns
// exist" and builds SELECT lists in which a missing column reads as NULL, so
// the row loops can use fixed column indexes whatever the version.
//
// Threads: one thread at a time uses a database and its statements (the
// connection is opened without a mutex of its own); separate databases
// may be read on separate threads.
#ifndef FEEDPROF_LIB_SRC_NSIGHT_SQLITE_DATABASE_H_
#define FEEDPROF_LIB_SRC_NSIGHT_SQLITE_DATABASE_H_

#include <sqlite3.h>

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace feedprof::nsight {

// How much work one statement may do before the file is called corrupt.
//
// A damaged b-tree (a page that points back at itself) can make SQLite walk
// the same pages forever instead of reporting SQLITE_CORRUPT. Every query
// the importer runs reads each row a bounded number of times, so its
// virtual-machine steps are bounded by the file's size; a statement that
// goes far past that bound is looping. SQLite's progress handler counts the
// steps of whichever statement is stepping and interrupts it there.
//
// The same handler reports how far the reading is (SqliteDatabase::
// SetProgress): the rows every statement of the database has returned.
struct StatementWorkLimit {
  uint64_t max_steps = 0;            // per statement, over all its Step()s
  uint64_t* active_steps = nullptr;  // the stepping statement's count
  bool exceeded = false;
  uint64_t rows = 0;  // rows returned by the database's statements
  std::function<void(uint64_t rows)> on_progress;  // may be empty
};

// One prepared statement. Step() returns true while a row is available;
// after it returns false, status() says whether the end was reached or the
// read failed (a corrupt page, say) part-way.
class Statement {
 public:
  Statement(sqlite3_stmt* stmt, std::string sql,
            StatementWorkLimit* limit = nullptr)
      : stmt_(stmt), sql_(std::move(sql)), limit_(limit) {}
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  Statement(Statement&& other) noexcept;
  Statement& operator=(Statement&& other) noexcept;
  ~Statement();

  bool Step();
  void Reset();
  void BindInt64(int index, int64_t value);  // index is 1-based

  bool IsNull(int col) const {
    return sqlite3_column_type(stmt_, col) == SQLITE_NULL;
  }
  int64_t Int64(int col) const { return sqlite3_column_int64(stmt_, col); }
  std::optional<int64_t> OptionalInt64(int col) const {
    if (IsNull(col)) return std::nullopt;
    return Int64(col);
  }
  double Double(int col) const { return sqlite3_column_double(stmt_, col); }
  // Valid until the next Step()/Reset(); empty for NULL.
  std::string_view Text(int col) const;

  const absl::Status& status() const { return status_; }
  const std::string& sql() const { return sql_; }

 private:
  sqlite3_stmt* stmt_ = nullptr;
  std::string sql_;
  absl::Status status_;
  StatementWorkLimit* limit_ = nullptr;  // the database's; may be null
  uint64_t steps_ = 0;                   // VM steps so far, for limit_
};

// A column wanted by a query: the first of `names` that the table has is
// selected; when it has none, the query selects NULL in its place.
// Held by value (not as an initializer_list, whose array would not outlive
// the expression that built it).
struct WantedColumn {
  std::array<std::string_view, 3> names;  // unused entries are empty
};

class SqliteDatabase {
 public:
  // Opens `path` read-only and immutable. Fails with a message naming the
  // file when it is missing, unreadable, not SQLite, or its schema cannot
  // be read (corrupt or truncated).
  static absl::StatusOr<std::unique_ptr<SqliteDatabase>> Open(
      const std::string& path);

  SqliteDatabase(const SqliteDatabase&) = delete;
  SqliteDatabase& operator=(const SqliteDatabase&) = delete;
  ~SqliteDatabase();

  const std::string& path() const { return path_; }
  uint64_t file_bytes() const { return file_bytes_; }
  // True when the file failed SQLite's integrity check on open (it is
  // shorter than its header says) and is being read as far as it goes.
  bool salvaged() const { return salvaged_; }
  bool HasTable(std::string_view table) const;
  // Column names of `table` (PRAGMA table_info); empty if the table is
  // missing or its definition cannot be read.
  const std::set<std::string, std::less<>>& Columns(std::string_view table);
  bool HasColumn(std::string_view table, std::string_view column);

  // "SELECT c1, NULL, c3 FROM table <suffix>" with one entry per wanted
  // column, in order, so result column i is wanted[i].
  std::string BuildSelect(std::string_view table,
                          const std::vector<WantedColumn>& wanted,
                          std::string_view suffix = "");

  absl::StatusOr<Statement> Prepare(const std::string& sql);

  // About how many rows `table` holds, from its largest rowid (nsys numbers
  // rows from 1 without gaps), without reading them; 0 when the table is
  // missing, empty or unreadable; never more than the file's bytes / 8.
  uint64_t EstimatedRows(std::string_view table);
  // Calls `report(rows)` while statements step, every few thousand SQLite
  // steps, with the rows all statements have returned so far.
  void SetProgress(std::function<void(uint64_t rows)> report);

 private:
  SqliteDatabase(sqlite3* db, std::string path);
  absl::Status LoadTableNames();

  sqlite3* db_ = nullptr;
  std::string path_;
  uint64_t file_bytes_ = 0;
  bool salvaged_ = false;
  // Boxed: statements keep a pointer to it, and the progress handler too.
  std::unique_ptr<StatementWorkLimit> work_limit_ =
      std::make_unique<StatementWorkLimit>();
  std::set<std::string, std::less<>> tables_;
  // Per-table column sets, filled on first use (map: references stay valid).
  std::map<std::string, std::set<std::string, std::less<>>, std::less<>>
      column_cache_;
};

// True when the first 16 bytes of the file are the SQLite header.
bool HasSqliteHeader(const std::string& path);

}  // namespace feedprof::nsight

#endif  // FEEDPROF_LIB_SRC_NSIGHT_SQLITE_DATABASE_H_
