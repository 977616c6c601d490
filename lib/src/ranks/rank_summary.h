// What the analysis across ranks needs of one rank: its figures and
// verdict, its steps, and its communication kernels with what led up to
// each.
//
// The ranks of a job are compared at their collectives, where every rank
// must arrive before any can finish. Whether a rank arrived late, and why,
// is told by what its GPU did between its previous collective and its
// arrival: kernels (more work than the others) or idle gaps, each with the
// cause the idle-gap classifier gives it (waiting for input, a sync, launch
// overhead...). A summary holds that per collective, so the comparison
// never needs the rank's events again: the same summaries come from one
// merged timeline or from ranks analysed on different machines.
#ifndef FEEDPROF_RANKS_RANK_SUMMARY_H_
#define FEEDPROF_RANKS_RANK_SUMMARY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/analysis_before_replay.h"
#include "feedprof/analysis_report.h"
#include "feedprof/timeline.h"

namespace feedprof::ranks {

// One communication kernel of a rank.
struct CollectiveArrival {
  CollectiveOp op = CollectiveOp::kOther;
  // The order of the stream among the rank's communication streams (by
  // their first communication kernel): NCCL gives each communicator its
  // own stream, created in the same order on every rank.
  uint32_t stream_ordinal = 0;
  uint32_t sequence = 0;  // the k-th kernel of (op, stream_ordinal)
  TimeNs start = 0;       // its arrival
  TimeNs end = 0;
  // Since the end of the device's previous communication kernel (or its
  // first op): the time, and the GPU idle in it by cause; the rest was
  // busy.
  TimeNs lead_up_ns = 0;
  IdleByCause lead_up_idle;
  int32_t step = -1;  // index into RankSummary::steps holding `start`
};

struct RankSummary {
  int32_t rank = -1;  // -1: a process of a run without ranks
  std::vector<int32_t> pids;
  RankReport figures;  // span, busy, steps, communication; no cross-rank
                       // fields yet
  VerdictClass verdict = VerdictClass::kInconclusive;
  std::vector<std::string> next_steps;  // its own analysis's, unpriced
  std::string top_idle_location;        // "" when the trace has none
  std::vector<StepInfo> steps;          // its steps, in order
  // Per step: the start of its first GPU op in the step (0: none). A
  // step's range starts where the previous one ended, so a rank whose host
  // is late shows it here, not in the range.
  std::vector<TimeNs> step_first_op;
  std::vector<CollectiveArrival> collectives;  // by start
};

// The summary of one rank (or process: rank -1) from the analysis of it
// alone.
RankSummary SummarizeRank(const analysis::AnalysisBeforeReplay& analysed,
                          int32_t rank);

// "rank 3", or "pid 4242" for a process without a rank.
std::string NameOf(const RankSummary& rank);

// What is compared across a run: its ranks (>= 0) that ran GPU work, each
// with its processes, in rank order; where fewer than two ranks ran GPU
// work, each process that did and has no rank, alone (rank -1), in pid
// order. Empty when that gives fewer than `min_groups`.
struct ComparedGroup {
  int32_t rank = -1;
  std::vector<int32_t> pids;
};
std::vector<ComparedGroup> GroupsToCompare(const Timeline& timeline,
                                           size_t min_groups = 2);

}  // namespace feedprof::ranks

#endif  // FEEDPROF_RANKS_RANK_SUMMARY_H_
