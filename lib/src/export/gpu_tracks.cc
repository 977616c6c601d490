// The device side of the export: per device a track per stream with its
// kernels, copies and memsets, launch→op flow arrows, the CUDA sync
// records, and a "GPU idle" track with every idle gap named by its cause.
//
// Ops use Kineto's categories and args (correlation, device, stream, grid,
// block, bytes, "memory bandwidth (GB/s)") and copies Kineto's names
// ("Memcpy HtoD (Pageable -> Device)"), which is where Kineto readers find
// the copy direction and memory kinds. Flows are Kineto's "ac2g" pairs: a
// "s" at the launching call's start on the call's track, a "f" with
// "bp":"e" at the op's start, id = correlation; one per launching call (a
// graph launch points at its first kernel), and only when both ends are in
// the export.
#include <algorithm>
#include <map>
#include <unordered_set>

#include "absl/strings/str_cat.h"
#include "export/export_context.h"
#include "export/nesting_lanes.h"
#include "timeline/cuda_names.h"

namespace feedprof::exporter {
namespace {

std::string_view MemoryKindName(MemoryKind kind) {
  switch (kind) {
    case MemoryKind::kPageable:
      return "Pageable";
    case MemoryKind::kPinned:
      return "Pinned";
    case MemoryKind::kDevice:
      return "Device";
    case MemoryKind::kArray:
      return "Array";
    case MemoryKind::kManaged:
      return "Managed";
    case MemoryKind::kDeviceStatic:
      return "Device Static";
    case MemoryKind::kManagedStatic:
      return "Managed Static";
    case MemoryKind::kUnknown:
      break;
  }
  return "";
}

// Kineto's op name for copies and memsets, from the op's fields.
std::string OpName(const Timeline& tl, const GpuOp& op) {
  const std::string_view src = MemoryKindName(op.src_kind);
  const std::string_view dst = MemoryKindName(op.dst_kind);
  switch (op.kind) {
    case GpuOpKind::kKernel:
      return std::string(tl.strings.Get(op.name));
    case GpuOpKind::kMemcpy: {
      if (op.copy_kind == CopyKind::kUnknown) {
        const std::string_view name = tl.strings.Get(op.name);
        return name.empty() ? std::string("Memcpy") : std::string(name);
      }
      std::string name(timeline::CopyOpName(op.copy_kind));
      if (!src.empty() || !dst.empty()) {
        absl::StrAppend(&name, " (", src.empty() ? "Unknown" : std::string(src),
                        " -> ", dst.empty() ? "Unknown" : std::string(dst),
                        ")");
      }
      return name;
    }
    case GpuOpKind::kMemset:
      return dst.empty() ? std::string("Memset")
                         : absl::StrCat("Memset (", std::string(dst), ")");
  }
  return "";
}

const char* OpCategory(GpuOpKind kind) {
  switch (kind) {
    case GpuOpKind::kMemcpy:
      return kCatMemcpy;
    case GpuOpKind::kMemset:
      return kCatMemset;
    case GpuOpKind::kKernel:
      break;
  }
  return kCatKernel;
}

const char* SyncName(SyncType type) {
  switch (type) {
    case SyncType::kEventSynchronize:
      return "Event Sync";
    case SyncType::kStreamWaitEvent:
      return "Stream Wait Event";
    case SyncType::kStreamSynchronize:
      return "Stream Sync";
    case SyncType::kContextSynchronize:
      return "Context Sync";
    case SyncType::kUnknown:
      break;
  }
  return "Sync";
}

void WriteOp(ExportContext& ctx, const GpuOp& op, int64_t pid, int64_t tid) {
  TraceEventWriter& out = ctx.out;
  out.Begin("X", OpCategory(op.kind), OpName(ctx.tl, op), pid, tid);
  out.Ts(op.start);
  out.Dur(op.end - op.start);
  out.BeginArgs();
  if (op.correlation != 0) {
    out.ArgUint("correlation", ctx.Correlation(op.pid, op.correlation));
  }
  out.Arg("device", op.device);
  out.Arg("stream", op.stream);
  if (op.kind == GpuOpKind::kKernel) {
    const LaunchShape& launch = ctx.tl.LaunchOf(op);
    out.ArgTriple("grid", launch.grid);
    out.ArgTriple("block", launch.block);
    if (launch.graph_id != 0) out.ArgUint("graph id", launch.graph_id);
  } else {
    out.ArgUint("bytes", op.bytes);
    if (op.end > op.start && op.bytes > 0) {
      out.ArgDouble("memory bandwidth (GB/s)",
                    static_cast<double>(op.bytes) /
                        static_cast<double>(op.end - op.start));
    }
    if (op.kind == GpuOpKind::kMemcpy && op.src_kind != MemoryKind::kUnknown) {
      out.Arg("src memory kind", MemoryKindName(op.src_kind));
    }
    if (op.dst_kind != MemoryKind::kUnknown) {
      out.Arg("dst memory kind", MemoryKindName(op.dst_kind));
    }
    if (op.kind == GpuOpKind::kMemcpy) out.Arg("async", op.async ? 1 : 0);
  }
  out.EndArgs();
  out.End();
}

// Per (export pid, key) a track with overflow lanes, created on first use.
class LaneTracks {
 public:
  LaneTracks(ExportContext& ctx, int64_t pid, int64_t lane0_tid,
             std::string name, int64_t sort_index)
      : ctx_(ctx), pid_(pid), name_(std::move(name)), sort_(sort_index) {
    tids_.push_back(lane0_tid);
    Announce(lane0_tid, name_);
  }
  int64_t Tid(uint32_t lane) {
    while (tids_.size() <= lane) {
      const int64_t tid = ctx_.NewTrackId();
      tids_.push_back(tid);
      Announce(tid, absl::StrCat(name_, " (overlap ", tids_.size() - 1, ")"));
    }
    return tids_[lane];
  }

 private:
  void Announce(int64_t tid, const std::string& name) {
    WriteNameMetadata(ctx_.out, "thread_name", pid_, tid, name);
    WriteSortIndex(ctx_.out, "thread_sort_index", pid_, tid,
                   sort_ + static_cast<int64_t>(tids_.size()) - 1);
  }
  ExportContext& ctx_;
  int64_t pid_;
  std::string name_;
  int64_t sort_;
  std::vector<int64_t> tids_;
};

}  // namespace

void WriteGpuStreams(ExportContext& ctx) {
  const Timeline& tl = ctx.tl;
  // (export pid, stream) → ops, by start.
  std::map<std::pair<int64_t, int64_t>, std::vector<uint32_t>> streams;
  for (uint32_t i = 0; i < tl.gpu_ops.size(); ++i) {
    const GpuOp& op = tl.gpu_ops[i];
    if (!ctx.Selected(op.pid) || !ctx.InWindow(op.start, op.end)) continue;
    streams[{ctx.GpuPid(op.pid, op.device), op.stream}].push_back(i);
  }
  std::unordered_set<uint32_t> flowed_calls;
  std::unordered_set<uint64_t> flow_ids;
  uint64_t next_flow_id = uint64_t{1} << 52;
  for (auto& [key, ops] : streams) {
    const auto [pid, stream] = key;
    std::stable_sort(ops.begin(), ops.end(), [&](uint32_t a, uint32_t b) {
      const GpuOp& x = tl.gpu_ops[a];
      const GpuOp& y = tl.gpu_ops[b];
      return x.start != y.start ? x.start < y.start : x.end > y.end;
    });
    // Streams are small ids; a stream without one gets a track id.
    const int64_t lane0 =
        stream >= 0 && stream < (int64_t{1} << 31) ? stream : ctx.NewTrackId();
    LaneTracks tracks(ctx, pid, lane0, absl::StrCat("stream ", stream),
                      lane0 == stream ? stream * 10 : 0);
    NestingLanes lanes;
    for (uint32_t index : ops) {
      const GpuOp& op = tl.gpu_ops[index];
      const int64_t tid = tracks.Tid(lanes.Place(op.start, op.end, index).lane);
      WriteOp(ctx, op, pid, tid);
      if (op.correlation == 0) continue;
      auto launch = ctx.launches.find({op.pid, op.correlation});
      if (launch == ctx.launches.end()) continue;
      const uint32_t call_index = launch->second;
      const int64_t call_tid = ctx.api_track[call_index];
      if (call_tid < 0 || !flowed_calls.insert(call_index).second) continue;
      // Kineto's id is the correlation; processes number correlations on
      // their own, so a repeat gets an id of its own.
      uint64_t id = ctx.Correlation(op.pid, op.correlation);
      if (!flow_ids.insert(id).second) id = next_flow_id++;
      const ApiCall& call = tl.api_calls[call_index];
      ctx.out.Begin("s", kCatFlow, kCatFlow, call.pid, call_tid);
      ctx.out.Ts(call.start);
      ctx.out.Field("id", static_cast<int64_t>(id));
      ctx.out.End();
      ctx.out.Begin("f", kCatFlow, kCatFlow, pid, tid);
      ctx.out.Ts(op.start);
      ctx.out.Field("id", static_cast<int64_t>(id));
      ctx.out.Field("bp", "e");
      ctx.out.End();
    }
  }
}

void WriteSyncRecords(ExportContext& ctx) {
  const Timeline& tl = ctx.tl;
  std::map<int64_t, std::vector<uint32_t>> by_pid;
  for (uint32_t i = 0; i < tl.syncs.size(); ++i) {
    const SyncRecord& s = tl.syncs[i];
    if (!ctx.Selected(s.pid) || !ctx.InWindow(s.start, s.end)) continue;
    by_pid[ctx.GpuPid(s.pid, s.device)].push_back(i);
  }
  for (auto& [pid, records] : by_pid) {
    std::stable_sort(
        records.begin(), records.end(), [&](uint32_t a, uint32_t b) {
          const SyncRecord& x = tl.syncs[a];
          const SyncRecord& y = tl.syncs[b];
          return x.start != y.start ? x.start < y.start : x.end > y.end;
        });
    LaneTracks tracks(ctx, pid, ctx.NewTrackId(), "CUDA sync records", -1000);
    NestingLanes lanes;
    for (uint32_t index : records) {
      const SyncRecord& s = tl.syncs[index];
      const int64_t tid = tracks.Tid(lanes.Place(s.start, s.end, index).lane);
      ctx.out.Begin("X", kCatSync, SyncName(s.type), pid, tid);
      ctx.out.Ts(s.start);
      ctx.out.Dur(s.end - s.start);
      ctx.out.BeginArgs();
      if (s.correlation != 0) {
        ctx.out.ArgUint("correlation", ctx.Correlation(s.pid, s.correlation));
      }
      ctx.out.Arg("cuda_sync_kind", SyncName(s.type));
      ctx.out.Arg("device", s.device);
      ctx.out.Arg("stream", s.stream);
      ctx.out.EndArgs();
      ctx.out.End();
    }
  }
}

void WriteIdleGaps(ExportContext& ctx) {
  std::map<int64_t, int64_t> idle_tid;  // export pid → its "GPU idle" track
  auto write_part = [&](const IdleGap& gap, int64_t pid, int64_t tid,
                        TimeNs start, TimeNs end, int first, int last) {
    int best = first;
    for (int c = first; c <= last; ++c) {
      if (gap.by_cause.ns[static_cast<size_t>(c)] >
          gap.by_cause.ns[static_cast<size_t>(best)]) {
        best = c;
      }
    }
    TraceEventWriter& out = ctx.out;
    out.Begin("X", kCatGpuIdle, IdleCauseName(static_cast<IdleCause>(best)),
              pid, tid);
    out.Ts(start);
    out.Dur(end - start);
    out.BeginArgs();
    for (int c = first; c <= last; ++c) {
      const TimeNs ns = gap.by_cause.ns[static_cast<size_t>(c)];
      if (ns > 0) {
        out.Arg(absl::StrCat(IdleCauseName(static_cast<IdleCause>(c)), "_ns"),
                ns);
      }
    }
    out.Arg("gap_ns", gap.end - gap.start);
    out.Arg("gap_main_cause", IdleCauseName(gap.main_cause));
    if (gap.after_sync) out.Arg("after_sync", 1);
    out.EndArgs();
    out.End();
  };
  constexpr int kLastHostWait = static_cast<int>(IdleCause::kHostWaitUnknown);
  absl::Status status =
      ForEachIdleGap(ctx.tl, ctx.analysis, [&](const IdleGap& gap) {
        const int64_t pid = ctx.GpuPid(gap.pid, gap.device);
        auto it = idle_tid.find(pid);
        if (it == idle_tid.end()) {
          const int64_t tid = ctx.NewTrackId();
          it = idle_tid.emplace(pid, tid).first;
          WriteNameMetadata(ctx.out, "thread_name", pid, tid, "GPU idle");
          WriteSortIndex(ctx.out, "thread_sort_index", pid, tid, -2000);
        }
        if (gap.host_wait_end > gap.start) {
          write_part(gap, pid, it->second, gap.start, gap.host_wait_end, 0,
                     kLastHostWait);
        }
        if (gap.end > gap.host_wait_end) {
          write_part(gap, pid, it->second, gap.host_wait_end, gap.end,
                     kLastHostWait + 1, kIdleCauses - 1);
        }
      });
  (void)status;  // the analysis already succeeded on the same options
}

}  // namespace feedprof::exporter
