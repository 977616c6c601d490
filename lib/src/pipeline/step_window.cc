// WindowOfSteps (feedprof/analysis.h): steps A..B of a run as the window
// to analyse, export or compare.
//
// `export --steps` and `diff --steps` cut a run down to some of its steps;
// both take the same 1-based, inclusive numbering as the report lists steps,
// and the same window, so that a step count printed by one command means the
// same steps in the other.
#include "absl/strings/str_cat.h"
#include "feedprof/analysis.h"

namespace feedprof {

absl::StatusOr<AnalysisOptions> WindowOfSteps(const Timeline& timeline,
                                              const AnalysisOptions& options,
                                              uint64_t first, uint64_t last) {
  if (options.from || options.to) {
    return absl::InvalidArgumentError(
        "--steps and --from/--to both choose the window: give one of them");
  }
  if (first == 0 || last < first) {
    return absl::InvalidArgumentError(absl::StrCat(
        "steps ", first, ":", last,
        " are no range: steps count from 1 and the first comes first"));
  }
  // Only the steps are needed: the what-if replay is left out.
  AnalysisOptions steps_only = options;
  steps_only.what_if.enabled = false;
  absl::StatusOr<Report> whole = Analyze(timeline, steps_only);
  if (!whole.ok()) return whole.status();
  const std::vector<StepInfo>& steps = whole->steps.steps;
  if (!whole->steps.available || steps.empty()) {
    return absl::FailedPreconditionError(
        "the trace has no steps (no ProfilerStep#N or step-like range); use "
        "--from/--to, or name the step range with --step-range");
  }
  if (last > steps.size()) {
    return absl::OutOfRangeError(absl::StrCat(
        "steps ", first, ":", last, " asked for, but the trace has ",
        steps.size(), " steps (", whole->steps.source,
        "): use 1:", steps.size(), " or less"));
  }
  // 1 ns inside the first step's start and the last one's end: a step that
  // ends where the selection starts (or starts where it ends) touches the
  // window without being selected, and the analysis keeps every step that
  // touches its window.
  AnalysisOptions window = options;
  const TimeNs base = whole->window.trace_start;
  window.from = steps[first - 1].start - base + 1;
  window.to = steps[last - 1].end - base - 1;
  if (*window.to <= *window.from) window.to = *window.from + 1;
  return window;
}

}  // namespace feedprof
