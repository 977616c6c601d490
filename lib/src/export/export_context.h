// What the trace-event emitters share while one export runs.
//
// The export is written in passes — metadata, host threads, GPU streams
// with their launch arrows, idle gaps, counters — each in its own file. They
// share the selection (window, processes), the track ids (which pid and tid
// every track gets) and what the host pass learned that later passes need:
// on which track each CUDA call landed, so a flow's start lies inside its
// call's slice on the right track.
#ifndef FEEDPROF_LIB_SRC_EXPORT_EXPORT_CONTEXT_H_
#define FEEDPROF_LIB_SRC_EXPORT_EXPORT_CONTEXT_H_

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "analysis/prepared_timeline.h"
#include "export/trace_event_writer.h"
#include "feedprof/analysis_report.h"
#include "feedprof/export.h"
#include "feedprof/timeline.h"

namespace feedprof::exporter {

// Category names, as Kineto writes them where Kineto has the thing.
inline constexpr const char* kCatKernel = "kernel";
inline constexpr const char* kCatMemcpy = "gpu_memcpy";
inline constexpr const char* kCatMemset = "gpu_memset";
inline constexpr const char* kCatRuntime = "cuda_runtime";
inline constexpr const char* kCatDriver = "cuda_driver";
inline constexpr const char* kCatSync = "cuda_sync";
inline constexpr const char* kCatFlow = "ac2g";
// feedprof's own tracks; Kineto readers skip unknown categories.
inline constexpr const char* kCatThreadState = "thread_state";
inline constexpr const char* kCatGpuIdle = "gpu_idle";

// (pid, correlation) → index of the call that launched it (the outermost
// call with that correlation in the process).
struct PidCorrelationHash {
  size_t operator()(const std::pair<int32_t, uint64_t>& k) const {
    return std::hash<uint64_t>()(k.second * 0x9E3779B97F4A7C15ull ^
                                 static_cast<uint32_t>(k.first));
  }
};
using LaunchIndex = std::unordered_map<std::pair<int32_t, uint64_t>, uint32_t,
                                       PidCorrelationHash>;

// What a blocking call's slice says about it.
struct SyncNote {
  analysis::SyncReason reason = analysis::SyncReason::kNone;
  TimeNs idle_after_ns = 0;  // idle of the gaps that followed it
  uint64_t gaps_after = 0;
};

struct ExportContext {
  ExportContext(const Timeline& timeline, const Report& r,
                const analysis::PreparedTimeline& p, const ExportOptions& o,
                const AnalysisOptions& a, TraceEventWriter& w)
      : tl(timeline), report(r), prepared(p), options(o), analysis(a), out(w) {}

  const Timeline& tl;
  const Report& report;
  const analysis::PreparedTimeline& prepared;
  const ExportOptions& options;
  const AnalysisOptions& analysis;
  TraceEventWriter& out;

  TimeNs window_start = 0;
  TimeNs window_end = 0;

  bool Selected(int32_t pid) const { return prepared.Selected(pid); }
  bool InWindow(TimeNs start, TimeNs end) const {
    return end >= window_start && start <= window_end;
  }

  // Synthetic track ids come from one counter above every real pid and tid,
  // so they never meet a real one.
  int64_t NewTrackId() { return next_track_id++; }
  int64_t next_track_id = 0;

  // Export pid of each (process, device): the device id as Kineto does,
  // unless that id is a host pid or another process already has it.
  std::map<std::pair<int32_t, int32_t>, int64_t> gpu_pid;
  int64_t GpuPid(int32_t pid, int32_t device) const {
    auto it = gpu_pid.find({pid, device});
    return it != gpu_pid.end() ? it->second : device;
  }

  // Correlation ids as written. Each process numbers its own; Kineto
  // writes one file per process, so where two exported processes share an
  // id, the second and later processes' ids are offset by k * 2^40 to keep
  // every launch→op link unique in the one file.
  std::unordered_map<int32_t, uint64_t> correlation_offset;
  uint64_t Correlation(int32_t pid, uint64_t correlation) const {
    if (correlation == 0 || correlation_offset.empty()) return correlation;
    auto it = correlation_offset.find(pid);
    return correlation + (it != correlation_offset.end() ? it->second : 0);
  }

  // Host pids that have a process_name; a host track of another pid
  // names it on first use.
  std::set<int64_t> named_pids;
  void EnsureProcessName(int64_t pid);

  LaunchIndex launches;            // every call of the selected processes
  std::vector<int64_t> api_track;  // per call: its track's tid, -1 not written
  std::unordered_map<uint32_t, SyncNote> sync_notes;  // by top-level call
};

// Passes, in the order the export runs them.
void AssignTracks(ExportContext& ctx);
void CollectSyncNotes(ExportContext& ctx);
void WriteProcessMetadata(ExportContext& ctx);
void WriteHostThreads(ExportContext& ctx);
void WriteGpuStreams(ExportContext& ctx);
void WriteSyncRecords(ExportContext& ctx);
void WriteIdleGaps(ExportContext& ctx);
void WriteCounters(ExportContext& ctx);
void WriteTopLevelFields(ExportContext& ctx);


// A metadata event ("ph":"M") with one string or integer arg.
void WriteNameMetadata(TraceEventWriter& out, std::string_view what,
                       int64_t pid, int64_t tid, std::string_view name);
void WriteSortIndex(TraceEventWriter& out, std::string_view what, int64_t pid,
                    int64_t tid, int64_t index);

}  // namespace feedprof::exporter

#endif  // FEEDPROF_LIB_SRC_EXPORT_EXPORT_CONTEXT_H_
