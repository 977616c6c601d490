// A progress line on the terminal while Analyze runs.
//
// Analysing a trace of tens of millions of events, and replaying it for the
// what-if, takes seconds after the reading line has gone. Commands that
// analyse make one of these around Analyze and pass Reporter() as
// AnalysisOptions::on_phase; the analysis itself never prints. The line is
// shown only when stderr is a terminal and the analysis has taken a second,
// is rewritten in place, and is erased when this object is destroyed:
//
//   feedprof: analysing trace.fpt (61.1 M events): what-if replay, 9 s
//
// (the phase Analyze is in, and the seconds since the analysis began).
#ifndef FEEDPROF_ANALYSIS_PROGRESS_H_
#define FEEDPROF_ANALYSIS_PROGRESS_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "feedprof/analysis_report.h"

namespace feedprof {

namespace analysis {
class PhaseProgressLine;
}  // namespace analysis

class AnalysisProgressLine {
 public:
  // The analysis of `what` (the input's path, as the reading line names
  // it) starts now.
  explicit AnalysisProgressLine(std::string what);
  // Erases the line: destroy it before writing anything else to stderr.
  ~AnalysisProgressLine();
  AnalysisProgressLine(const AnalysisProgressLine&) = delete;
  AnalysisProgressLine& operator=(const AnalysisProgressLine&) = delete;

  // For AnalysisOptions::on_phase; valid while this object lives.
  std::function<void(AnalysisPhase phase, uint64_t events)> Reporter();

 private:
  std::unique_ptr<analysis::PhaseProgressLine> line_;
};

}  // namespace feedprof

#endif  // FEEDPROF_ANALYSIS_PROGRESS_H_
