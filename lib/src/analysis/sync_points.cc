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
#include <algorithm>
#include <limits>
#include <map>
#include <string>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "analysis/analysis_passes.h"

namespace feedprof::analysis {
namespace {

std::string CallSiteText(const Timeline& tl, uint32_t id) {
  if (id == 0 || id >= tl.call_sites.size()) return "";
  const CallSite& site = tl.call_sites[id];
  if (site.frames.empty()) return "";
  const Frame& f = site.frames.front();
  std::string text(tl.strings.Get(f.function));
  const std::string file(tl.strings.Get(f.file));
  if (!file.empty()) {
    const std::string where = absl::StrCat(file, ":", f.line);
    text = text.empty() ? where : absl::StrCat(text, " (", where, ")");
  }
  return text;
}

struct Group {
  uint64_t count = 0;
  TimeNs blocked = 0;
  TimeNs idle_after = 0;
};

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
  std::map<std::tuple<StringId, SyncReason, std::string>, Group> groups;
  for (const ThreadView& thread : prepared.threads()) {
    const BusyIntervals* device = PrimaryBusyOf(busy, thread.pid);
    // Idle already given to an earlier sync of this thread: a run of syncs
    // (cudaFree after cudaFree) shares one idle stretch, counted once, for
    // the first of them.
    TimeNs counted_until = std::numeric_limits<TimeNs>::min();
    for (const ThreadCall& call : thread.calls) {
      if (call.sync == SyncReason::kNone) continue;
      const ApiCall& named = tl.api_calls[call.sync_api];
      const ApiCall& outer = tl.api_calls[call.api];
      const uint32_t site =
          outer.call_site != 0 ? outer.call_site : named.call_site;
      // Grouped by the call site as printed: traces give every call its own
      // site id even where the frame is the same.
      Group& g = groups[{named.name, call.sync, CallSiteText(tl, site)}];
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
  const auto wall = static_cast<double>(
      std::max<TimeNs>(1, prepared.window().end - prepared.window().start));
  for (const auto& [key, g] : groups) {
    SyncPoint p;
    p.api = std::string(tl.strings.Get(std::get<0>(key)));
    p.kind = SyncKindOf(std::get<1>(key));
    p.reason = SyncReasonText(std::get<1>(key));
    p.call_site = std::get<2>(key);
    p.count = g.count;
    p.blocked_ns = g.blocked;
    p.wall_share = static_cast<double>(g.blocked) / wall;
    p.idle_after_ns = g.idle_after;
    result.points.push_back(std::move(p));
  }
  std::stable_sort(result.points.begin(), result.points.end(),
                   [](const SyncPoint& a, const SyncPoint& b) {
                     return a.blocked_ns > b.blocked_ns;
                   });
  return result;
}

}  // namespace feedprof::analysis
