// The analysis of a timeline up to, and not including, the what-if replay.
//
// The measured sections of a report (devices, gaps, launches, syncs,
// copies, host, steps, ranks, platform) and the verdict need only the
// prepared timeline; the what-if replay needs them finished, and the next
// steps need the replay's prices. The analysis stops here and hands over
// what the replay reads, so that analysis/ never depends on replay/: the
// pipeline (pipeline/analyze.cc) runs one after the other.
#ifndef FEEDPROF_ANALYSIS_ANALYSIS_BEFORE_REPLAY_H_
#define FEEDPROF_ANALYSIS_ANALYSIS_BEFORE_REPLAY_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "analysis/prepared_timeline.h"
#include "analysis/verdict_signals.h"
#include "feedprof/analysis_report.h"
#include "feedprof/timeline.h"

namespace feedprof::analysis {

struct AnalysisBeforeReplay {
  PreparedTimeline prepared;  // the views the report was computed from
  Report report;              // every section but what_if; the verdict
                              // without next steps
  VerdictSignals signals;     // what the verdict was decided on
};

// Prepares `timeline` and runs every pass but the replay. `releasable` is
// the timeline itself where its owner lets the analysis free the events it
// has no further use for (ranges and marks once they are digested, the rest
// before the replay), else null. Calls options.on_phase for kPreparing and
// kStepsAndGaps. `pids`, when not empty, restricts the analysis to those
// processes (as options.rank does to a rank's). Errors: an empty window, an
// unknown rank.
absl::StatusOr<AnalysisBeforeReplay> AnalyzeBeforeReplay(
    const Timeline& timeline, Timeline* releasable,
    const AnalysisOptions& options, const std::vector<int32_t>& pids = {});

}  // namespace feedprof::analysis

#endif  // FEEDPROF_ANALYSIS_ANALYSIS_BEFORE_REPLAY_H_
