// Sync points: host calls that blocked until the GPU caught up.
//
// Every such call drains the GPU queue: the GPU goes idle when it finishes
// what was queued and stays idle until the host, released, issues more. The
// calls are classified by API name (api_classifier.h), grouped by (API,
// reason, call site) so a report names the line to change, and each group
// carries the GPU idle that followed it: idle time of the process's main
// device from the call's start to the first activity after it returned.
#include <algorithm>
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
  std::map<std::tuple<StringId, SyncReason, uint32_t>, Group> groups;
  int32_t cached_pid = 0;
  const BusyIntervals* device = nullptr;
  bool have_cached = false;
  for (uint32_t index : prepared.api_in_window()) {
    const ApiCall& c = tl.api_calls[index];
    if (prepared.ClassOf(c) == ApiClass::kStreamWaitEvent) {
      ++result.gpu_side_waits;
      continue;
    }
    const SyncReason reason = prepared.SyncReasonOf(index);
    if (reason == SyncReason::kNone) continue;
    if (!have_cached || cached_pid != c.pid) {
      device = PrimaryBusyOf(busy, c.pid);
      cached_pid = c.pid;
      have_cached = true;
    }
    Group& g = groups[{c.name, reason, c.call_site}];
    ++g.count;
    g.blocked += c.end - c.start;
    if (device != nullptr && device->busy() > 0) {
      const TimeNs next = device->NextBusyAtOrAfter(c.end);
      const TimeNs until =
          next >= 0 ? next : std::max(c.start, device->span_end());
      // Idle counts only inside the device's span: before its first op the
      // GPU had not started, which is no drain.
      const TimeNs from = std::max(c.start, device->span_start());
      if (until > from) {
        g.idle_after += (until - from) - device->BusyIn(from, until);
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
    p.call_site = CallSiteText(tl, std::get<2>(key));
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
