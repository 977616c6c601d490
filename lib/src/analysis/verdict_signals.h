// The numbers the verdict rules look at, aggregated over all devices of the
// analysed processes, each as a share of the summed device span.
//
// Kept apart from the rules so tests and docs/verdict-rules.md can name each
// signal, and so next_steps.cc can read the same figures.
#ifndef FEEDPROF_ANALYSIS_VERDICT_SIGNALS_H_
#define FEEDPROF_ANALYSIS_VERDICT_SIGNALS_H_

#include <string>

#include "feedprof/analysis_report.h"

namespace feedprof::analysis {

// Gap histogram buckets the rules treat alike (kGapBucketUpperNs): gaps in
// the first kRefillBuckets (≤ 1 ms) that follow a sync are the refill after
// a drain, claimed by the sync rule; the first kShortBuckets (≤ 100 µs) are
// launch-sized, longer ones are waits for input.
inline constexpr size_t kRefillBuckets = 3;
inline constexpr size_t kShortBuckets = 2;

struct VerdictSignals {
  TimeNs span_ns = 0;
  TimeNs busy_ns = 0;
  double busy_share = 0;
  double idle_share = 0;
  IdleByCause idle;          // summed over devices
  IdleByCause after_sync;    // idle of gaps that followed a sync
  IdleByCause sync_claimed;  // the part of it the sync rule claims
  // Shares of the span explained by each candidate cause (see
  // docs/verdict-rules.md for the formulas).
  double launch = 0;
  double preprocessing = 0;
  double io = 0;
  double sync = 0;
  double transfer = 0;
  double latency = 0;
  double gpu = 0;
  TimeNs exposed_memcpy_ns = 0;
  TimeNs small_grid_ns = 0;
  TimeNs short_gap_idle_ns = 0;  // idle in gaps ≤ 100 µs
  TimeNs long_gap_idle_ns = 0;
};

VerdictSignals ComputeVerdictSignals(const Report& report);

// The program thread that used the most CPU (profiler threads are never in
// HostReport::threads), nullptr without samples or CPU time. Evidence and
// next steps name it.
const ThreadReport* BusiestProgramThread(const HostReport& host);
// "\"name\" (pid/tid)", or "thread pid/tid" when unnamed.
std::string ThreadName(const ThreadReport& t);

}  // namespace feedprof::analysis

#endif  // FEEDPROF_ANALYSIS_VERDICT_SIGNALS_H_
