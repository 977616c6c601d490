#include "preload/process_facts.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include "preload/recorder.h"
#include "preload/small_file.h"

extern char** environ;

namespace feedprof::preload {
namespace {

// The variables that say which rank a process is, in the order the file
// name takes them.
constexpr const char* kRankVariables[] = {"RANK", "LOCAL_RANK", "SLURM_PROCID",
                                          "OMPI_COMM_WORLD_RANK", "PMI_RANK"};
constexpr const char* kLocalRankVariables[] = {"LOCAL_RANK", "SLURM_LOCALID",
                                               "OMPI_COMM_WORLD_LOCAL_RANK",
                                               "MPI_LOCALRANKID"};
constexpr const char* kWorldSizeVariables[] = {
    "WORLD_SIZE", "SLURM_NTASKS", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE"};
constexpr const char* kOtherRecordedVariables[] = {"LOCAL_WORLD_SIZE",
                                                   "GROUP_RANK", "NODE_RANK"};

template <size_t N>
int32_t FirstInteger(const char* const (&names)[N]) {
  for (const char* name : names) {
    const char* v = std::getenv(name);
    if (v == nullptr || v[0] == '\0') continue;
    char* end = nullptr;
    errno = 0;
    const long n = std::strtol(v, &end, 10);
    if (errno == 0 && end != v && *end == '\0' && n >= 0 && n <= INT32_MAX) {
      return static_cast<int32_t>(n);
    }
  }
  return -1;
}

template <size_t N>
bool InList(const char* const (&names)[N], const char* name, size_t length) {
  for (const char* candidate : names) {
    if (std::strlen(candidate) == length &&
        std::memcmp(candidate, name, length) == 0) {
      return true;
    }
  }
  return false;
}

}  // namespace

const char* TraceOriginName(TraceOrigin origin) {
  switch (origin) {
    case TraceOrigin::kLaunch:
      return "start";
    case TraceOrigin::kFork:
      return "fork";
    case TraceOrigin::kExec:
      return "exec";
  }
  return "start";
}

uint64_t RealtimeNs() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull +
         static_cast<uint64_t>(ts.tv_nsec);
}

bool IsRecordedEnvironmentName(const char* name, size_t length) {
  if (length > 9 && std::memcmp(name, "FEEDPROF_", 9) == 0) return true;
  return InList(kRankVariables, name, length) ||
         InList(kLocalRankVariables, name, length) ||
         InList(kWorldSizeVariables, name, length) ||
         InList(kOtherRecordedVariables, name, length);
}

void CollectProcessFacts(TraceOrigin origin, uint32_t parent_trace_pid,
                         uint64_t sampling_interval_ns, ProcessFacts* facts) {
  facts->pid = static_cast<uint32_t>(getpid());
  facts->ppid = static_cast<uint32_t>(getppid());
  if (gethostname(facts->hostname, sizeof facts->hostname - 1) != 0) {
    std::strcpy(facts->hostname, "unknown");
  }
  facts->hostname[sizeof facts->hostname - 1] = '\0';
  const ssize_t exe_len = readlink("/proc/self/exe", facts->executable,
                                   sizeof facts->executable - 1);
  facts->executable[exe_len > 0 ? exe_len : 0] = '\0';
  facts->cmdline_bytes = ReadSmallFile("/proc/self/cmdline", facts->cmdline,
                                       sizeof facts->cmdline);
  facts->rank = FirstInteger(kRankVariables);
  facts->local_rank = FirstInteger(kLocalRankVariables);
  facts->world_size = FirstInteger(kWorldSizeVariables);

  facts->environment_bytes = 0;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const char* eq = std::strchr(*e, '=');
    if (eq == nullptr) continue;
    if (!IsRecordedEnvironmentName(*e, static_cast<size_t>(eq - *e))) {
      continue;
    }
    const size_t len = std::strlen(*e) + 1;
    if (facts->environment_bytes + len > sizeof facts->environment) break;
    std::memcpy(facts->environment + facts->environment_bytes, *e, len);
    facts->environment_bytes += len;
  }

  facts->origin = origin;
  facts->parent_trace_pid = parent_trace_pid;
  facts->sampling_interval_ns = sampling_interval_ns;
  facts->start_monotonic_ns = NowNs();
  facts->start_realtime_ns = RealtimeNs();
}

void TraceFileName(const ProcessFacts& facts, int attempt, char* out,
                   size_t size) {
  char host[64];
  size_t n = 0;
  for (const char* p = facts.hostname;
       *p != '\0' && *p != '.' && n + 1 < sizeof host; ++p) {
    const char c = *p;
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                    (c >= '0' && c <= '9') || c == '-' || c == '_';
    host[n++] = ok ? c : '_';
  }
  host[n] = '\0';
  if (n == 0) std::strcpy(host, "host");
  char rank[32] = "";
  if (facts.rank >= 0) std::snprintf(rank, sizeof rank, ".rank%d", facts.rank);
  char suffix[16] = "";
  if (attempt > 0) std::snprintf(suffix, sizeof suffix, "-%d", attempt);
  std::snprintf(out, size, "%s-%u%s%s.fpt", host, facts.pid, rank, suffix);
}

}  // namespace feedprof::preload
