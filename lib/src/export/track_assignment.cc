// Which pid and tid every track of the export gets.
//
// Kineto puts a device's work in pid = device id, tid = stream id, and
// readers of Kineto traces (feedprof's own, HTA, TensorBoard) expect that.
// Host processes keep their pids and threads their tids. Two things would
// break it: a host pid equal to a device id, and two processes using the
// same device id (a multi-process session), whose streams would then share
// tracks. In both cases the device gets a fresh pid (labelled "GPU N" all
// the same, with the device id in every op's args). Tracks feedprof adds —
// scheduler state, overflow lanes, idle gaps, sync records — get ids from
// one counter above every real pid and tid.
#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"
#include "analysis/call_site_text.h"
#include "export/export_context.h"

namespace feedprof::exporter {

void AssignTracks(ExportContext& ctx) {
  const Timeline& tl = ctx.tl;
  int64_t max_id = 0;
  std::set<int64_t> host_pids;
  for (const Process& p : tl.processes) {
    max_id = std::max<int64_t>(max_id, p.pid);
    host_pids.insert(p.pid);
  }
  for (const Thread& t : tl.threads) max_id = std::max<int64_t>(max_id, t.tid);
  for (const ApiCall& c : tl.api_calls) {
    max_id = std::max<int64_t>({max_id, c.pid, c.tid});
    host_pids.insert(c.pid);
  }
  for (const Range& r : tl.ranges) {
    max_id = std::max<int64_t>({max_id, r.pid, r.tid});
    host_pids.insert(r.pid);
  }
  for (const GpuOp& op : tl.gpu_ops) {
    max_id = std::max<int64_t>({max_id, op.device, op.stream});
  }
  for (const SyncRecord& s : tl.syncs) {
    max_id = std::max<int64_t>({max_id, s.device, s.stream});
  }
  ctx.next_track_id = max_id + 1;

  // Devices in the order of first use by a selected process.
  std::set<int64_t> taken;
  auto assign = [&](int32_t pid, int32_t device) {
    if (!ctx.Selected(pid) || ctx.gpu_pid.count({pid, device}) != 0) return;
    int64_t id = device;
    if (device < 0 || host_pids.count(device) != 0 ||
        taken.count(device) != 0) {
      id = ctx.NewTrackId();
    }
    taken.insert(id);
    ctx.gpu_pid[{pid, device}] = id;
  };
  for (const Device& d : tl.devices) {
    if (d.pid >= 0) assign(d.pid, d.id);
  }
  for (const GpuOp& op : tl.gpu_ops) assign(op.pid, op.device);
  for (const SyncRecord& s : tl.syncs) assign(s.pid, s.device);
  for (const CounterSample& c : tl.counters) assign(c.pid, c.device);

  ctx.launches.reserve(tl.api_calls.size());
  for (uint32_t i = 0; i < tl.api_calls.size(); ++i) {
    const ApiCall& c = tl.api_calls[i];
    if (c.correlation == 0 || !ctx.Selected(c.pid)) continue;
    // Calls are sorted by start: the first one is the outermost (a runtime
    // launch before the driver launch inside it).
    ctx.launches.try_emplace({c.pid, c.correlation}, i);
  }
  ctx.api_track.assign(tl.api_calls.size(), -1);

  std::unordered_map<uint64_t, int32_t> owner;
  std::set<int32_t> calling_pids;
  bool shared = false;
  for (const auto& [key, index] : ctx.launches) {
    calling_pids.insert(key.first);
    auto [it, fresh] = owner.emplace(key.second, key.first);
    shared |= !fresh && it->second != key.first;
  }
  if (shared) {
    uint64_t k = 0;
    for (int32_t pid : calling_pids) ctx.correlation_offset[pid] = k++ << 40;
  }
}

void ExportContext::EnsureProcessName(int64_t pid) {
  if (!named_pids.insert(pid).second) return;
  WriteNameMetadata(out, "process_name", pid, 0, absl::StrCat("process ", pid));
}

void WriteNameMetadata(TraceEventWriter& out, std::string_view what,
                       int64_t pid, int64_t tid, std::string_view name) {
  out.Begin("M", "", what, pid, tid);
  out.BeginArgs();
  out.Arg(what == "process_labels" ? "labels" : "name", name);
  out.EndArgs();
  out.End();
}

void WriteSortIndex(TraceEventWriter& out, std::string_view what, int64_t pid,
                    int64_t tid, int64_t index) {
  out.Begin("M", "", what, pid, tid);
  out.BeginArgs();
  out.Arg("sort_index", index);
  out.EndArgs();
  out.End();
}

}  // namespace feedprof::exporter
