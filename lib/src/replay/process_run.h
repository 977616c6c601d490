// One process as the what-if replays it: its model, its steps, and its
// step times measured from the recording or from a replay
// (docs/what-if.md, "Steps").
#ifndef FEEDPROF_REPLAY_PROCESS_RUN_H_
#define FEEDPROF_REPLAY_PROCESS_RUN_H_

#include <cstdint>
#include <utility>
#include <vector>

#include "feedprof/timeline.h"
#include "replay/replay_engine.h"
#include "replay/replay_model.h"

namespace feedprof::replay {

// A process's step times (or its span, one sample), in step order, with
// their median and mean.
struct Figures {
  std::vector<TimeNs> samples;
  TimeNs median = 0;
  TimeNs mean = 0;
};

// The figures of `samples`.
Figures FiguresOf(std::vector<TimeNs> samples);

// A scenario's median as the recorded one less the median of the steps'
// own savings, each step against its replay. Steps of two kinds (a long
// one every other step) put the median of the step times between two
// clusters, where a small change to either flips it from one to the
// other; each step's saving does not depend on which cluster the median
// falls in.
TimeNs PredictedMedian(const Figures& recorded, const Figures& replayed);

// One process as the what-if replays it.
struct ProcessRun {
  int32_t pid = 0;
  int32_t rank = -1;
  ReplayModel model;
  std::vector<std::pair<TimeNs, TimeNs>> steps;  // recorded [start, end]
  // Per step, the thread whose calls map its times: the thread the step's
  // range was recorded on when it makes CUDA calls, else the main one.
  std::vector<uint32_t> step_threads;
  // The ops of each step (those whose launching call started in its host
  // range), in ops() order: step k's are step_ops[step_first[k] ..
  // step_first[k + 1]). Empty without steps.
  std::vector<uint32_t> step_first;
  std::vector<uint32_t> step_ops;
  Figures observed;
  // What it waited inside collectives for later ranks, per step (or over
  // the span): 0 unless the ranks are coupled.
  TimeNs collective_wait = 0;
};

// Groups the ops by the step in which their launching call started.
void AssignOpsToSteps(ProcessRun* run);

// The step times (or span) of `run`, recorded (`times` null) or replayed.
// A step lasts the longer of its host range and the GPU time (busy union)
// of the work it launched: in a steady loop a host that runs ahead waits
// for the GPU.
Figures Measure(const ProcessRun& run, const ReplayEdits& edits,
                const ReplayTimes* times);

// |replayed - recorded| / recorded (1 when nothing was recorded but
// something replayed).
double RelativeError(TimeNs replayed, TimeNs recorded);

}  // namespace feedprof::replay

#endif  // FEEDPROF_REPLAY_PROCESS_RUN_H_
