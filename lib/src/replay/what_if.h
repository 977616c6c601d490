// The what-if section of the report: every scenario replayed on every
// process that ran GPU work, with the self-check that makes the
// predictions worth reading (docs/what-if.md).
#ifndef FEEDPROF_REPLAY_WHAT_IF_H_
#define FEEDPROF_REPLAY_WHAT_IF_H_

#include <string>
#include <vector>

#include "analysis/analysis_passes.h"
#include "analysis/prepared_timeline.h"
#include "feedprof/analysis_report.h"
#include "feedprof/timeline.h"
#include "replay/replay_memory.h"

namespace feedprof::replay {

// cheaper_launches without a given cost: what one kernel costs the host
// when a captured CUDA graph replays it (docs/what-if.md gives the source).
inline constexpr TimeNs kGraphKernelLaunchNs = 1'000;
// The unedited replay must reproduce the recording this closely.
inline constexpr double kSelfCheckTolerance = 0.02;

// What the replay of `report` over `prepared` will model: the processes
// that ran GPU work, in device order; the host-blocking sync groups
// replayed one at a time, longest first; what their models will hold, and
// the memory estimate ComputeWhatIf decides by (replay_memory.h).
struct ReplayPlan {
  std::vector<int32_t> pids;
  std::vector<SyncPoint> groups;
  ReplayCounts counts;
  ReplayMemoryEstimate estimate;
};
ReplayPlan PlanReplay(const analysis::PreparedTimeline& prepared,
                      const Report& report, const WhatIfOptions& options);

// The what-if of `report` (its devices, steps and sync points are final)
// over `prepared`, the timeline the report was computed from. Once the
// replay's models and the edits that read the views are built, it frees
// `prepared`'s views (PreparedTimeline::ReleaseViews), so nothing may read
// them after it; where it returns before that (the what-if off, nothing to
// replay, too little memory, a process it cannot model) they are left as
// they are. Before it measures the memory left for the replay, it lets
// `prepared` free the timeline's events that it does not read
// (PreparedTimeline::ReleaseUnreplayedEvents: only where the timeline's
// owner allowed it).
WhatIf ComputeWhatIf(analysis::PreparedTimeline& prepared, const Report& report,
                     const WhatIfOptions& options);

}  // namespace feedprof::replay

#endif  // FEEDPROF_REPLAY_WHAT_IF_H_
