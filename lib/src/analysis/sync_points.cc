// Sync points: host calls that blocked until the GPU caught up.
//
// Every such call drains the GPU queue: the GPU goes idle when it finishes
// what was queued and stays idle until the host, released, issues more. The
// calls are classified by API name (api_classifier.h), grouped by (API,
// reason, call site) so a report names the line to change, and each group
// carries the GPU idle that followed it: idle time of the process's main
// device from the call's start to the first activity after it returned,
// each idle stretch counted once per thread (for the first sync of a run of
// syncs), so the figures add up to no more than the span.
//
// One hidden sync point is device-side: work issued to the legacy default
// (NULL) stream waits for all earlier work of every blocking stream of its
// context, and later blocking-stream work waits for it. The host is not
// blocked, the GPU is serialized; such operations are reported in the same
// groups, named by their launching call, with `blocked` meaning how long
// each was held back by other streams' work (docs/metrics.md), and are
// listed after the host-blocking groups.
#include <algorithm>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "analysis/analysis_passes.h"
#include "analysis/device_busy.h"
#include "analysis/sync_group.h"

namespace feedprof::analysis {
namespace {

struct Group {
  uint64_t count = 0;
  TimeNs blocked = 0;
  TimeNs idle_after = 0;
};
using GroupKey = SyncGroupKey;

bool IsBlockingStream(StreamKind kind) {
  return kind == StreamKind::kDefaultBlocking || kind == StreamKind::kPerThread;
}

// Counts, in `groups`, every GPU op on a legacy default stream whose
// context has another blocking stream with work in the window. Blocked time of
// an op: the part of [ready, start] during which other blocking streams of its
// context ran work, where ready is the later of its launch call's start and
// the end of the previous op of its own stream (the op's start itself when
// neither is known). Streams the trace does not describe, and GpuOp stream
// ids that two contexts of one process share, are left out.
void AddLegacyDefaultStreamWork(const PreparedTimeline& prepared,
                                std::map<GroupKey, Group>* groups) {
  const Timeline& tl = prepared.timeline();
  // Most traces describe no legacy stream next to a blocking one: skip the
  // per-op lookups for them.
  const auto has = [&tl](auto&& predicate) {
    return std::any_of(tl.streams.begin(), tl.streams.end(),
                       [&](const StreamInfo& s) { return predicate(s.kind); });
  };
  if (!has([](StreamKind k) { return k == StreamKind::kLegacyNull; }) ||
      !has(IsBlockingStream)) {
    return;
  }
  // (pid, stream) -> index into tl.streams; -1 where ambiguous.
  std::map<std::pair<int32_t, int64_t>, int64_t> described;
  for (size_t i = 0; i < tl.streams.size(); ++i) {
    const StreamInfo& s = tl.streams[i];
    auto [it, inserted] =
        described.try_emplace({s.pid, s.stream}, static_cast<int64_t>(i));
    if (!inserted && it->second >= 0 &&
        tl.streams[static_cast<size_t>(it->second)].context != s.context) {
      it->second = -1;
    }
  }
  struct ContextWork {
    std::vector<const OpRef*> legacy;  // by start
    std::vector<OpRef> others;         // other blocking streams, by start
  };
  for (const DeviceView& device : prepared.devices()) {
    std::map<uint32_t, ContextWork> contexts;
    for (const OpRef& op : device.ops) {
      PrefetchOpAhead(tl.gpu_ops, device.ops, op);
      const GpuOp& g = tl.gpu_ops[op.op];
      const auto it = described.find({g.pid, g.stream});
      if (it == described.end() || it->second < 0) continue;
      const StreamInfo& s = tl.streams[static_cast<size_t>(it->second)];
      if (s.kind == StreamKind::kLegacyNull) {
        contexts[s.context].legacy.push_back(&op);
      } else if (IsBlockingStream(s.kind)) {
        contexts[s.context].others.push_back(op);
      }
    }
    for (const auto& entry : contexts) {
      const ContextWork& work = entry.second;
      if (work.legacy.empty()) continue;
      // The same union as device busy time, over the other streams' work.
      const BusyIntervals others(work.others);
      if (others.busy() == 0) continue;
      bool has_previous = false;
      TimeNs previous_end = 0;
      for (const OpRef* op : work.legacy) {
        bool known = has_previous;
        TimeNs ready = previous_end;
        StringId name = 0;
        uint32_t site = 0;
        if (op->api >= 0) {
          const auto api = static_cast<uint32_t>(op->api);
          const ApiCall& launch = tl.api_calls[api];
          ready = known ? std::max(ready, launch.start) : launch.start;
          known = true;
          name = launch.name;
          site = launch.call_site;
          const int32_t top = prepared.TopOf(api);
          if (site == 0 && top >= 0) {
            site = tl.api_calls[static_cast<size_t>(top)].call_site;
          }
        }
        Group& g =
            (*groups)[{name, SyncReason::kLegacyDefaultStream,
                       CallSiteText(tl, site, prepared.user_code()), site}];
        ++g.count;
        if (known) g.blocked += others.BusyIn(ready, op->start);
        previous_end = has_previous ? std::max(previous_end, op->end) : op->end;
        has_previous = true;
      }
    }
  }
}

}  // namespace

SyncPointResult ComputeSyncPoints(const PreparedTimeline& prepared,
                                  const std::vector<DeviceBusy>& busy) {
  const Timeline& tl = prepared.timeline();
  SyncPointResult result;
  // GPU-side waits: one per outermost cudaStreamWaitEvent (the driver call
  // inside it is the same wait).
  for (uint32_t index : prepared.api_in_window()) {
    const ApiCall& c = tl.api_calls[index];
    if (prepared.ClassOf(c) != ApiClass::kStreamWaitEvent) continue;
    const int32_t top = prepared.TopOf(index);
    if (top == static_cast<int32_t>(index) ||
        prepared.ClassOf(tl.api_calls[static_cast<size_t>(top)]) !=
            ApiClass::kStreamWaitEvent) {
      ++result.gpu_side_waits;
    }
  }
  // Sync points: the thread's top-level calls, so a runtime sync and the
  // driver sync it made are one sync point, blocked once, named by the
  // outermost blocking call.
  std::map<GroupKey, Group> groups;
  for (const ThreadView& thread : prepared.threads()) {
    const BusyIntervals* device = PrimaryBusyOf(busy, thread.pid);
    // Idle already given to an earlier sync of this thread: a run of syncs
    // (cudaFree after cudaFree) shares one idle stretch, counted once, for
    // the first of them.
    TimeNs counted_until = std::numeric_limits<TimeNs>::min();
    for (const ThreadCall& call : thread.calls) {
      if (call.sync == SyncReason::kNone) continue;
      Group& g = groups[SyncGroupOf(prepared, call)];
      ++g.count;
      g.blocked += call.end - call.start;
      if (device != nullptr && device->busy() > 0) {
        const TimeNs next = device->NextBusyAtOrAfter(call.end);
        const TimeNs until =
            next >= 0 ? next : std::max(call.start, device->span_end());
        // Idle counts only inside the device's span: before its first op
        // the GPU had not started, which is no drain.
        const TimeNs from =
            std::max({call.start, device->span_start(), counted_until});
        if (until > from) {
          g.idle_after += (until - from) - device->BusyIn(from, until);
          counted_until = until;
        }
      }
    }
  }
  AddLegacyDefaultStreamWork(prepared, &groups);
  const auto wall = static_cast<double>(
      std::max<TimeNs>(1, prepared.window().end - prepared.window().start));
  for (const auto& [key, g] : groups) {
    SyncPoint p;
    p.blocks_host = key.reason != SyncReason::kLegacyDefaultStream;
    p.api = std::string(tl.strings.Get(key.api));
    if (p.api.empty() && !p.blocks_host) p.api = "(launch call not in trace)";
    p.kind = SyncKindOf(key.reason);
    p.reason = SyncReasonText(key.reason);
    p.call_site = key.call_site;
    p.call_stack = CallStackText(tl, key.site);
    p.count = g.count;
    p.blocked_ns = g.blocked;
    p.wall_share = static_cast<double>(g.blocked) / wall;
    p.idle_after_ns = g.idle_after;
    result.points.push_back(std::move(p));
  }
  // Host-blocking groups first, then device-side serialization.
  std::stable_sort(result.points.begin(), result.points.end(),
                   [](const SyncPoint& a, const SyncPoint& b) {
                     if (a.blocks_host != b.blocks_host) return a.blocks_host;
                     return a.blocked_ns > b.blocked_ns;
                   });
  return result;
}

}  // namespace feedprof::analysis
