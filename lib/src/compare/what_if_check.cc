// BEFORE's what-if against AFTER's measurement (WhatIfCheck in
// feedprof/compare.h): did the change that was made save what the replay
// said it would?
//
// The diff does not know which change was made, so it reads it from the
// runs: each scenario edits one kind of time (host wait for input, launch
// cost, one sync point group, pageable copies, kernel time), and the kind
// whose time fell most per unit names the scenario to hold against the
// measured step time. A fall under 1 % of BEFORE's step (or of a second)
// names none: noise, not a change.
#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compare/compare_passes.h"

namespace feedprof::compare {
namespace {

constexpr double kMinFallShare = 0.01;
constexpr size_t kFirstLongGapBucket = 2;  // gaps over 100 µs

// Host wait the input_ready scenario removes: in gaps over 100 µs, the
// launching thread on CPU, in I/O, waiting or without samples.
double InputWait(const Report& r) {
  double ns = 0;
  for (const DeviceReport& d : r.devices) {
    for (size_t b = kFirstLongGapBucket; b < kGapBuckets; ++b) {
      const IdleByCause& idle = d.gaps.by_bucket[b];
      ns += static_cast<double>(idle[IdleCause::kHostWaitOnCpu] +
                                idle[IdleCause::kHostWaitOffCpuIo] +
                                idle[IdleCause::kHostWaitOffCpuWait] +
                                idle[IdleCause::kHostWaitUnknown]);
    }
  }
  return ns;
}

// Time in launch calls: the median call times the calls, kernel launches
// and graph launches apart (a run that moved to CUDA graphs replaces many
// kernel launches by few graph launches).
double LaunchCallTime(const Report& r) {
  const LaunchStats& l = r.launch;
  return static_cast<double>(l.median_api_ns) *
             static_cast<double>(l.count - l.graph_launches) +
         static_cast<double>(l.median_graph_launch_api_ns) *
             static_cast<double>(l.graph_launches);
}

double ComputeTime(const Report& r) {
  double ns = 0;
  for (const DeviceReport& d : r.devices) {
    ns += static_cast<double>(d.compute_ns);
  }
  return ns;
}

double Fall(const PerUnit& per, double before, double after) {
  return -per.Of(before, after).delta;
}

bool SameGroup(const ScenarioCheck& s, const CauseFall& f) {
  return s.sync_api == f.sync_api && s.sync_call_site == f.sync_call_site &&
         (s.sync_reason.empty() || s.sync_reason == f.sync_reason);
}

std::vector<CauseFall> Falls(const Comparison& c, const PerUnit& per) {
  const Report& b = c.before_report;
  const Report& a = c.after_report;
  std::vector<CauseFall> falls;
  falls.push_back({WhatIfScenarioId::kInputReady, "", "", "",
                   "host wait for input in gaps over 100 µs",
                   Fall(per, InputWait(b), InputWait(a))});
  const double overhead =
      -c.idle.causes[static_cast<size_t>(IdleCause::kLaunchOverhead)]
           .per_unit_ns.delta;
  const double calls = Fall(per, LaunchCallTime(b), LaunchCallTime(a));
  falls.push_back(
      {WhatIfScenarioId::kCheaperLaunches, "", "", "",
       overhead >= calls ? "launch-overhead idle" : "time in launch calls",
       std::max(overhead, calls)});
  // Host-blocking sync point groups of either run.
  using Key = std::tuple<std::string, std::string, std::string>;
  std::map<Key, bool> blocks_host;
  for (const Report* r : {&b, &a}) {
    for (const SyncPoint& p : r->sync_points) {
      blocks_host[Key(p.api, p.reason, p.call_site)] |= p.blocks_host;
    }
  }
  double all_blocked = 0;
  for (const SyncPointChange& s : c.syncs.points) {
    if (!blocks_host[Key(s.api, s.reason, s.call_site)]) continue;
    all_blocked -= s.blocked_per_unit_ns.delta;
    falls.push_back(
        {WhatIfScenarioId::kRemoveSync, s.api, s.reason, s.call_site,
         absl::StrCat("time blocked in ", s.api,
                      s.call_site.empty() ? "" : " at ", s.call_site),
         -s.blocked_per_unit_ns.delta});
  }
  // After the groups: where one group's fall is all of it, the group is
  // named (the sort below keeps this order among equals).
  falls.push_back({WhatIfScenarioId::kRemoveAllSyncs, "", "", "",
                   "time blocked in every host sync", all_blocked});
  double pageable = 0;
  for (const CopyDirectionChange& d : c.copies.directions) {
    if (!CrossesHostLink(d.direction)) continue;
    if (d.pageable_share.delta >= 0) continue;
    pageable += d.time_per_unit_ns.before * d.pageable_share.before -
                d.time_per_unit_ns.after * d.pageable_share.after;
  }
  falls.push_back({WhatIfScenarioId::kPinCopies, "", "", "",
                   "pageable copy time", pageable});
  falls.push_back({WhatIfScenarioId::kFasterGpu, "", "", "",
                   "kernel (compute) time",
                   Fall(per, ComputeTime(b), ComputeTime(a))});
  std::stable_sort(falls.begin(), falls.end(),
                   [](const CauseFall& x, const CauseFall& y) {
                     return x.fall_per_unit_ns > y.fall_per_unit_ns;
                   });
  return falls;
}

}  // namespace

WhatIfCheck CompareWhatIf(const Comparison& c, const PerUnit& per) {
  WhatIfCheck check;
  const WhatIf& w = c.before_report.what_if;
  check.available = w.available;
  if (!w.available) {
    check.unavailable_reason = w.unavailable_reason;
    return check;
  }
  check.basis = w.basis;
  const StepTimeComparison& s = c.step_time;
  if (w.basis != WhatIfBasis::kSteps) {
    check.not_comparable_reason =
        "BEFORE's what-if predicts the span of a run without steps, and "
        "spans of runs of different lengths do not compare";
  } else if (!s.available || !s.median_ns.relative) {
    check.not_comparable_reason = "the runs do not both have steps";
  } else {
    check.measured_comparable = true;
    check.measured_change = *s.median_ns.relative;
  }
  for (const WhatIfScenario& scenario : w.scenarios) {
    ScenarioCheck k;
    k.scenario = scenario.id;
    k.title = scenario.title;
    k.sync_api = scenario.sync_api;
    k.sync_reason = scenario.sync_reason;
    k.sync_call_site = scenario.sync_call_site;
    k.edits = scenario.edits;
    k.predicted_median_ns = scenario.predicted_median_ns;
    // 0, not -0, for a scenario that saves nothing.
    k.predicted_change = 0.0 - scenario.saving_share;
    check.scenarios.push_back(std::move(k));
  }
  check.falls = Falls(c, per);
  const double unit_ns =
      c.unit == "step" ? static_cast<double>(s.before.median_ns) : 1e9;
  check.min_fall_per_unit_ns = kMinFallShare * unit_ns;
  check.has_largest_fall =
      !check.falls.empty() &&
      check.falls.front().fall_per_unit_ns >= check.min_fall_per_unit_ns &&
      check.falls.front().fall_per_unit_ns > 0;
  if (!check.has_largest_fall) return check;
  const CauseFall& top = check.falls.front();
  for (ScenarioCheck& k : check.scenarios) {
    if (k.scenario != top.scenario) continue;
    if (k.scenario == WhatIfScenarioId::kRemoveSync && !SameGroup(k, top)) {
      continue;
    }
    k.matches_largest_fall = true;
    break;
  }
  return check;
}

}  // namespace feedprof::compare
