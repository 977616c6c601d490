// Replays a ReplayModel with one scenario's edits: recomputes when every
// call and op of the process would start and end (docs/what-if.md).
//
// One pass over the model's event order. A call starts when the previous
// call of its thread has ended and the host time between them has passed;
// a blocking call ends when the last op it waits for ends (plus the time it
// took to wake up); an op starts at the latest of its constraints. Edits
// shorten host time, calls and ops, or let a blocking call stop waiting; the
// order of events is the recorded one, so a replay allocates only its
// result arrays.
#ifndef FEEDPROF_REPLAY_REPLAY_ENGINE_H_
#define FEEDPROF_REPLAY_REPLAY_ENGINE_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "replay/replay_model.h"

namespace feedprof::replay {

// One scenario's changes to the model. Each vector is empty (no change) or
// has one entry per call, per blocking call (by ReplayCall::wait) or per
// op; -1 (kKeep) keeps the recorded value.
struct ReplayEdits {
  static constexpr TimeNs kKeep = -1;
  std::vector<TimeNs> call_ns;  // duration of a non-blocking call
  // Host time cut from the gap before it; for a thread's first call, from
  // the time before it (the call starts that much earlier).
  std::vector<TimeNs> gap_cut_ns;
  std::vector<TimeNs> no_wait_ns;  // per wait: it no longer waits; its cost
  std::vector<TimeNs> op_ns;       // duration of an op
  uint64_t edits = 0;              // calls, gaps and ops changed
};

// A replay's result. Only the starts are kept, and the ends of blocking
// calls: every other end is its start plus its (edited) duration, which
// ReplayedCallEnd and ReplayedOpEnd add, so a replaying thread holds 8
// bytes per call and op instead of 16.
struct ReplayTimes {
  std::vector<TimeNs> call_start;
  std::vector<TimeNs> wait_end;  // a blocking call's end, by ReplayCall::wait
  std::vector<TimeNs> op_start;
  // Constraints met before the replay had placed what they wait for (clock
  // skew between host and device records): the recorded time was used.
  uint64_t out_of_order = 0;
};

// Fills `times` (its arrays are reused from one replay to the next).
void Replay(const ReplayModel& model, const ReplayEdits& edits,
            ReplayTimes* times);

// The replayed end of call `i` or op `i` of `model`, replayed with `edits`
// into `times`.
TimeNs ReplayedCallEnd(const ReplayModel& model, const ReplayEdits& edits,
                       const ReplayTimes& times, size_t i);
TimeNs ReplayedOpEnd(const ReplayModel& model, const ReplayEdits& edits,
                     const ReplayTimes& times, size_t i);

// Where the recorded host time `t` on `thread` lies in the replay: inside a
// call it moves with the call, between calls with the host time before the
// next call (a cut removes the end of that time), after the last call with
// the last call's end, before the first call with the first call (which a
// cut before it moves earlier).
TimeNs MapHostTime(const ReplayModel& model, const ReplayEdits& edits,
                   const ReplayTimes& times, uint32_t thread, TimeNs t);

}  // namespace feedprof::replay

#endif  // FEEDPROF_REPLAY_REPLAY_ENGINE_H_
