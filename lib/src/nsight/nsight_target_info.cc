// Devices, processes and threads from an Nsight Systems export.
//
// GPU descriptions live in TARGET_INFO_GPU (name, bus id, memory, SMs) and,
// in newer exports, TARGET_INFO_CUDA_DEVICE (CUDA ordinal, SM count); some
// exports have neither, so every device id seen in GPU activity also gets a
// Device entry. PROCESSES lists every process on the machine while the
// capture ran (thousands on a cluster node); only those with events in the
// trace are kept.
//
// Streams come from TARGET_INFO_CUDA_STREAM (one row per stream: context,
// priority, and the CUPTI stream flag saying blocking, non-blocking or the
// legacy NULL stream) and, in older exports, TARGET_INFO_CUDA_NULL_STREAM
// (the legacy stream of each context, with its device). Exports from before
// these tables simply yield no stream descriptions.
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "nsight/nsight_enums.h"
#include "nsight/nsight_import_context.h"

namespace feedprof::nsight {
namespace {

Device& DeviceWithId(Timeline& tl, int32_t id) {
  for (Device& d : tl.devices) {
    if (d.id == id) return d;
  }
  Device& d = tl.devices.emplace_back();
  d.id = id;
  d.pid = -1;
  return d;
}

enum GpuColumn {
  kId,
  kCudaId,
  kName,
  kBus,
  kMemory,
  kSms,
  kPcieGen,
  kPcieMaxGen,
  kPcieWidth,
  kPcieMaxWidth
};

// PCIe generation -> GT/s per lane.
double GenerationToGts(int64_t generation) {
  switch (generation) {
    case 1:
      return 2.5;
    case 2:
      return 5.0;
    case 3:
      return 8.0;
    case 4:
      return 16.0;
    case 5:
      return 32.0;
    case 6:
      return 64.0;
    default:
      return 0.0;
  }
}

void ReadTargetInfoGpu(ImportContext& ctx) {
  constexpr std::string_view kTable = "TARGET_INFO_GPU";
  if (!ctx.db.HasTable(kTable)) return;
  auto stmt = ctx.db.Prepare(ctx.db.BuildSelect(
      kTable, {{{"id"}},
               {{"cuDevice"}},
               {{"name"}},
               {{"busLocation"}},
               {{"totalMemory"}},
               {{"smCount"}},
               {{"pcieGeneration", "pcieLinkGen", "pcieCurrentLinkGen"}},
               {{"pcieMaxGeneration", "pcieMaxLinkGen"}},
               {{"pcieLinkWidth", "pcieWidth", "pcieCurrentLinkWidth"}},
               {{"pcieMaxLinkWidth", "pcieMaxWidth"}}}));
  if (!stmt.ok()) return;
  while (stmt->Step()) {
    const int64_t id =
        stmt->IsNull(kCudaId) ? stmt->Int64(kId) : stmt->Int64(kCudaId);
    Device& d = DeviceWithId(ctx.timeline, static_cast<int32_t>(id));
    if (!stmt->IsNull(kName)) d.name = std::string(stmt->Text(kName));
    if (!stmt->IsNull(kBus)) d.pci_bus_id = std::string(stmt->Text(kBus));
    d.memory_bytes = static_cast<uint64_t>(stmt->Int64(kMemory));
    d.sm_count = static_cast<uint32_t>(stmt->Int64(kSms));
    d.pcie_current_gts = GenerationToGts(stmt->Int64(kPcieGen));
    d.pcie_max_gts = GenerationToGts(stmt->Int64(kPcieMaxGen));
    d.pcie_current_width = static_cast<uint32_t>(stmt->Int64(kPcieWidth));
    d.pcie_max_width = static_cast<uint32_t>(stmt->Int64(kPcieMaxWidth));
  }
}

void ReadTargetInfoCudaDevice(ImportContext& ctx) {
  constexpr std::string_view kTable = "TARGET_INFO_CUDA_DEVICE";
  if (!ctx.db.HasTable(kTable)) return;
  auto stmt = ctx.db.Prepare(
      ctx.db.BuildSelect(kTable, {{{"cudaId"}}, {{"numMultiprocessors"}}}));
  if (!stmt.ok()) return;
  while (stmt->Step()) {
    if (stmt->IsNull(0)) continue;
    Device& d =
        DeviceWithId(ctx.timeline, static_cast<int32_t>(stmt->Int64(0)));
    if (d.sm_count == 0) d.sm_count = static_cast<uint32_t>(stmt->Int64(1));
  }
}

// The stream entry for (pid, context, stream), added when new.
StreamInfo& StreamWithId(Timeline& tl, int32_t pid, uint32_t context,
                         int64_t stream) {
  for (StreamInfo& s : tl.streams) {
    if (s.pid == pid && s.context == context && s.stream == stream) return s;
  }
  StreamInfo& s = tl.streams.emplace_back();
  s.pid = pid;
  s.context = context;
  s.stream = stream;
  return s;
}

// nsys stores CUPTI's CUpti_ActivityStreamFlag (ENUM_CUPTI_STREAM_TYPE),
// whose values 0-3 are StreamKind's.
StreamKind StreamKindOfFlag(int64_t flag) {
  const int64_t kind = flag & 0xFFFF;  // CUPTI_ACTIVITY_STREAM_CREATE_MASK
  return kind >= 0 && kind <= static_cast<int64_t>(StreamKind::kLegacyNull)
             ? static_cast<StreamKind>(kind)
             : StreamKind::kUnknown;
}

// Reads the rows of a stream table, selected as streamId, processId and
// contextId followed by `more`; `fill` sets the rest of each row's stream
// entry from the columns after those three (kFirstMoreColumn on).
enum { kStreamColumn, kPidColumn, kContextColumn, kFirstMoreColumn };
template <typename Fill>
void ReadStreamTable(ImportContext& ctx, std::string_view table,
                     const std::vector<WantedColumn>& more, Fill fill) {
  if (!ctx.db.HasTable(table)) return;
  std::vector<WantedColumn> wanted = {
      {{"streamId"}}, {{"processId"}}, {{"contextId"}}};
  wanted.insert(wanted.end(), more.begin(), more.end());
  auto stmt = ctx.db.Prepare(ctx.db.BuildSelect(table, wanted));
  if (!stmt.ok()) return;
  while (stmt->Step()) {
    if (stmt->IsNull(kStreamColumn)) continue;
    fill(StreamWithId(ctx.timeline,
                      static_cast<int32_t>(stmt->Int64(kPidColumn)),
                      static_cast<uint32_t>(stmt->Int64(kContextColumn)),
                      stmt->Int64(kStreamColumn)),
         *stmt);
  }
}

void ReadTargetInfoCudaStreams(ImportContext& ctx) {
  enum { kPriority = kFirstMoreColumn, kFlag };
  ReadStreamTable(
      ctx, "TARGET_INFO_CUDA_STREAM",
      {{{"priority"}}, {{"flag", "streamType"}}},
      [](StreamInfo& s, const Statement& row) {
        // Stored as CUPTI's unsigned field: 4294967291 is priority -5.
        s.priority =
            static_cast<int32_t>(static_cast<uint32_t>(row.Int64(kPriority)));
        s.kind = row.IsNull(kFlag) ? StreamKind::kUnknown
                                   : StreamKindOfFlag(row.Int64(kFlag));
      });
  enum { kDevice = kFirstMoreColumn };
  ReadStreamTable(ctx, "TARGET_INFO_CUDA_NULL_STREAM", {{{"deviceId"}}},
                  [](StreamInfo& s, const Statement& row) {
                    s.kind = StreamKind::kLegacyNull;
                    if (!row.IsNull(kDevice)) {
                      s.device = static_cast<int32_t>(row.Int64(kDevice));
                    }
                  });
}

}  // namespace

void ReadDevices(ImportContext& ctx) {
  ReadTargetInfoGpu(ctx);
  ReadTargetInfoCudaDevice(ctx);
  ReadTargetInfoCudaStreams(ctx);
}

void ReadProcessesAndThreads(ImportContext& ctx) {
  Timeline& tl = ctx.timeline;
  for (const GpuOp& op : tl.gpu_ops) DeviceWithId(tl, op.device);
  for (const SyncRecord& s : tl.syncs) DeviceWithId(tl, s.device);
  std::sort(tl.devices.begin(), tl.devices.end(),
            [](const Device& a, const Device& b) { return a.id < b.id; });

  // Processes and threads that have events, with their first/last event.
  std::map<int32_t, std::pair<TimeNs, TimeNs>> pids;
  std::set<std::pair<int32_t, int32_t>> threads;
  auto see = [&](int32_t pid, TimeNs start, TimeNs end) {
    auto [it, inserted] = pids.try_emplace(pid, start, end);
    if (!inserted) {
      it->second.first = std::min(it->second.first, start);
      it->second.second = std::max(it->second.second, end);
    }
  };
  for (const ApiCall& c : tl.api_calls) {
    see(c.pid, c.start, c.end);
    threads.emplace(c.pid, c.tid);
  }
  for (const GpuOp& op : tl.gpu_ops) see(op.pid, op.start, op.end);
  for (const Range& r : tl.ranges) {
    see(r.pid, r.start, r.end);
    threads.emplace(r.pid, r.tid);
  }
  for (const Mark& m : tl.marks) {
    see(m.pid, m.ts, m.ts);
    threads.emplace(m.pid, m.tid);
  }

  std::map<int32_t, std::string> process_names;
  if (ctx.db.HasTable("PROCESSES")) {
    auto stmt = ctx.db.Prepare(ctx.db.BuildSelect(
        "PROCESSES", {{{"globalPid"}}, {{"pid"}}, {{"name"}}}));
    if (stmt.ok()) {
      while (stmt->Step()) {
        const int32_t pid = stmt->IsNull(0)
                                ? static_cast<int32_t>(stmt->Int64(1))
                                : DecodeGlobalId(stmt->Int64(0)).pid;
        if (pids.count(pid) != 0) {
          process_names[pid] = std::string(stmt->Text(2));
        }
      }
    }
  }
  for (const auto& [pid, interval] : pids) {
    Process& p = tl.processes.emplace_back();
    p.pid = pid;
    p.start = interval.first;
    p.end = interval.second;
    p.trace_path = tl.source_path;
    auto it = process_names.find(pid);
    if (it != process_names.end()) p.command = it->second;
  }

  std::map<std::pair<int32_t, int32_t>, std::string> thread_names;
  if (ctx.db.HasTable("ThreadNames")) {
    auto stmt = ctx.db.Prepare(
        ctx.db.BuildSelect("ThreadNames", {{{"globalTid"}}, {{"nameId"}}}));
    if (stmt.ok()) {
      while (stmt->Step()) {
        const GlobalThreadId id = DecodeGlobalId(stmt->Int64(0));
        if (pids.count(id.pid) == 0) continue;
        threads.emplace(id.pid, id.tid);
        const std::optional<int64_t> name_id = stmt->OptionalInt64(1);
        if (name_id.has_value()) {
          thread_names[{id.pid, id.tid}] =
              std::string(ctx.strings.Text(*name_id));
        }
      }
    }
  }
  for (const auto& key : threads) {
    Thread& t = tl.threads.emplace_back();
    t.pid = key.first;
    t.tid = key.second;
    t.is_main = key.first == key.second;
    auto it = thread_names.find(key);
    if (it != thread_names.end()) t.name = it->second;
  }
}

}  // namespace feedprof::nsight
