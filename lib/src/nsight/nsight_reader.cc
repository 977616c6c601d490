// Entry point of the Nsight Systems SQLite importer: opens the export,
// checks that it is one, runs the table readers in dependency order and says
// what the format could and could not tell.
#include "feedprof/nsight_reader.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/read_progress.h"
#include "nsight/nsight_import_context.h"
#include "nsight/nsight_stack_samples.h"
#include "nsight/sqlite_database.h"
#include "timeline/event_vector_room.h"
#include "timeline/time_limits.h"

namespace feedprof {
namespace nsight {

void ImportContext::NoteTruncatedTable(std::string_view table, size_t rows_read,
                                       const absl::Status& why) {
  timeline.warnings.push_back(absl::StrCat(
      db.path(), ": table ", std::string(table),
      " could not be read completely (", why.message(), "); ", rows_read,
      " rows were salvaged and analysed. The file may be truncated or "
      "corrupt: export the report again with `nsys export --type sqlite`"));
}

}  // namespace nsight

namespace {

// Drops the events of `events` whose start or end lies outside
// ±timeline::kMaxAbsTimeNs; returns how many.
template <typename Event>
size_t DropOutOfRangeTimes(std::vector<Event>& events) {
  const size_t before = events.size();
  std::erase_if(events, [](const Event& e) {
    return !timeline::TimeInRange(e.start) || !timeline::TimeInRange(e.end);
  });
  return before - events.size();
}

// The file's bytes that `rows` of the `table_rows` stand for, short of the
// whole file until the reader is done (string lookups and small tables add
// rows of their own).
uint64_t RowsAsBytes(uint64_t rows, uint64_t table_rows, uint64_t file_bytes) {
  const double share = std::min(
      0.99, static_cast<double>(rows) / static_cast<double>(table_rows));
  return static_cast<uint64_t>(share * static_cast<double>(file_bytes));
}

template <typename Tables>
std::string TableList(const Tables& tables) {
  std::string out;
  for (std::string_view t : tables) {
    if (!out.empty()) out += ", ";
    out += t;
  }
  return out;
}

}  // namespace

bool LooksLikeSqliteFile(const std::string& path) {
  return nsight::HasSqliteHeader(path);
}

absl::StatusOr<Timeline> ReadNsightTrace(const std::string& path) {
  auto opened = nsight::SqliteDatabase::Open(path);
  if (!opened.ok()) return opened.status();
  nsight::SqliteDatabase& db = **opened;

  constexpr std::array<std::string_view, 7> kEventTables = {
      nsight::kKernelTable,  nsight::kMemcpyTable, nsight::kMemsetTable,
      nsight::kRuntimeTable, nsight::kDriverTable, nsight::kSyncTable,
      nsight::kNvtxTable};
  bool any_event_table = false;
  for (std::string_view table : kEventTables) {
    any_event_table = any_event_table || db.HasTable(table);
  }
  if (!any_event_table) {
    return absl::InvalidArgumentError(absl::StrCat(
        path,
        " is a SQLite database but not an Nsight Systems export with CUDA "
        "or NVTX data: it has none of the tables ",
        TableList(kEventTables),
        ". Export the report with `nsys export --type sqlite REPORT.nsys-rep`"
        " from a capture made with `nsys profile --trace=cuda,nvtx`"));
  }

  // The progress line: the share of the rows of the tables read in full
  // (StringIds lookups and small tables besides), as a share of the file.
  uint64_t table_rows = 0;
  for (std::string_view table : kEventTables) {
    table_rows += db.EstimatedRows(table);
  }
  table_rows += db.EstimatedRows(nsight::kCallChainsTable);
  table_rows += db.EstimatedRows(nsight::kSchedEventsTable);
  table_rows += db.EstimatedRows(nsight::kCompositeEventsTable);
  table_rows += db.EstimatedRows(nsight::kSamplingCallchainsTable);
  const uint64_t file_bytes = db.file_bytes();
  common::ReadProgress progress(path, file_bytes);
  if (table_rows > 0) {
    db.SetProgress([&progress, table_rows, file_bytes](uint64_t rows) {
      progress.Update(RowsAsBytes(rows, table_rows, file_bytes));
    });
  }

  Timeline timeline;
  timeline.format = SourceFormat::kNsight;
  timeline.source_path = path;
  if (db.salvaged()) {
    timeline.warnings.push_back(absl::StrCat(
        path,
        " is truncated or corrupt (SQLite reports a malformed database "
        "image); what could be read is analysed and counts may be "
        "incomplete. Export the report again with `nsys export --type "
        "sqlite`"));
  }
  nsight::ImportContext ctx(db, timeline);
  // The row loops fill vectors reserved for their tables' rows; a large
  // export's are faulted in ahead of them on the otherwise idle core.
  timeline::EventVectorRoom room(&timeline, file_bytes);
  ctx.room = &room;
  if (!ctx.strings.available()) {
    timeline.warnings.push_back(
        absl::StrCat(path, " has no ", std::string(nsight::kStringIdsTable),
                     " table: kernel, API and NVTX names are not available"));
  }
  const bool has_cuda =
      db.HasTable(nsight::kKernelTable) || db.HasTable(nsight::kMemcpyTable) ||
      db.HasTable(nsight::kMemsetTable) || db.HasTable(nsight::kRuntimeTable) ||
      db.HasTable(nsight::kDriverTable);

  nsight::ReadDevices(ctx);
  nsight::ReadApiCalls(ctx);
  nsight::ReadGpuActivity(ctx);
  nsight::ReadSyncRecords(ctx);
  nsight::ReadNvtx(ctx);
  nsight::ReadProcessesAndThreads(ctx);
  nsight::ReadThreadScheduling(ctx);
  nsight::ReadStackSamples(ctx);  // after processes
  db.SetProgress(nullptr);
  ctx.room = nullptr;
  room.Finish();

  const size_t out_of_range =
      DropOutOfRangeTimes(timeline.gpu_ops) +
      DropOutOfRangeTimes(timeline.api_calls) +
      DropOutOfRangeTimes(timeline.syncs) +
      DropOutOfRangeTimes(timeline.ranges) +
      static_cast<size_t>(std::erase_if(timeline.marks, [](const Mark& m) {
        return !timeline::TimeInRange(m.ts);
      }));
  if (out_of_range > 0) {
    timeline.warnings.push_back(absl::StrCat(
        path, ": skipped ", out_of_range,
        " events whose start or end lies beyond ±2^62 ns (damaged or edited "
        "rows); the rest was analysed. Export the report again with `nsys "
        "export --type sqlite`"));
  }

  Availability& available = timeline.available;
  available.api_calls =
      db.HasTable(nsight::kRuntimeTable) || db.HasTable(nsight::kDriverTable);
  available.correlation =
      available.api_calls &&
      (db.HasColumn(nsight::kKernelTable, "correlationId") ||
       db.HasColumn(nsight::kMemcpyTable, "correlationId") ||
       db.HasColumn(nsight::kMemsetTable, "correlationId"));
  available.sync_records = db.HasTable(nsight::kSyncTable);
  available.ranges = db.HasTable(nsight::kNvtxTable);

  if (timeline.gpu_ops.empty()) {
    timeline.warnings.push_back(absl::StrCat(
        path, " has no GPU activity (no kernel, memcpy or memset records)",
        has_cuda ? ""
                 : "; it has no CUDA tables at all: record with "
                   "`nsys profile --trace=cuda` to capture GPU work"));
    timeline.warned_no_gpu_activity = true;
  }
  return timeline;
}

}  // namespace feedprof
