// State shared by the steps of one Nsight Systems import.
//
// The import runs as a sequence of table readers (devices and threads, API
// calls, GPU activity, NVTX) that fill one Timeline. Later steps need what
// earlier ones found: GPU activity is joined to its API call by (process,
// correlation id) to classify syncs and to mark async copies. This context
// carries the database, the timeline being built, the StringIds lookup and
// that join index, so each step is a free function of one context.
#ifndef FEEDPROF_LIB_SRC_NSIGHT_NSIGHT_IMPORT_CONTEXT_H_
#define FEEDPROF_LIB_SRC_NSIGHT_NSIGHT_IMPORT_CONTEXT_H_

#include <cstddef>
#include <cstdint>
#include <exception>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "common/correlation_index.h"
#include "feedprof/timeline.h"
#include "nsight/nsight_string_ids.h"
#include "nsight/sqlite_database.h"
#include "timeline/event_vector_room.h"

namespace feedprof::nsight {

// Table names of the export schema.
inline constexpr std::string_view kKernelTable = "CUPTI_ACTIVITY_KIND_KERNEL";
inline constexpr std::string_view kMemcpyTable = "CUPTI_ACTIVITY_KIND_MEMCPY";
inline constexpr std::string_view kMemsetTable = "CUPTI_ACTIVITY_KIND_MEMSET";
inline constexpr std::string_view kRuntimeTable = "CUPTI_ACTIVITY_KIND_RUNTIME";
inline constexpr std::string_view kDriverTable = "CUPTI_ACTIVITY_KIND_DRIVER";
inline constexpr std::string_view kSyncTable =
    "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION";
inline constexpr std::string_view kNvtxTable = "NVTX_EVENTS";
inline constexpr std::string_view kStringIdsTable = "StringIds";
inline constexpr std::string_view kCallChainsTable = "CUDA_CALLCHAINS";
inline constexpr std::string_view kSchedEventsTable = "SCHED_EVENTS";

// Key of the (process, correlation id) join between API calls and GPU work.
inline uint64_t CorrelationKey(int32_t pid, uint64_t correlation) {
  return (static_cast<uint64_t>(static_cast<uint32_t>(pid)) << 40) ^
         correlation;
}

struct ImportContext {
  ImportContext(SqliteDatabase& database, Timeline& out)
      : db(database), timeline(out), strings(database, out.strings) {}

  // Records that `table` could not be read to the end, keeping what was read.
  void NoteTruncatedTable(std::string_view table, size_t rows_read,
                          const absl::Status& why);

  // Runs `sql` and calls `row(stmt)` for each result row. A query that cannot
  // be prepared, or that stops before its last row, is noted as a truncated
  // `table`; the rows read before are kept.
  template <typename RowFn>
  void ForEachRow(std::string_view table, const std::string& sql, RowFn row) {
    auto stmt = db.Prepare(sql);
    if (!stmt.ok()) {
      NoteTruncatedTable(table, 0, stmt.status());
      return;
    }
    size_t rows = 0;
    while (stmt->Step()) {
      row(*stmt);
      if ((++rows & 0xFFF) == 0) FaultInAhead();
    }
    if (!stmt->status().ok()) NoteTruncatedTable(table, rows, stmt->status());
  }

  // Reserves room in `events` for the rows of `tables` on top of what it
  // holds, so that it does not grow by doubling while they are read. Room
  // the system will not give is left to growth.
  template <typename Event>
  void ReserveForRows(std::vector<Event>& events,
                      std::initializer_list<std::string_view> tables) {
    uint64_t rows = 0;
    for (std::string_view table : tables) rows += db.EstimatedRows(table);
    try {
      events.reserve(events.size() + rows);
    } catch (const std::exception&) {
      // std::bad_alloc or std::length_error: it grows as it is filled.
    }
  }

  // Has the room reserved in the timeline's vectors faulted in ahead of
  // them; called every few thousand rows appended.
  void FaultInAhead() {
    if (room != nullptr) room->FaultInReserved();
  }

  SqliteDatabase& db;
  Timeline& timeline;
  // Faults in the room reserved in the timeline's vectors ahead of the row
  // loops (timeline/event_vector_room.h); null where nothing is.
  timeline::EventVectorRoom* room = nullptr;
  NsightStringIds strings;
  // CorrelationKey(pid, correlation) -> index into timeline.api_calls, after
  // de-dup: the first call in start order.
  common::CorrelationIndex api_by_correlation{0, 0, 0};
};

// The steps, in the order ReadNsightTrace runs them.
void ReadDevices(ImportContext& ctx);
void ReadApiCalls(ImportContext& ctx);
void ReadGpuActivity(ImportContext& ctx);
void ReadSyncRecords(ImportContext& ctx);
void ReadNvtx(ImportContext& ctx);
void ReadProcessesAndThreads(ImportContext& ctx);
void ReadThreadScheduling(ImportContext& ctx);  // after processes

}  // namespace feedprof::nsight

#endif  // FEEDPROF_LIB_SRC_NSIGHT_NSIGHT_IMPORT_CONTEXT_H_
