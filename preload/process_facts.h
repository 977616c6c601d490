// What the trace header says about the recorded process.
//
// Collected once when recording starts (and again in a forked child) into
// fixed-size storage, so the header can be encoded later by the writer
// thread without allocating. Only FEEDPROF_* and rank variables are taken
// from the environment: anything else may hold secrets.
#ifndef FEEDPROF_PRELOAD_PROCESS_FACTS_H_
#define FEEDPROF_PRELOAD_PROCESS_FACTS_H_

#include <climits>
#include <cstddef>
#include <cstdint>

namespace feedprof::preload {

enum class TraceOrigin : uint8_t {
  kLaunch,  // launched with the library loaded (first of its session)
  kFork,    // child of a fork of a recorded process
  kExec,    // exec'd by a recorded process: joins its session
};

const char* TraceOriginName(TraceOrigin origin);

struct ProcessFacts {
  uint32_t pid = 0;
  uint32_t ppid = 0;
  char hostname[256] = {};
  char executable[PATH_MAX] = {};
  // /proc/self/cmdline: arguments separated by NUL bytes.
  char cmdline[8192] = {};
  size_t cmdline_bytes = 0;
  // -1 when not set.
  int32_t rank = -1;
  int32_t local_rank = -1;
  int32_t world_size = -1;
  // "KEY=VALUE" entries separated by NUL bytes.
  char environment[4096] = {};
  size_t environment_bytes = 0;
  TraceOrigin origin = TraceOrigin::kLaunch;
  uint32_t parent_trace_pid = 0;
  uint64_t sampling_interval_ns = 0;
  uint64_t start_monotonic_ns = 0;
  uint64_t start_realtime_ns = 0;
};

// Fills `facts` for the calling process. Reads /proc/self and getenv.
void CollectProcessFacts(TraceOrigin origin, uint32_t parent_trace_pid,
                         uint64_t sampling_interval_ns, ProcessFacts* facts);

// The trace file name without directory: "<host>-<pid>[.rank<R>].fpt", with
// `-<n>` before ".fpt" when `attempt` > 0. The host name is cut at its first
// dot and anything but [A-Za-z0-9_-] becomes '_'.
void TraceFileName(const ProcessFacts& facts, int attempt, char* out,
                   size_t size);

// True for FEEDPROF_* and the rank variables (the only recorded ones).
bool IsRecordedEnvironmentName(const char* name, size_t length);

uint64_t RealtimeNs();

}  // namespace feedprof::preload

#endif  // FEEDPROF_PRELOAD_PROCESS_FACTS_H_
