// Aggregates the report into the verdict's signals (see verdict_signals.h).
//
// Idle that followed a sync is claimed by the sync rule when the gap was a
// refill (≤ 1 ms: the host re-issuing work after the drain) and, in longer
// gaps, only its sync, CUDA-call, launch and queue parts: a long host phase
// after a sync (loading data, MPI, Python) belongs to its own cause.
#include "analysis/verdict_signals.h"

#include <algorithm>
#include <array>
#include <string>

#include "absl/strings/str_cat.h"

namespace feedprof::analysis {
namespace {

bool SyncClaimsInLongGaps(IdleCause c) {
  return c == IdleCause::kHostWaitSync || c == IdleCause::kHostWaitCudaApi ||
         c == IdleCause::kLaunchOverhead || c == IdleCause::kQueueLatency;
}

}  // namespace

// The program thread (never a profiler thread: HostReport keeps those
// apart) that used the most CPU, nullptr without samples.
const ThreadReport* BusiestProgramThread(const HostReport& host) {
  const ThreadReport* best = nullptr;
  for (const ThreadReport& t : host.threads) {
    if (!t.samples) continue;
    if (best == nullptr || t.cpu_user_ns + t.cpu_system_ns >
                               best->cpu_user_ns + best->cpu_system_ns) {
      best = &t;
    }
  }
  return best != nullptr && best->cpu_user_ns + best->cpu_system_ns > 0
             ? best
             : nullptr;
}

std::string ThreadName(const ThreadReport& t) {
  return t.name.empty()
             ? absl::StrCat("thread ", t.pid, "/", t.tid)
             : absl::StrCat("\"", t.name, "\" (", t.pid, "/", t.tid, ")");
}

VerdictSignals ComputeVerdictSignals(const Report& report) {
  VerdictSignals s;
  // free[b][c]: idle of cause c in bucket b not claimed by the sync rule.
  std::array<IdleByCause, kGapBuckets> free{};
  for (const DeviceReport& d : report.devices) {
    s.span_ns += d.span_ns;
    s.busy_ns += d.busy_ns;
    s.exposed_memcpy_ns += d.exposed_memcpy_ns;
    s.small_grid_ns += std::min(d.small_grid_kernel_ns, d.compute_ns);
    for (size_t b = 0; b < kGapBuckets; ++b) {
      for (int c = 0; c < kIdleCauses; ++c) {
        const auto ci = static_cast<size_t>(c);
        const TimeNs all = d.gaps.by_bucket[b].ns[ci];
        const TimeNs after = d.gaps.after_sync_by_bucket[b].ns[ci];
        const bool claimed = b < kRefillBuckets ||
                             SyncClaimsInLongGaps(static_cast<IdleCause>(c));
        s.idle.ns[ci] += all;
        s.after_sync.ns[ci] += after;
        if (claimed) s.sync_claimed.ns[ci] += after;
        free[b].ns[ci] += claimed ? all - after : all;
      }
      (b < kShortBuckets ? s.short_gap_idle_ns : s.long_gap_idle_ns) +=
          d.gaps.by_bucket[b].Total();
    }
  }
  if (s.span_ns <= 0) return s;
  const auto span = static_cast<double>(s.span_ns);
  s.busy_share = static_cast<double>(s.busy_ns) / span;
  s.idle_share = 1.0 - s.busy_share;

  auto sum = [&free](IdleCause c, size_t from, size_t to) {
    TimeNs v = 0;
    for (size_t b = from; b < to; ++b) v += free[b][c];
    return static_cast<double>(v);
  };
  const size_t n = kGapBuckets;
  s.launch = (sum(IdleCause::kLaunchOverhead, 0, n) +
              sum(IdleCause::kHostWaitCudaApi, 0, n) +
              sum(IdleCause::kHostWaitOnCpu, 0, kShortBuckets) +
              sum(IdleCause::kHostWaitUnknown, 0, kShortBuckets)) /
             span;
  s.preprocessing = (sum(IdleCause::kHostWaitOnCpu, kShortBuckets, n) +
                     sum(IdleCause::kHostWaitUnknown, kShortBuckets, n) +
                     sum(IdleCause::kHostWaitOffCpuWait, 0, n)) /
                    span;
  s.io = sum(IdleCause::kHostWaitOffCpuIo, 0, n) / span;
  s.sync = static_cast<double>(s.sync_claimed.Total()) / span;
  s.transfer = static_cast<double>(s.exposed_memcpy_ns) / span;
  s.latency = (sum(IdleCause::kQueueLatency, 0, n) +
               static_cast<double>(s.small_grid_ns)) /
              span;
  s.gpu = std::max(0.0, static_cast<double>(s.busy_ns - s.exposed_memcpy_ns -
                                            s.small_grid_ns) /
                            span);
  return s;
}

}  // namespace feedprof::analysis
