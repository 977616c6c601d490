// The replay's peak memory from the counts of what it will hold (see
// replay_memory.h).
#include "replay/replay_memory.h"

#include <algorithm>
#include <functional>
#include <utility>

#include "analysis/device_busy.h"
#include "replay/replay_engine.h"
#include "replay/replay_model.h"
#include "replay/timeline_index_map.h"

namespace feedprof::replay {
namespace {

bool BlocksHost(analysis::SyncReason sync) {
  return sync != analysis::SyncReason::kNone &&
         sync != analysis::SyncReason::kLegacyDefaultStream;
}

// What a model keeps per call and op (replay_model.h): the call or op, its
// place in the event order (a blocking call has two, its start and its
// end, and what it waits for), and per op its slot in its step's list
// (what_if.cc).
constexpr uint64_t kCallBytes = sizeof(ReplayCall) + sizeof(ReplayEvent);
constexpr uint64_t kBlockingCallBytes =
    sizeof(ReplayEvent) + sizeof(ReplayWait) +
    2 * sizeof(uint32_t);  // end event, its wait, awaited ops
constexpr uint64_t kOpBytes =
    sizeof(ReplayOp) + sizeof(ReplayEvent) + sizeof(uint32_t);
// Freed after the build, per op: its stream (4), its place in its stream's
// list (4, twice over while the list grows), the device's and the
// process's orders by end (4 + 4), an op out of order sorted as (end,
// index) pairs (16), and its step while the steps are grouped (4).
constexpr uint64_t kBuildBytesPerOp =
    4 + 8 + 8 + sizeof(std::pair<TimeNs, uint32_t>) + 4;
// Per replaying thread, per call and op of the largest process: the
// replayed start, and a blocking call's end (ReplayTimes).
constexpr uint64_t kTimesBytes = sizeof(TimeNs);
// A scenario's edit of a call or op (ReplayEdits): a duration or a cut.
constexpr uint64_t kEditBytes = sizeof(TimeNs);
// input_ready walks each device's gaps: its busy intervals, the op that
// opens each and their running total (analysis/device_busy.h), per op.
constexpr uint64_t kBusyBytesPerOp =
    sizeof(analysis::Interval) + sizeof(uint32_t) + sizeof(TimeNs);

}  // namespace

ReplayCounts CountReplayEvents(const analysis::PreparedTimeline& prepared,
                               const std::vector<int32_t>& pids) {
  ReplayCounts c;
  c.processes = pids.size();
  const uint64_t timeline_calls = prepared.timeline().api_calls.size();
  const uint64_t timeline_ops = prepared.timeline().gpu_ops.size();
  for (int32_t pid : pids) {
    uint64_t calls = 0, blocking = 0;
    for (const analysis::ThreadView& t : prepared.threads()) {
      if (t.pid != pid) continue;
      calls += t.calls.size();
      for (const analysis::ThreadCall& call : t.calls) {
        blocking += BlocksHost(call.sync) ? 1 : 0;
      }
    }
    c.calls += calls;
    c.blocking_calls += blocking;
    c.largest_blocking_calls = std::max(c.largest_blocking_calls, blocking);
    uint64_t ops = 0;
    for (const analysis::DeviceView& d : prepared.devices()) {
      if (d.pid == pid) ops += d.ops.size() + d.excluded.size();
    }
    c.ops += ops;
    c.largest_calls = std::max(c.largest_calls, calls);
    c.largest_ops = std::max(c.largest_ops, ops);
    c.call_index_bytes += TimelineIndexMap::BytesFor(calls, timeline_calls);
    c.op_index_bytes += TimelineIndexMap::BytesFor(ops, timeline_ops);
  }
  return c;
}

bool FitsTheModel(const ReplayCounts& counts) {
  constexpr uint64_t kMost = uint64_t{ReplayEvent::kMaxIndex} + 1;
  return counts.largest_calls <= kMost && counts.largest_ops <= kMost;
}

uint64_t ReplayMemoryEstimate::PeakBytes(size_t threads) const {
  uint64_t replaying = threads * times_bytes;
  for (size_t j = 0; j < threads && j < job_bytes.size(); ++j) {
    replaying += job_bytes[j];
  }
  return model_bytes +
         std::max({build_bytes, held_edit_bytes + edit_build_bytes,
                   held_edit_bytes + replaying});
}

ReplayMemoryEstimate EstimateReplayMemory(const ReplayCounts& c,
                                          size_t sync_groups) {
  ReplayMemoryEstimate e;
  e.model_bytes = c.calls * kCallBytes + c.blocking_calls * kBlockingCallBytes +
                  c.ops * kOpBytes + c.op_index_bytes;
  e.build_bytes = c.ops * kBuildBytesPerOp + c.call_index_bytes;
  e.times_bytes = (c.largest_calls + c.largest_blocking_calls + c.largest_ops) *
                  kTimesBytes;
  // Built ahead for every process, side by side: input_ready (a cut per
  // call, the busy intervals while it is built) and pin_copies (per
  // blocking call and per op).
  e.held_edit_bytes = (c.calls + c.blocking_calls + c.ops) * kEditBytes;
  e.edit_build_bytes = c.ops * kBusyBytesPerOp;
  // The jobs as ComputeWhatIf runs them: a self-check per process (the
  // times alone), then input_ready (its held edits), cheaper_launches (a
  // figure per call), each remove_sync (per blocking call), pin_copies
  // (its held edits), remove_all_syncs (per blocking call) and faster_gpu
  // (per op).
  const uint64_t per_call = c.largest_calls * kEditBytes;
  const uint64_t per_wait = c.largest_blocking_calls * kEditBytes;
  const uint64_t per_op = c.largest_ops * kEditBytes;
  e.job_bytes.assign(c.processes, 0);
  e.job_bytes.push_back(0);
  e.job_bytes.push_back(per_call);
  e.job_bytes.insert(e.job_bytes.end(), sync_groups, per_wait);
  e.job_bytes.push_back(0);
  e.job_bytes.push_back(per_wait);
  e.job_bytes.push_back(per_op);
  std::sort(e.job_bytes.begin(), e.job_bytes.end(), std::greater<>());
  return e;
}

size_t ReplayThreadsThatFit(const ReplayMemoryEstimate& estimate,
                            uint64_t available_bytes, size_t max_threads) {
  const double budget =
      kReplayMemoryShare * static_cast<double>(available_bytes);
  size_t threads = std::max<size_t>(1, max_threads);
  while (threads > 0 &&
         static_cast<double>(estimate.PeakBytes(threads)) > budget) {
    --threads;
  }
  return threads;
}

}  // namespace feedprof::replay
