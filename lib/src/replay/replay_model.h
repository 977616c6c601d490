// The what-if model of one process: its host threads as sequences of CUDA
// calls with the time between them, and its GPU ops with what each one
// waited for (docs/metrics.md, docs/what-if.md).
//
// The model is built once from the prepared timeline and replayed many
// times, one scenario per replay, so everything a replay needs is resolved
// here: which call launched each op, the op before it on its stream, the
// op on another stream it waited for, which ops a blocking call waited for,
// and the order in which a replay visits calls and ops. Every constraint
// keeps the slack it had in the recording when it was the one that held
// the op or call back, and a small floor otherwise, so the replay with no
// edit reproduces the recording exactly and an edit moves only what it
// frees.
#ifndef FEEDPROF_REPLAY_REPLAY_MODEL_H_
#define FEEDPROF_REPLAY_REPLAY_MODEL_H_

#include <cstdint>
#include <vector>

#include "analysis/api_classifier.h"
#include "analysis/prepared_timeline.h"
#include "analysis/sync_group.h"
#include "feedprof/timeline.h"
#include "replay/timeline_index_map.h"

namespace feedprof::replay {

// A top-level CUDA call of a thread (nested driver calls folded in).
// (A model holds one per CUDA call, so it packs into 32 bytes: what only
// blocking calls need is in ReplayWait, and the host time before it and
// its thread follow from the calls around it: ReplayModel::GapBefore and
// ThreadOfCall.)
struct ReplayCall {
  static constexpr uint32_t kNoWait = UINT32_MAX;
  TimeNs start = 0;  // as recorded
  TimeNs end = 0;
  uint32_t api = 0;  // index into Timeline::api_calls (the top-level call)
  int32_t sync_group = -1;  // index into Build's sync_groups, -1: none
  // Blocking calls, and calls held by a full launch queue (queue_held):
  // what it waited for, index into ReplayModel::waits(); kNoWait for the
  // others.
  uint32_t wait = kNoWait;
  analysis::ApiClass api_class = analysis::ApiClass::kOther;
  analysis::SyncReason sync = analysis::SyncReason::kNone;
  // Blocking calls: one of the ops it waited for ended inside the call.
  bool blocked : 1 = false;
  // The first call of its thread: it keeps its recorded start.
  bool first_of_thread : 1 = false;
  // An enqueueing call that found the device's launch queue full: it held
  // until its one awaited op ended (freeing a slot), then took wake_ns
  // (LaunchQueue).
  bool queue_held : 1 = false;
};
static_assert(sizeof(ReplayCall) <= 32, "ReplayCall grew: check its padding");

// What a blocking call waited for: the last op of each stream it waited
// on, a range in ReplayModel::awaited(). A blocked call (ReplayCall::
// blocked) ends `wake_ns` after the later of its start and the last
// awaited op's end. A queue-held call (ReplayCall::queue_held) awaits one
// op, the one whose end freed its slot: it starts no earlier than that
// op's end and lasts `wake_ns`, its recorded time after that end.
struct ReplayWait {
  uint32_t awaited_begin = 0;
  uint32_t awaited_end = 0;
  TimeNs wake_ns = 0;
};

struct ReplayThread {
  int32_t tid = 0;
  uint32_t call_begin = 0;  // range in ReplayModel::calls()
  uint32_t call_end = 0;
};

// A GPU op and what it waited for. Its replayed start is the latest of the
// constraints it has, each the replayed time of what it waited for plus an
// offset: the recorded slack for the constraint that held it back last,
// a floor (the trace's typical launch latency or back-to-back gap) for the
// others.
struct ReplayOp {
  TimeNs start = 0;  // as recorded (clipped to the window)
  TimeNs end = 0;
  uint32_t op = 0;           // index into Timeline::gpu_ops
  int32_t call = -1;         // launching call, index into calls(); -1: none
  int32_t previous = -1;     // previous op on its stream, index into ops()
  int32_t dependency = -1;   // op on another stream it waited for
  TimeNs launch_offset = 0;  // from the launching call's start
  TimeNs previous_offset = 0;
  TimeNs dependency_offset = 0;
  // No launching call and no previous op: the op stays where it was.
  bool fixed = false;
  // Launched before recording began (the analysis leaves it out): it holds
  // its stream back but is not part of the span.
  bool excluded = false;
  GpuOpKind kind = GpuOpKind::kKernel;
};

// One event of a replay, in the order a replay visits them (recorded time;
// at equal times a blocking call's end, then call starts, then ops).
// (A model holds one or two per call and one per op: the kind and the
// index share 32 bits, so a process's model holds at most kMaxIndex + 1
// calls and as many ops; CountReplayEvents counts them beforehand.)
class ReplayEvent {
 public:
  enum class Kind : uint8_t { kCallEnd = 0, kCallStart = 1, kOpStart = 2 };
  static constexpr uint32_t kMaxIndex = (uint32_t{1} << 30) - 1;

  ReplayEvent() = default;
  ReplayEvent(Kind kind, uint32_t index)
      : bits_(static_cast<uint32_t>(kind) << 30 | (index & kMaxIndex)) {}
  Kind kind() const { return static_cast<Kind>(bits_ >> 30); }
  uint32_t index() const { return bits_ & kMaxIndex; }  // into calls() or ops()
  // Ordered as (kind, index).
  uint32_t bits() const { return bits_; }

 private:
  uint32_t bits_ = static_cast<uint32_t>(Kind::kCallStart) << 30;
};

// Whether a call blocks the host until GPU work ends.
inline bool Blocking(const ReplayCall& c) {
  return c.sync != analysis::SyncReason::kNone &&
         c.sync != analysis::SyncReason::kLegacyDefaultStream;
}

// The device launch queue as the trace shows it. A CUDA context queues a
// bounded number of submitted ops; once that many are outstanding
// (submitted, not ended), the next enqueueing call (a launch, an async
// copy or memset) blocks until the GPU ends one. A host paced this way
// goes as fast as the GPU does, so the replay holds such a call until the
// op whose end freed its slot has ended (docs/what-if.md).
struct LaunchQueue {
  // The depth: the fewest outstanding ops at which calls blocked; 0 when
  // the queue never filled (no call shows it).
  uint32_t depth = 0;
  // The most ops outstanding at an enqueueing call's start.
  uint32_t most_outstanding = 0;
  uint64_t enqueueing_calls = 0;
  uint64_t held_calls = 0;  // calls that found it full (queue_held)
};

class ReplayModel {
 public:
  // The model of process `pid` of `prepared`. Blocking calls of one of the
  // host-blocking groups in `sync_groups` (as Report::sync_points lists
  // them) get its index as their ReplayCall::sync_group.
  static ReplayModel Build(const analysis::PreparedTimeline& prepared,
                           int32_t pid,
                           const std::vector<SyncPoint>& sync_groups);

  int32_t pid() const { return pid_; }
  const std::vector<ReplayThread>& threads() const { return threads_; }
  const std::vector<ReplayCall>& calls() const { return calls_; }
  // Host time between the previous call of call `i`'s thread and call `i`;
  // 0 for a thread's first call.
  TimeNs GapBefore(size_t i) const {
    return calls_[i].first_of_thread ? 0 : calls_[i].start - calls_[i - 1].end;
  }
  // The thread of call `i`, index into threads().
  uint32_t ThreadOfCall(uint32_t i) const;
  const std::vector<ReplayOp>& ops() const { return ops_; }
  const std::vector<ReplayWait>& waits() const { return waits_; }
  const std::vector<uint32_t>& awaited() const { return awaited_; }
  const std::vector<ReplayEvent>& order() const { return order_; }
  // ops() index of Timeline::gpu_ops[op], -1 when not in the model.
  int32_t OpOfTimelineOp(uint32_t op) const;
  // The thread with the most calls (the main launching thread), -1: none.
  int32_t MainThread() const;
  const ReplayThread* FindThread(int32_t tid) const;

  const LaunchQueue& launch_queue() const { return launch_queue_; }
  // When a call's replay starts, in recorded time: a queue-held call's
  // start is when its slot freed (its awaited op's end), else its start.
  TimeNs HeldStart(const ReplayCall& c) const {
    return c.queue_held ? c.end - waits_[c.wait].wake_ns : c.start;
  }

  // Floors used for constraints that did not hold an op back.
  TimeNs launch_latency_floor() const { return launch_floor_; }
  TimeNs back_to_back_floor() const { return back_to_back_floor_; }
  // Op time (sum of durations) the analysis counts, and the part of it
  // with no launching call in the model.
  TimeNs unlaunched_ns() const { return unlaunched_ns_; }
  TimeNs op_ns() const { return op_ns_; }

 private:
  ReplayModel(const analysis::PreparedTimeline& prepared, int32_t pid)
      : prepared_(&prepared), pid_(pid) {}
  // Fills call_of_api_ as AddThreads will number the calls.
  void IndexCalls();
  // calls() index of the top-level call `api`, -1 when not in the model
  // (while the model is built).
  int32_t CallOfApi(uint32_t api) const;
  void AddThreads(const std::vector<SyncPoint>& sync_groups);
  void AddOps();
  // Indices [begin, end) of ops() by end time.
  std::vector<uint32_t> ByEnd(uint32_t begin, uint32_t end) const;
  void ResolveOps();
  void ResolveBlockingCalls();
  // Infers the launch queue's depth and marks the calls it held.
  void ResolveQueueHolds();
  void Order();
  void OrderByPairwiseMerge();
  // Frees what only the build needs.
  void ReleaseBuildData();

  const analysis::PreparedTimeline* prepared_;
  int32_t pid_ = 0;
  std::vector<ReplayThread> threads_;
  std::vector<ReplayCall> calls_;
  std::vector<ReplayOp> ops_;
  std::vector<ReplayWait> waits_;
  std::vector<uint32_t> awaited_;
  std::vector<ReplayEvent> order_;
  TimelineIndexMap call_of_api_;  // of Timeline::api_calls; build only
  TimelineIndexMap op_of_op_;     // of Timeline::gpu_ops
  // ops() indices per (device, stream), in start order.
  std::vector<std::vector<uint32_t>> streams_;
  // Per device (in ops() order): its range in ops() and its ops by end.
  struct DeviceOps {
    uint32_t begin = 0;
    uint32_t end = 0;
    std::vector<uint32_t> by_end;
  };
  std::vector<DeviceOps> devices_;
  std::vector<uint32_t> stream_of_op_;  // index into streams_
  std::vector<uint32_t> by_end_;        // every op, by end (2+ devices)
  const std::vector<uint32_t>& ProcessByEnd() const {
    return devices_.size() == 1 ? devices_.front().by_end : by_end_;
  }
  LaunchQueue launch_queue_;
  TimeNs launch_floor_ = 0;
  TimeNs back_to_back_floor_ = 0;
  TimeNs unlaunched_ns_ = 0;
  TimeNs op_ns_ = 0;
};

}  // namespace feedprof::replay

#endif  // FEEDPROF_REPLAY_REPLAY_MODEL_H_
