// Makes an Nsight Systems SQLite export of any size from a small real one.
//
// The big export is the real one with its event rows copied again and
// again: every table the Nsight reader takes events from gets the rows of
// the original once per repetition, with start/end/timestamp columns moved
// by the original's span plus a gap and correlation and NVTX range ids by
// one more than the largest id, so that the copies read as one longer run
// of the same processes, threads, devices, streams and names. Everything
// else (StringIds, target info, enums) is kept as it was.
#ifndef FEEDPROF_BENCH_BIGTRACE_NSIGHT_REPEATER_H_
#define FEEDPROF_BENCH_BIGTRACE_NSIGHT_REPEATER_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "bench/bigtrace/repeated_trace.h"

namespace feedprof::bench {

// Writes an export of at least `target_bytes` to `out_path`, built from the
// export at `source_path`.
absl::StatusOr<RepeatedTrace> WriteRepeatedNsightExport(
    const std::string& source_path, uint64_t target_bytes,
    const std::string& out_path);

}  // namespace feedprof::bench

#endif  // FEEDPROF_BENCH_BIGTRACE_NSIGHT_REPEATER_H_
