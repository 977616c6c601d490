// What the analysis needs of the host ranges, taken in one place while the
// timeline is prepared.
//
// Ranges are half the events of a big feedprof trace and a third of a
// Kineto one's, yet the analysis needs little of them: the ranges that mark
// the steps, how long DataLoader ranges ran, how many ranges the window
// holds, and the thread each step was recorded on. Taking those once,
// before the devices' and threads' views are built, means no pass reads
// Timeline::ranges afterwards; a caller that hands its timeline over
// (Analyze(Timeline&&)) has the ranges freed there, so that the views and
// the passes take their place instead of adding to them.
#ifndef FEEDPROF_ANALYSIS_RANGE_DIGEST_H_
#define FEEDPROF_ANALYSIS_RANGE_DIGEST_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "feedprof/analysis_report.h"
#include "feedprof/timeline.h"

namespace feedprof::analysis {

// Whether `pid` is among `pids` (sorted; empty: every process).
bool PidSelected(const std::vector<int32_t>& pids, int32_t pid);

struct RangeDigest {
  // The ranges that mark the steps (docs/metrics.md, "Steps"), by start
  // then end, one per (pid, start, end); empty when the window has none.
  std::vector<Range> steps;
  // Where they come from: "user:NAME", "ProfilerStep", "range:NAME"; empty
  // when there are no steps.
  std::string step_source;
  // For each of `steps`, the thread of the first range of the timeline
  // with its pid, start and end (StepInfo::tid).
  std::vector<int32_t> step_tids;
  // DataLoader ranges of the selected processes in the window, and their
  // time within it.
  uint64_t dataloader_ranges = 0;
  TimeNs dataloader_ns = 0;
  // Ranges of the selected processes that overlap the window.
  uint64_t in_window = 0;
  // The selected processes' Python function ranges (indices into
  // Timeline::ranges, in its order), for CodeSpans (code_spans.h), which
  // takes them while the ranges are still there.
  std::vector<uint32_t> python_ranges;
  // The same with the framework operator ranges among them, for the code
  // profiles (code_profile.h).
  std::vector<uint32_t> stack_ranges;
  // The selected processes' ranges that say a thread produced input
  // (DataLoader operators, annotations named for loading input, Python
  // functions of data-loading code), for FindInputProduction
  // (input_production.h).
  std::vector<uint32_t> input_ranges;
};

// The digest of `timeline`'s ranges for the processes `pids` (sorted;
// empty: all) and the window `window`; `step_range_name` is --step-range
// (empty: the steps are found by name).
RangeDigest DigestRanges(const Timeline& timeline,
                         const std::vector<int32_t>& pids, const Window& window,
                         std::string_view step_range_name);

}  // namespace feedprof::analysis

#endif  // FEEDPROF_ANALYSIS_RANGE_DIGEST_H_
