// The analyzer: turns a Timeline into a report model that says which feeding
// of the GPU limits a run, with the numbers behind it and what each next
// step is worth by a what-if replay (docs/what-if.md).
//
// The report model and the options are in feedprof/analysis_report.h; the
// numbers are defined in docs/metrics.md, the verdict rules in
// docs/verdict-rules.md.
#ifndef FEEDPROF_ANALYSIS_H_
#define FEEDPROF_ANALYSIS_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "feedprof/analysis_report.h"
#include "feedprof/timeline.h"

namespace feedprof {

// Analyses `timeline`. Errors (an empty window, an unknown rank) name what is
// wrong; a timeline without GPU activity is not an error: the report says so
// and the verdict is inconclusive.
absl::StatusOr<Report> Analyze(const Timeline& timeline,
                               const AnalysisOptions& options);
// The same report, for a caller that has no further use for `timeline`
// (the analyze, report and diff commands): its ranges and marks are freed
// once the analysis has taken what it needs of them, before it builds its
// views of the calls and ops, and the sync records and host and counter
// samples before the what-if replay builds its models, so that each takes
// their place instead of adding to them. `timeline` is left without those
// events.
absl::StatusOr<Report> Analyze(Timeline&& timeline,
                               const AnalysisOptions& options);

// The analysis options for steps `first`..`last` of `timeline` (counted
// from 1 in the order Report::steps lists them, inclusive): `options` with
// the window from just inside the first step's start to just inside the
// last one's end. Errors name the problem: no steps, a range outside the
// steps (with their count), or a window given as well.
absl::StatusOr<AnalysisOptions> WindowOfSteps(const Timeline& timeline,
                                              const AnalysisOptions& options,
                                              uint64_t first, uint64_t last);

}  // namespace feedprof

#endif  // FEEDPROF_ANALYSIS_H_
