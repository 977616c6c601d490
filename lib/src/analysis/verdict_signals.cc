// Aggregates the report into the verdict's signals (see verdict_signals.h).
#include "analysis/verdict_signals.h"

#include <algorithm>
#include <array>

namespace feedprof::analysis {

VerdictSignals ComputeVerdictSignals(const Report& report) {
  VerdictSignals s;
  std::array<IdleByCause, kGapBuckets> buckets{};
  for (const DeviceReport& d : report.devices) {
    s.span_ns += d.span_ns;
    s.busy_ns += d.busy_ns;
    s.exposed_memcpy_ns += d.exposed_memcpy_ns;
    s.small_grid_ns += std::min(d.small_grid_kernel_ns, d.compute_ns);
    for (int c = 0; c < kIdleCauses; ++c) {
      const auto ci = static_cast<size_t>(c);
      s.idle.ns[ci] += d.idle_by_cause.ns[ci];
      s.after_sync.ns[ci] += d.gaps.after_sync.ns[ci];
      for (size_t b = 0; b < kGapBuckets; ++b) {
        buckets[b].ns[ci] += d.gaps.by_bucket[b].ns[ci];
      }
    }
  }
  if (s.span_ns <= 0) return s;
  const auto span = static_cast<double>(s.span_ns);
  s.busy_share = static_cast<double>(s.busy_ns) / span;
  s.idle_share = 1.0 - s.busy_share;
  s.short_gap_idle_ns = buckets[0].Total() + buckets[1].Total();
  s.long_gap_idle_ns =
      buckets[2].Total() + buckets[3].Total() + buckets[4].Total();

  // Fraction of each cause's time that did not follow a sync: the rest is
  // claimed by the sync rule.
  auto not_after_sync = [&s](IdleCause c) {
    const TimeNs total = s.idle[c];
    return total > 0 ? 1.0 - static_cast<double>(s.after_sync[c]) /
                                 static_cast<double>(total)
                     : 0.0;
  };
  auto in_buckets = [&buckets](IdleCause c, size_t from, size_t to) {
    TimeNs sum = 0;
    for (size_t b = from; b < to; ++b) sum += buckets[b][c];
    return static_cast<double>(sum);
  };
  auto plain = [&](IdleCause c) {
    return static_cast<double>(s.idle[c]) * not_after_sync(c);
  };

  s.launch =
      (plain(IdleCause::kLaunchOverhead) + plain(IdleCause::kHostWaitCudaApi) +
       in_buckets(IdleCause::kHostWaitOnCpu, 0, 2) *
           not_after_sync(IdleCause::kHostWaitOnCpu) +
       in_buckets(IdleCause::kHostWaitUnknown, 0, 2) *
           not_after_sync(IdleCause::kHostWaitUnknown)) /
      span;
  s.preprocessing =
      (in_buckets(IdleCause::kHostWaitOnCpu, 2, kGapBuckets) *
           not_after_sync(IdleCause::kHostWaitOnCpu) +
       in_buckets(IdleCause::kHostWaitOffCpuWait, 0, kGapBuckets) *
           not_after_sync(IdleCause::kHostWaitOffCpuWait) +
       in_buckets(IdleCause::kHostWaitUnknown, 2, kGapBuckets) *
           not_after_sync(IdleCause::kHostWaitUnknown)) /
      span;
  s.io = plain(IdleCause::kHostWaitOffCpuIo) / span;
  s.sync = static_cast<double>(s.after_sync.Total()) / span;
  s.transfer = static_cast<double>(s.exposed_memcpy_ns) / span;
  s.latency =
      static_cast<double>(s.idle[IdleCause::kQueueLatency] + s.small_grid_ns) /
      span;
  s.gpu = std::max(0.0, static_cast<double>(s.busy_ns - s.exposed_memcpy_ns -
                                            s.small_grid_ns) /
                            span);
  return s;
}

}  // namespace feedprof::analysis
