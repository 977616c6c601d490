// Makes a Kineto trace of any size from a small real one.
//
// The speed targets for big traces (README, "Speed") must be measured on
// what users have: PyTorch profiler JSON with the exporter's own layout,
// spacing, key order and event mix. So the big trace is built from the text
// of a real trace, not re-serialized: the events of its `traceEvents` array
// are copied byte for byte, repetition after repetition, with only the
// numbers patched that must change for the copies to read as one longer run
// — every "ts" moves by the source's span plus a gap, every correlation,
// "External id" and flow "id" by one more than the largest id, and every
// "ProfilerStep#N" by the number of steps. Metadata events ("ph": "M") are
// written once. Everything outside the array is kept as it was, but for the
// rank and world size of a multi-rank run's file.
#ifndef FEEDPROF_BENCH_BIGTRACE_KINETO_REPEATER_H_
#define FEEDPROF_BENCH_BIGTRACE_KINETO_REPEATER_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "bench/bigtrace/repeated_trace.h"

namespace feedprof::bench {

// One rank of a generated multi-rank run: its rank and world size in the
// trace's "distributedInfo", its pid the source's plus `rank`, and every
// time `start_shift_us` later, so that the ranks' events interleave.
struct KinetoRank {
  int32_t rank = 0;
  int32_t world_size = 1;
  int64_t start_shift_us = 0;
};

// Writes a Kineto JSON trace of at least `target_bytes` (plain text) to
// `out_path` from the Kineto trace at `source_path` (.json or .json.gz);
// with `rank`, as that rank's file of a multi-rank run (a source without
// "distributedInfo" gets only the pids and times changed).
absl::StatusOr<RepeatedTrace> WriteRepeatedKinetoTrace(
    const std::string& source_path, uint64_t target_bytes,
    const std::string& out_path, const KinetoRank* rank = nullptr);

}  // namespace feedprof::bench

#endif  // FEEDPROF_BENCH_BIGTRACE_KINETO_REPEATER_H_
