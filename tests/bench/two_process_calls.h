// The CUDA calls of a generated two-process input read back, per process:
// the session and the rank inputs of the trace-size benchmark are both
// checked to be the same calls twice, the second process's a little later.
#ifndef FEEDPROF_TESTS_BENCH_TWO_PROCESS_CALLS_H_
#define FEEDPROF_TESTS_BENCH_TWO_PROCESS_CALLS_H_

#include <cstddef>
#include <cstdint>

#include "feedprof/timeline.h"

namespace feedprof::testing {

struct TwoProcessCalls {
  TimeNs first[2] = {-1, -1};  // each process's first call's start
  size_t count[2] = {0, 0};    // and its calls
  bool only_the_two = true;    // no call of another pid
};

// The calls of `t` by process `pid` (index 0) and `pid + 1` (index 1).
inline TwoProcessCalls CallsOfTwoProcesses(const Timeline& t, int32_t pid) {
  TwoProcessCalls calls;
  for (const ApiCall& c : t.api_calls) {
    const int32_t p = c.pid - pid;
    if (p != 0 && p != 1) {
      calls.only_the_two = false;
      continue;
    }
    if (calls.first[p] < 0) calls.first[p] = c.start;
    ++calls.count[p];
  }
  return calls;
}

}  // namespace feedprof::testing

#endif  // FEEDPROF_TESTS_BENCH_TWO_PROCESS_CALLS_H_
