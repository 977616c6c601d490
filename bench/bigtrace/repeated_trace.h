// What a repeater wrote: the big inputs of the trace-size benchmark
// (bench/bigtrace) are real traces repeated until they reach a size.
#ifndef FEEDPROF_BENCH_BIGTRACE_REPEATED_TRACE_H_
#define FEEDPROF_BENCH_BIGTRACE_REPEATED_TRACE_H_

#include <cstdint>

namespace feedprof::bench {

struct RepeatedTrace {
  uint64_t bytes = 0;        // of the file written
  uint64_t repetitions = 0;  // copies of the source's events
};

}  // namespace feedprof::bench

#endif  // FEEDPROF_BENCH_BIGTRACE_REPEATED_TRACE_H_
