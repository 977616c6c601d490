#include "nsight/sqlite_database.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/file_magic.h"
#include "common/input_file.h"

namespace feedprof::nsight {
namespace {

// Percent-encodes the characters that would end or confuse a file: URI path.
std::string FileUri(const std::string& path) {
  std::string uri = "file:";
  for (unsigned char c : path) {
    if (c == '%' || c == '?' || c == '#' || c < 0x20 || c >= 0x7f) {
      absl::StrAppendFormat(&uri, "%%%02X", c);
    } else {
      uri.push_back(static_cast<char>(c));
    }
  }
  uri += "?immutable=1";
  return uri;
}

bool StartsWithSqliteHeader(const common::InputFile& file) {
  char header[common::kSqliteMagic.size()] = {};
  const int64_t n = file.ReadAt(0, header, sizeof(header));
  return n > 0 && common::StartsWithSqliteMagic(
                      std::string_view(header, static_cast<size_t>(n)));
}

std::string QuoteIdentifier(std::string_view name) {
  std::string out = "\"";
  for (char c : name) {
    if (c == '"') out.push_back('"');
    out.push_back(c);
  }
  out.push_back('"');
  return out;
}

// SQLite calls the progress handler every kStepsPerProgressCall VM steps.
constexpr int kStepsPerProgressCall = 1000;
// Steps one statement may take. On real exports the busiest statement takes
// under 0.07 steps per byte of the file (172,000 steps on a 2.7 MB export),
// so this leaves a margin of over 200 and is reached in about a second on a
// small damaged file.
constexpr uint64_t kStepsPerFileByte = 16;
constexpr uint64_t kMinStepsPerStatement = 1'000'000;

int CountProgress(void* context) {
  auto* limit = static_cast<StatementWorkLimit*>(context);
  if (limit->on_progress) limit->on_progress(limit->rows);
  if (limit->active_steps == nullptr) return 0;
  *limit->active_steps += kStepsPerProgressCall;
  if (*limit->active_steps <= limit->max_steps) return 0;
  limit->exceeded = true;
  return 1;  // interrupt: the statement fails with SQLITE_INTERRUPT
}

}  // namespace

Statement::Statement(Statement&& other) noexcept
    : stmt_(std::exchange(other.stmt_, nullptr)),
      sql_(std::move(other.sql_)),
      status_(std::move(other.status_)),
      limit_(other.limit_),
      steps_(other.steps_) {}

Statement& Statement::operator=(Statement&& other) noexcept {
  if (this != &other) {
    if (stmt_ != nullptr) sqlite3_finalize(stmt_);
    stmt_ = std::exchange(other.stmt_, nullptr);
    sql_ = std::move(other.sql_);
    status_ = std::move(other.status_);
    limit_ = other.limit_;
    steps_ = other.steps_;
  }
  return *this;
}

Statement::~Statement() {
  if (stmt_ != nullptr) sqlite3_finalize(stmt_);
}

bool Statement::Step() {
  if (!status_.ok()) return false;
  // Statements interleave (a lookup inside another's row loop): the count
  // follows the one stepping now.
  uint64_t* outer = nullptr;
  if (limit_ != nullptr) {
    outer = std::exchange(limit_->active_steps, &steps_);
    limit_->exceeded = false;
  }
  const int rc = sqlite3_step(stmt_);
  const bool looped = limit_ != nullptr && limit_->exceeded;
  if (limit_ != nullptr) limit_->active_steps = outer;
  if (rc == SQLITE_ROW) {
    if (limit_ != nullptr) ++limit_->rows;
    return true;
  }
  if (rc != SQLITE_DONE) {
    status_ = absl::DataLossError(
        looped ? absl::StrCat("the query did not finish within ",
                              limit_->max_steps,
                              " SQLite steps: the file is damaged (a page "
                              "that leads back to itself)")
               : std::string(sqlite3_errmsg(sqlite3_db_handle(stmt_))));
  }
  return false;
}

void Statement::Reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
  status_ = absl::OkStatus();
  steps_ = 0;
}

void Statement::BindInt64(int index, int64_t value) {
  sqlite3_bind_int64(stmt_, index, value);
}

std::string_view Statement::Text(int col) const {
  const unsigned char* text = sqlite3_column_text(stmt_, col);
  if (text == nullptr) return {};
  const int size = sqlite3_column_bytes(stmt_, col);
  return std::string_view(reinterpret_cast<const char*>(text),
                          static_cast<size_t>(size));
}

bool HasSqliteHeader(const std::string& path) {
  absl::StatusOr<common::InputFile> file = common::InputFile::Open(path);
  return file.ok() && StartsWithSqliteHeader(*file);
}

absl::StatusOr<std::unique_ptr<SqliteDatabase>> SqliteDatabase::Open(
    const std::string& path) {
  // SQLite opens by path, so the path is checked (and its header read)
  // through the common input-file helper first, for the same errors as the
  // other readers; then SQLite opens it read-only.
  uint64_t file_bytes = 0;
  {
    absl::StatusOr<common::InputFile> file = common::InputFile::Open(path);
    if (!file.ok()) return file.status();
    file_bytes = file->size();
    if (!StartsWithSqliteHeader(*file)) {
      return absl::InvalidArgumentError(absl::StrCat(
          path,
          " is not a SQLite database. If it is an Nsight Systems report "
          "(.nsys-rep), export it first with `nsys export --type sqlite ",
          path, "` and pass the .sqlite file"));
    }
  }
  sqlite3* db = nullptr;
  // One thread uses a connection (a directory's files each get their own),
  // so it needs no mutex of its own: locking one at every row cost 7 % of
  // reading an export.
  const int rc = sqlite3_open_v2(
      FileUri(path).c_str(), &db,
      SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    std::string message =
        db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close(db);
    return absl::InvalidArgumentError(
        absl::StrCat("cannot open SQLite database ", path, ": ", message));
  }
  std::unique_ptr<SqliteDatabase> database(new SqliteDatabase(db, path));
  // Damaged pages are caught when loaded rather than trusted.
  sqlite3_exec(db, "PRAGMA cell_size_check=ON", nullptr, nullptr, nullptr);
  StatementWorkLimit* limit = database->work_limit_.get();
  limit->max_steps =
      std::max(kMinStepsPerStatement, file_bytes * kStepsPerFileByte);
  database->file_bytes_ = file_bytes;
  sqlite3_progress_handler(db, kStepsPerProgressCall, &CountProgress, limit);
  absl::Status status = database->LoadTableNames();
  if (!status.ok()) {
    // A file cut short (copy interrupted, disk full) is shorter than its
    // header says, and SQLite refuses it outright. With writable_schema it
    // trusts the file size instead and reads the pages that are there; the
    // connection is read-only, so nothing is ever written.
    if (sqlite3_exec(db, "PRAGMA writable_schema=ON", nullptr, nullptr,
                     nullptr) == SQLITE_OK &&
        database->LoadTableNames().ok()) {
      database->salvaged_ = true;
      return database;
    }
    return status;
  }
  return database;
}

SqliteDatabase::SqliteDatabase(sqlite3* db, std::string path)
    : db_(db), path_(std::move(path)) {}

SqliteDatabase::~SqliteDatabase() { sqlite3_close(db_); }

absl::Status SqliteDatabase::LoadTableNames() {
  tables_.clear();
  auto stmt =
      Prepare("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')");
  if (!stmt.ok()) {
    return absl::DataLossError(absl::StrCat(
        path_, " is corrupt or truncated: its table list cannot be read (",
        stmt.status().message(),
        "). Export the report again with `nsys export --type sqlite`"));
  }
  while (stmt->Step()) tables_.emplace(stmt->Text(0));
  if (!stmt->status().ok()) {
    return absl::DataLossError(absl::StrCat(
        path_, " is corrupt or truncated: its table list cannot be read (",
        stmt->status().message(),
        "). Export the report again with `nsys export --type sqlite`"));
  }
  return absl::OkStatus();
}

bool SqliteDatabase::HasTable(std::string_view table) const {
  return tables_.find(table) != tables_.end();
}

const std::set<std::string, std::less<>>& SqliteDatabase::Columns(
    std::string_view table) {
  auto it = column_cache_.find(table);
  if (it != column_cache_.end()) return it->second;
  std::set<std::string, std::less<>> columns;
  if (HasTable(table)) {
    auto stmt = Prepare(
        absl::StrCat("PRAGMA table_info(", QuoteIdentifier(table), ")"));
    if (stmt.ok()) {
      while (stmt->Step()) columns.emplace(stmt->Text(1));
    }
  }
  return column_cache_.emplace(std::string(table), std::move(columns))
      .first->second;
}

bool SqliteDatabase::HasColumn(std::string_view table,
                               std::string_view column) {
  const auto& columns = Columns(table);
  return columns.find(column) != columns.end();
}

std::string SqliteDatabase::BuildSelect(std::string_view table,
                                        const std::vector<WantedColumn>& wanted,
                                        std::string_view suffix) {
  const auto& columns = Columns(table);
  std::string sql = "SELECT ";
  bool first = true;
  for (const WantedColumn& w : wanted) {
    if (!first) sql += ", ";
    first = false;
    std::string_view chosen;
    for (std::string_view name : w.names) {
      if (!name.empty() && columns.find(name) != columns.end()) {
        chosen = name;
        break;
      }
    }
    sql += chosen.empty() ? std::string("NULL") : QuoteIdentifier(chosen);
  }
  sql += " FROM ";
  sql += QuoteIdentifier(table);
  if (!suffix.empty()) {
    sql += " ";
    sql += suffix;
  }
  return sql;
}

absl::StatusOr<Statement> SqliteDatabase::Prepare(const std::string& sql) {
  sqlite3_stmt* stmt = nullptr;
  const int rc = sqlite3_prepare_v2(
      db_, sql.c_str(), static_cast<int>(sql.size()), &stmt, nullptr);
  if (rc != SQLITE_OK) {
    sqlite3_finalize(stmt);
    return absl::DataLossError(sqlite3_errmsg(db_));
  }
  return Statement(stmt, sql, work_limit_.get());
}

uint64_t SqliteDatabase::EstimatedRows(std::string_view table) {
  if (!HasTable(table)) return 0;
  auto stmt =
      Prepare(absl::StrCat("SELECT max(rowid) FROM ", QuoteIdentifier(table)));
  if (!stmt.ok() || !stmt->Step() || stmt->IsNull(0)) return 0;
  const int64_t rows = stmt->Int64(0);
  if (rows <= 0) return 0;
  // A row takes more than 8 bytes of the file; a damaged rowid may not.
  return std::min(static_cast<uint64_t>(rows), file_bytes_ / 8);
}

void SqliteDatabase::SetProgress(std::function<void(uint64_t rows)> report) {
  work_limit_->on_progress = std::move(report);
}

}  // namespace feedprof::nsight
