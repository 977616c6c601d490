#include "bench/bigtrace/nsight_repeater.h"

#include <sqlite3.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace feedprof::bench {
namespace {

// The tables the Nsight reader takes events from (lib/src/nsight).
constexpr std::array<const char*, 9> kEventTables = {
    "CUPTI_ACTIVITY_KIND_KERNEL",
    "CUPTI_ACTIVITY_KIND_MEMCPY",
    "CUPTI_ACTIVITY_KIND_MEMSET",
    "CUPTI_ACTIVITY_KIND_RUNTIME",
    "CUPTI_ACTIVITY_KIND_DRIVER",
    "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION",
    "CUPTI_ACTIVITY_KIND_CUDA_EVENT",
    "NVTX_EVENTS",
    "SCHED_EVENTS"};
constexpr int64_t kGapNs = 1'000'000;

bool IsTimeColumn(std::string_view c) {
  return c == "start" || c == "end" || c == "timestamp";
}
bool IsIdColumn(std::string_view c) {
  return c == "correlationId" || c == "rangeId";
}

struct Table {
  std::string name;
  std::vector<std::string> columns;
};

class Database {
 public:
  ~Database() { sqlite3_close(db_); }
  absl::Status Open(const std::string& path) {
    path_ = path;
    if (sqlite3_open(path.c_str(), &db_) != SQLITE_OK) return Error("open");
    return Exec(
        "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; "
        "PRAGMA temp_store=MEMORY; PRAGMA cache_size=-262144");
  }
  absl::Status Exec(const std::string& sql) {
    char* message = nullptr;
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &message) !=
        SQLITE_OK) {
      const std::string text = message != nullptr ? message : "?";
      sqlite3_free(message);
      return absl::InternalError(
          absl::StrCat(path_, ": ", text, " (in: ", sql.substr(0, 200), ")"));
    }
    return absl::OkStatus();
  }
  // Runs `sql` and returns the first column of each row as integers (NULL
  // as 0).
  absl::StatusOr<std::vector<int64_t>> Integers(const std::string& sql) {
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK) {
      sqlite3_finalize(stmt);
      return Error(sql);
    }
    std::vector<int64_t> values;
    while (sqlite3_step(stmt) == SQLITE_ROW) {
      values.push_back(sqlite3_column_int64(stmt, 0));
    }
    sqlite3_finalize(stmt);
    return values;
  }
  absl::StatusOr<std::vector<std::string>> Columns(const std::string& table) {
    sqlite3_stmt* stmt = nullptr;
    const std::string sql = absl::StrCat("PRAGMA table_info(", table, ")");
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK) {
      sqlite3_finalize(stmt);
      return Error(sql);
    }
    std::vector<std::string> columns;
    while (sqlite3_step(stmt) == SQLITE_ROW) {
      columns.emplace_back(
          reinterpret_cast<const char*>(sqlite3_column_text(stmt, 1)));
    }
    sqlite3_finalize(stmt);
    return columns;
  }
  absl::StatusOr<int64_t> Integer(const std::string& sql) {
    absl::StatusOr<std::vector<int64_t>> values = Integers(sql);
    if (!values.ok()) return values.status();
    return values->empty() ? 0 : values->front();
  }

 private:
  absl::Status Error(const std::string& what) {
    return absl::InternalError(
        absl::StrCat(path_, ": ", sqlite3_errmsg(db_), " (", what, ")"));
  }
  sqlite3* db_ = nullptr;
  std::string path_;
};

}  // namespace

absl::StatusOr<RepeatedTrace> WriteRepeatedNsightExport(
    const std::string& source_path, uint64_t target_bytes,
    const std::string& out_path) {
  std::error_code error;
  std::filesystem::copy_file(source_path, out_path,
                             std::filesystem::copy_options::overwrite_existing,
                             error);
  if (error) {
    return absl::InternalError(absl::StrCat("cannot copy ", source_path, " to ",
                                            out_path, ": ", error.message()));
  }
  std::filesystem::permissions(out_path, std::filesystem::perms::owner_write,
                               std::filesystem::perm_options::add, error);
  Database db;
  if (absl::Status s = db.Open(out_path); !s.ok()) return s;

  std::vector<Table> tables;
  int64_t min_time = INT64_MAX;
  int64_t max_time = INT64_MIN;
  int64_t max_id = 0;
  for (const std::string name : kEventTables) {
    absl::StatusOr<std::vector<std::string>> columns = db.Columns(name);
    if (!columns.ok()) return columns.status();
    if (columns->empty()) continue;  // the export has no such table
    Table table{name, *std::move(columns)};
    for (const std::string& c : table.columns) {
      if (IsTimeColumn(c)) {
        absl::StatusOr<std::vector<int64_t>> range = db.Integers(
            absl::StrCat("SELECT min(\"", c, "\") FROM ", name,
                         " UNION ALL SELECT max(\"", c, "\") FROM ", name));
        if (!range.ok()) return range.status();
        if ((*range)[1] == 0) continue;  // no rows, or only NULLs
        min_time = std::min(min_time, (*range)[0]);
        max_time = std::max(max_time, (*range)[1]);
      } else if (IsIdColumn(c)) {
        absl::StatusOr<int64_t> id =
            db.Integer(absl::StrCat("SELECT max(\"", c, "\") FROM ", name));
        if (!id.ok()) return id.status();
        max_id = std::max(max_id, *id);
      }
    }
    tables.push_back(std::move(table));
  }
  if (tables.empty() || min_time > max_time) {
    return absl::InvalidArgumentError(absl::StrCat(
        source_path, ": cannot repeat this export: it has no timed rows in ",
        absl::StrJoin(kEventTables, ", ")));
  }
  const int64_t time_shift = max_time - min_time + kGapNs;
  const int64_t id_shift = max_id + 1;

  for (size_t i = 0; i < tables.size(); ++i) {
    if (absl::Status s =
            db.Exec(absl::StrCat("CREATE TEMP TABLE original_", i,
                                 " AS SELECT * FROM ", tables[i].name));
        !s.ok()) {
      return s;
    }
  }
  absl::StatusOr<int64_t> page_size = db.Integer("PRAGMA page_size");
  if (!page_size.ok()) return page_size.status();
  RepeatedTrace result;
  result.repetitions = 1;
  for (;;) {
    absl::StatusOr<int64_t> pages = db.Integer("PRAGMA page_count");
    if (!pages.ok()) return pages.status();
    result.bytes = static_cast<uint64_t>(*pages * *page_size);
    if (result.bytes >= target_bytes) break;
    const int64_t k = static_cast<int64_t>(result.repetitions);
    std::string sql = "BEGIN;";
    for (size_t i = 0; i < tables.size(); ++i) {
      std::vector<std::string> values;
      std::vector<std::string> names;
      for (const std::string& c : tables[i].columns) {
        const std::string quoted = absl::StrCat("\"", c, "\"");
        names.push_back(quoted);
        if (IsTimeColumn(c)) {
          values.push_back(absl::StrCat(quoted, " + ", k * time_shift));
        } else if (IsIdColumn(c)) {
          // 0 and NULL mean "none" and stay so.
          values.push_back(absl::StrCat("CASE WHEN ", quoted, " > 0 THEN ",
                                        quoted, " + ", k * id_shift, " ELSE ",
                                        quoted, " END"));
        } else {
          values.push_back(quoted);
        }
      }
      absl::StrAppend(&sql, "INSERT INTO ", tables[i].name, " (",
                      absl::StrJoin(names, ", "), ") SELECT ",
                      absl::StrJoin(values, ", "), " FROM original_", i, ";");
    }
    sql += "COMMIT;";
    if (absl::Status s = db.Exec(sql); !s.ok()) return s;
    ++result.repetitions;
  }
  return result;
}

}  // namespace feedprof::bench
