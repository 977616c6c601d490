// Matches the ranks' communication kernels into collectives and measures
// who waited for whom.
//
// Every rank of a communicator calls its collectives in the same order, so
// the k-th all-reduce on a rank's n-th communication stream is one
// operation on every rank that has it. A collective cannot finish before
// its last rank arrives, and it then finishes on all ranks within
// microseconds: its ends line up. That is the check of the matching and of
// the clocks: a rank whose ends sit a steady distance from the first
// rank's has a clock that is off by that much (ranks on other hosts), and
// its times are moved by it; a collective whose ends still do not line up
// was matched wrongly (a rank missed a collective, or the ranks form
// several communicators) and is left out of the waits.
#ifndef FEEDPROF_RANKS_COLLECTIVE_MATCHING_H_
#define FEEDPROF_RANKS_COLLECTIVE_MATCHING_H_

#include <cstdint>
#include <string>
#include <vector>

#include "feedprof/analysis_report.h"
#include "ranks/rank_summary.h"

namespace feedprof::ranks {

// One rank's part in a matched collective.
struct Participant {
  uint32_t rank_index = 0;        // into the summaries
  uint32_t collective_index = 0;  // into that summary's collectives
  TimeNs arrival = 0;             // start, on the first rank's clock
  TimeNs end = 0;                 // on the first rank's clock
  TimeNs wait_ns = 0;             // for the last arrival, within the kernel
};

struct MatchedCollective {
  CollectiveOp op = CollectiveOp::kOther;
  std::vector<Participant> participants;  // two or more, by rank index
  TimeNs last_arrival = 0;
  uint32_t last = 0;  // index into participants of the last to arrive
  TimeNs end_spread_ns = 0;
  bool aligned = false;  // ends line up: counted in the waits
};

struct MatchedRun {
  std::vector<MatchedCollective> collectives;  // by the last arrival
  // Per summary: the clock offset applied (subtracted from its times).
  std::vector<TimeNs> clock_offsets;
  CollectivesReport report;  // the counts (waits filled by the caller)
  std::vector<std::string> warnings;
};

// The largest distance between a collective's ends on its ranks for it to
// count as aligned: 50 µs, plus a tenth of its shortest kernel.
TimeNs EndTolerance(TimeNs shortest_kernel_ns);

MatchedRun MatchCollectives(const std::vector<RankSummary>& ranks);

}  // namespace feedprof::ranks

#endif  // FEEDPROF_RANKS_COLLECTIVE_MATCHING_H_
