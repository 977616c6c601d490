// The what-if scenarios as edits of a ReplayModel (docs/what-if.md). Each
// function returns the edits of one scenario; ReplayEdits::edits counts what
// it changed (0: the scenario has nothing to change in this process).
#ifndef FEEDPROF_REPLAY_SCENARIOS_H_
#define FEEDPROF_REPLAY_SCENARIOS_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "analysis/input_production.h"
#include "analysis/prepared_timeline.h"
#include "replay/replay_engine.h"
#include "replay/replay_model.h"

namespace feedprof::replay {

// Input ready: in every idle gap of the process's devices, the launching
// thread's host wait that the preprocessing and I/O rules count (on-CPU and
// unknown time in gaps over 100 µs, off-CPU I/O and waiting in any gap; not
// the refill after a sync) is cut from the host time before the launch.
//
// In two steps, so that neither the edits (8 bytes per call of the
// process) nor the devices' busy intervals the gaps are found with are
// held beside both the analysis' views and the models: InputWaits reads
// process `pid`'s gaps from the views before the models are built,
// InputReadyEdits turns what it found into edits once the views are freed.
struct InputWait {
  uint32_t ending_op = 0;  // the timeline's op that ended the gap
  TimeNs gap_start = 0;
  TimeNs host_wait_end = 0;
  TimeNs wait_ns = 0;  // the host wait the rules count
};
std::vector<InputWait> InputWaits(const analysis::PreparedTimeline& prepared,
                                  int32_t pid);
// Beside the waits, the host time each thread of the model spent
// producing input itself (`production`: DataLoader operators run inline,
// annotations named for loading input, data-loading code; analysis/
// input_production.h) is cut from the gap between the calls it lies in,
// wherever the GPU was: with the batch ready, the thread would not have
// made it. A gap loses the larger of its two cuts.
ReplayEdits InputReadyEdits(const ReplayModel& model,
                            const std::vector<InputWait>& waits,
                            const analysis::InputProduction& production);
// The host time of `production` on the threads of `model` between their
// first and last CUDA calls: what InputReadyEdits can cut of it.
TimeNs InputProductionTime(const ReplayModel& model,
                           const analysis::InputProduction& production);

// Cheaper launches: every kernel launch call (graph launches aside) costs
// `cost_ns`, or `fraction` of its recorded time when set; never more than
// it cost.
ReplayEdits CheaperLaunchEdits(const ReplayModel& model, TimeNs cost_ns,
                               std::optional<double> fraction);

// A sync point group removed: its calls return after their wake-up time
// (their own time when they did not block) instead of waiting.
ReplayEdits RemoveSyncEdits(const ReplayModel& model, int32_t group);

// Every host-blocking call (a sync, a blocking copy or memset, an
// allocation that synchronized) returns after its wake-up time (its own
// time when it did not block) instead of waiting.
ReplayEdits RemoveAllSyncEdits(const ReplayModel& model);

// Pageable copies pinned: each copy from or to pageable host memory takes
// bytes / bandwidth of its direction (GB/s = bytes per ns), and its call,
// when it blocked, returns after `async_call_ns` like an async copy.
ReplayEdits PinCopiesEdits(const Timeline& timeline, const ReplayModel& model,
                           double htod_gbps, double dtoh_gbps,
                           TimeNs async_call_ns);

// Faster GPU: every kernel `speedup` (0.2: 20 %) shorter.
ReplayEdits FasterGpuEdits(const ReplayModel& model, double speedup);

}  // namespace feedprof::replay

#endif  // FEEDPROF_REPLAY_SCENARIOS_H_
