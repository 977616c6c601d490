// The analysis across the ranks of a job: each rank analysed alone, its
// collectives matched with the other ranks', the rank everyone waits for
// found, and the job's verdict taken from why that rank is late.
//
// A run's merged figures average the ranks: a rank that starves for input
// and seven that spin in NCCL waiting for it add up to a busy job. The
// job's limit is the late rank's own: this area finds it (straggler.h)
// from the ranks' summaries (rank_summary.h), which the pipeline takes
// from one analysis per rank before analysing the whole run.
#ifndef FEEDPROF_RANKS_RANK_ANALYSIS_H_
#define FEEDPROF_RANKS_RANK_ANALYSIS_H_

#include <vector>

#include "absl/status/statusor.h"
#include "feedprof/analysis_report.h"
#include "feedprof/timeline.h"
#include "ranks/rank_summary.h"

namespace feedprof::ranks {

// Analyses each rank (rank_summary.h, GroupsToCompare) that ran GPU work
// on its own; empty when there are fewer than `min_groups`, or
// options.rank chooses one. A rank whose analysis fails (no events in the
// window) is left out.
std::vector<RankSummary> SummarizeRanks(const Timeline& timeline,
                                        const AnalysisOptions& options,
                                        size_t min_groups = 2);

// The share of the waiting ranks' time that waiting for the late rank(s)
// must take for the job's verdict to come from them: 10 %, the lowest
// threshold of a verdict rule (docs/verdict-rules.md).
inline constexpr double kLateRankVerdictWaitShare = 0.10;

// Adds what the ranks' summaries tell together to `report`: each
// RankReport's collective waits and own verdict, Report::collectives,
// Report::straggler and their warnings, the finding as evidence, and —
// where the others wait for the late rank(s) kLateRankVerdictWaitShare of
// their time or more — the job's verdict from its cause.
void AddRankAnalysis(const std::vector<RankSummary>& ranks, Report* report);

// Puts the straggler's own next steps (Straggler::next_steps, prefixed with
// its rank) before the verdict's, moving the priced steps' indices; call
// after the next steps are priced.
void AddStragglerNextSteps(Report* report);

}  // namespace feedprof::ranks

#endif  // FEEDPROF_RANKS_RANK_ANALYSIS_H_
