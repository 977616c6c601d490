// The what-if replay's peak memory, estimated before anything is built.
//
// On a trace of tens of millions of events the replay's models and the
// arrays each replaying thread fills take gigabytes on top of the timeline
// and the analysis' views (docs/big-traces.md): a machine without that
// much to spare would swap, or the OOM killer would end the analysis, and
// the whole report would be lost for a part of it. So ComputeWhatIf counts
// what the models will hold, estimates the peak from the sizes of the
// structures the replay allocates, and replays on as many threads as fit
// in the memory available, or not at all (docs/what-if.md).
//
// The estimate is the models (kept until the scenarios are done) plus the
// largest of three stages: the build's transient indexes; the edits of
// input_ready and pin_copies, built for every process before the replay,
// with the busy intervals input_ready finds its gaps with (those come
// before the models and the edits after the views are freed, so counting
// them together stays on the safe side); and those edits, still held,
// beside what the replaying threads hold at once: each its replayed
// times, sized to the largest process, and the scratch of the job it runs
// (a scenario's edits), the heaviest jobs at once. The views the replay
// frees are not counted against it: the estimate stays on the safe side.
// The sizes are those of the structures in replay_model.h and
// replay_engine.h; docs/what-if.md gives the estimate beside the peak
// measured on big traces.
#ifndef FEEDPROF_REPLAY_REPLAY_MEMORY_H_
#define FEEDPROF_REPLAY_REPLAY_MEMORY_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "analysis/prepared_timeline.h"

namespace feedprof::replay {

// What the models of the replayed processes will hold.
struct ReplayCounts {
  uint64_t processes = 0;
  uint64_t calls = 0;           // top-level CUDA calls of their threads
  uint64_t blocking_calls = 0;  // of which block the host
  uint64_t ops = 0;             // GPU ops, those launched before recording too
  // The most calls, and the most ops, of one process: each replaying
  // thread's arrays grow to the largest process's size.
  uint64_t largest_calls = 0;
  uint64_t largest_blocking_calls = 0;
  uint64_t largest_ops = 0;
  // Every process's model maps the timeline's ops to its own, and while it
  // is built, the timeline's calls (TimelineIndexMap): their bytes, all
  // processes together.
  uint64_t op_index_bytes = 0;
  uint64_t call_index_bytes = 0;
};

// Whether every process's calls and ops fit a model's indices (ReplayEvent::
// kMaxIndex).
bool FitsTheModel(const ReplayCounts& counts);

// The counts for the models of processes `pids` of `prepared`.
ReplayCounts CountReplayEvents(const analysis::PreparedTimeline& prepared,
                               const std::vector<int32_t>& pids);

struct ReplayMemoryEstimate {
  uint64_t model_bytes = 0;  // the models, for the whole replay
  uint64_t build_bytes = 0;  // the build's transient indexes
  uint64_t times_bytes = 0;  // each replaying thread's replayed times
  // input_ready's and pin_copies' edits of every process, built before the
  // replay and held until their jobs take them.
  uint64_t held_edit_bytes = 0;
  // The busy intervals input_ready finds its gaps with.
  uint64_t edit_build_bytes = 0;
  // Each replay job's scratch beyond the times, largest first.
  std::vector<uint64_t> job_bytes;
  // The peak with `threads` replaying threads.
  uint64_t PeakBytes(size_t threads) const;
};

// The estimate for models with `counts` replayed with one remove_sync
// scenario for each of `sync_groups` groups.
ReplayMemoryEstimate EstimateReplayMemory(const ReplayCounts& counts,
                                          size_t sync_groups);

// The share of the available memory the replay's estimated peak may take:
// the rest is headroom for the estimate's error and everything else on
// the machine.
inline constexpr double kReplayMemoryShare = 0.8;

// The most replaying threads, at most `max_threads` (at least 1), whose
// peak fits in kReplayMemoryShare of `available_bytes`; 0 when not even one
// thread fits.
size_t ReplayThreadsThatFit(const ReplayMemoryEstimate& estimate,
                            uint64_t available_bytes, size_t max_threads);

}  // namespace feedprof::replay

#endif  // FEEDPROF_REPLAY_REPLAY_MEMORY_H_
