// Attributes every idle gap of a device to a cause (docs/metrics.md).
//
// A gap [a, b] ends when some op starts; the call L that launched it says
// why the GPU waited: if the host only began issuing it after the GPU ran
// dry (L.start ≥ a) the host was late, and what the launching thread did in
// [a, L.start] — blocked in a sync, in other CUDA calls, running, off-CPU in
// I/O or waiting — is the next question; the time after L.start is launch
// overhead; work submitted before the GPU went idle (L.end ≤ a) waited in
// the queue, as did the later kernels of a graph launch (only the graph's
// first kernel is the launch's own). Thread samples (cumulative CPU time and
// state) split the time outside CUDA calls; without them it is "unknown", never
// guessed.
#ifndef FEEDPROF_ANALYSIS_IDLE_GAP_CLASSIFIER_H_
#define FEEDPROF_ANALYSIS_IDLE_GAP_CLASSIFIER_H_

#include <functional>

#include "analysis/device_busy.h"
#include "analysis/prepared_timeline.h"
#include "feedprof/analysis_report.h"

namespace feedprof::analysis {

// Calls `visit` for every idle gap of `device`, in time order.
void ForEachGapOf(const PreparedTimeline& prepared, const DeviceView& device,
                  const BusyIntervals& busy,
                  const std::function<void(const IdleGap&)>& visit);

// Fills `gaps` (count, histogram, per-bucket causes, after-sync causes) and
// returns the idle time by cause over all gaps of `device`. `also_visit`,
// when set, sees every gap too (the timeline overview), so the gaps are
// classified once.
IdleByCause ClassifyIdleGaps(
    const PreparedTimeline& prepared, const DeviceView& device,
    const BusyIntervals& busy, GapStats* gaps,
    const std::function<void(const IdleGap&)>& also_visit = {});

// What `thread` did during [t0, t1]: adds the split into `out` (host-wait
// causes only). Exposed for the host statistics and tests. Returns true when
// a sync call overlapped the interval.
bool SplitHostWait(const PreparedTimeline& prepared, const ThreadView* thread,
                   TimeNs t0, TimeNs t1, IdleByCause* out);

}  // namespace feedprof::analysis

#endif  // FEEDPROF_ANALYSIS_IDLE_GAP_CLASSIFIER_H_
