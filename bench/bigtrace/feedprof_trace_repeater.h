// Makes a feedprof trace file of any size from a real trace of another
// format.
//
// The shared real traces are Kineto and Nsight exports (no GPU machine has
// recorded a feedprof trace for them), so the feedprof input of the
// trace-size benchmark is one of them as the recorder would have written
// it: read into the timeline, then written as packets — interned strings,
// device and thread descriptions, per-thread event batches of API calls,
// ranges and marks (ranges in the order they end, as NVTX pops emit them),
// GPU batches of kernels, copies, memsets and sync records, delta-encoded
// like the recorder's — once per repetition with times moved by the source's
// span plus a gap and correlation ids by one more than the largest, until
// the file reaches the size asked for. One file, one process; the files of
// a session are such files with their own pids and start times
// (SessionProcess).
#ifndef FEEDPROF_BENCH_BIGTRACE_FEEDPROF_TRACE_REPEATER_H_
#define FEEDPROF_BENCH_BIGTRACE_FEEDPROF_TRACE_REPEATER_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "bench/bigtrace/repeated_trace.h"

namespace feedprof::bench {

// One process of a session made of repeated traces: its pid is the
// source's plus `pid_offset`, its times are moved by `time_offset_ns`, so
// that the processes of a session run side by side, their events
// interleaved, as the processes of one job do.
struct SessionProcess {
  int32_t pid_offset = 0;
  int64_t time_offset_ns = 0;
};

// Writes a feedprof trace of at least `target_bytes` to `out_path` from the
// trace at `source_path` (any format LoadTrace reads).
absl::StatusOr<RepeatedTrace> WriteRepeatedFeedprofTrace(
    const std::string& source_path, uint64_t target_bytes,
    const std::string& out_path, SessionProcess process = {});

}  // namespace feedprof::bench

#endif  // FEEDPROF_BENCH_BIGTRACE_FEEDPROF_TRACE_REPEATER_H_
