// Finds the rank(s) the others wait for at collectives, and why they are
// late.
//
// At each matched collective the last rank to arrive makes every other
// rank wait; over a run, the ranks that cause most of that waiting are the
// ones to fix, and the rank with the longest step is often a victim (it
// waited longest). Why a late rank is late is read from what its GPU did
// before its late arrivals, beside what the other ranks' GPUs did before
// the same collectives: more kernels (more work: load imbalance, a slower
// GPU), or idle gaps, whose causes (input not ready, a sync, launch
// overhead) say what held its host back.
#ifndef FEEDPROF_RANKS_STRAGGLER_H_
#define FEEDPROF_RANKS_STRAGGLER_H_

#include <vector>

#include "feedprof/analysis_report.h"
#include "ranks/collective_matching.h"
#include "ranks/rank_summary.h"

namespace feedprof::ranks {

// What each rank did at the matched collectives (by summary index).
struct RankWaits {
  uint64_t collectives = 0;
  TimeNs wait_ns = 0;
  uint64_t arrived_last = 0;
  TimeNs caused_wait_ns = 0;
};

// The waits of each rank over the aligned collectives of `run`.
std::vector<RankWaits> WaitsOf(const std::vector<RankSummary>& ranks,
                               const MatchedRun& run);

// Below this share of the ranks' time waiting at collectives, no rank is
// named: 2 %.
inline constexpr double kStragglerMinWaitShare = 0.02;

Straggler FindStraggler(const std::vector<RankSummary>& ranks,
                        const MatchedRun& run,
                        const std::vector<RankWaits>& waits);

}  // namespace feedprof::ranks

#endif  // FEEDPROF_RANKS_STRAGGLER_H_
