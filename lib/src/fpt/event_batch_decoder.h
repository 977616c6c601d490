// Turns one EventBatch packet into timeline events.
//
// Why apart from the builder: decoding a batch (its delta-coded times, its
// correlation chain, one struct per event) needs nothing of the builder's
// state but the process id, so a large file's batches can be decoded on
// worker threads (parallel_packet_reader.h) and handed to the builder in
// file order, while a small file decodes them in place. Both go through
// this one function, so the events are the same either way.
//
// The events keep the file-local string and call-site ids the builder
// rewrites when the section ends. Copies and memsets get their names from
// the builder (NameCopiesAndMemsets), because naming interns strings into
// the timeline, which only the builder's thread may do.
#ifndef FEEDPROF_FPT_EVENT_BATCH_DECODER_H_
#define FEEDPROF_FPT_EVENT_BATCH_DECODER_H_

#include <cstdint>
#include <vector>

#include "feedprof.pb.h"
#include "feedprof/timeline.h"
#include "timeline/time_extent.h"
#include "timeline/time_limits.h"

namespace feedprof::fpt {

// Times are nanoseconds of CLOCK_MONOTONIC; they fit int64 comfortably.
// Wrapping arithmetic keeps damaged deltas defined.
inline TimeNs AddDelta(TimeNs previous, int64_t delta) {
  return static_cast<TimeNs>(static_cast<uint64_t>(previous) +
                             static_cast<uint64_t>(delta));
}
inline TimeNs AddDuration(TimeNs start, uint64_t duration) {
  return static_cast<TimeNs>(static_cast<uint64_t>(start) + duration);
}

// CLOCK_MONOTONIC times start at 0 and end at the readers' common bound.
inline bool InTimeRange(TimeNs t) {
  return t >= 0 && t <= timeline::kMaxAbsTimeNs;
}

// The span of the events decoded so far and how many were dropped because
// their times lie outside [0, timeline::kMaxAbsTimeNs]: CLOCK_MONOTONIC
// times start at 0 and end at the readers' common bound (2^62 ns), and a
// damaged delta or duration that lands beyond it would otherwise wrap.
struct EventTimes {
  timeline::TimeExtent span;  // of the events kept
  uint64_t out_of_range = 0;

  // True when an event at `start` lasting `duration` ns lies within the
  // bounds; otherwise counts it as out of range.
  bool InRange(TimeNs start, uint64_t duration);
  // Adds the times of events decoded after these.
  void Merge(const EventTimes& later);
};

// Where decoded events are appended.
struct EventVectors {
  std::vector<ApiCall>* api_calls = nullptr;
  std::vector<Range>* ranges = nullptr;
  std::vector<Mark>* marks = nullptr;
  std::vector<GpuOp>* gpu_ops = nullptr;
  std::vector<SyncRecord>* syncs = nullptr;
  LaunchShapeTable* launch_shapes = nullptr;  // GpuOp::launch indexes it
};

// Appends the events of `batch` of process `pid`: API calls, NVTX ranges
// and marks, kernels, then copies, then memsets, syncs; copies and memsets
// with name 0. Events with impossible times are skipped and counted in
// `times`.
void DecodeEventBatch(const trace::EventBatch& batch, int32_t pid,
                      const EventVectors& out, EventTimes* times);

// A batch of decoded events that owns its vectors, for a worker thread.
struct DecodedEvents {
  std::vector<ApiCall> api_calls;
  std::vector<Range> ranges;
  std::vector<Mark> marks;
  std::vector<GpuOp> gpu_ops;
  std::vector<SyncRecord> syncs;
  LaunchShapeTable launch_shapes;  // the batch's own; the builder re-interns
  EventTimes times;

  EventVectors Vectors() {
    return {&api_calls, &ranges, &marks, &gpu_ops, &syncs, &launch_shapes};
  }
  // Empties it for reuse, keeping the vectors' capacity.
  void Clear();
};

}  // namespace feedprof::fpt

#endif  // FEEDPROF_FPT_EVENT_BATCH_DECODER_H_
