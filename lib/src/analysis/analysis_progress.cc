// AnalysisProgressLine (feedprof/analysis_progress.h): the public face of
// PhaseProgressLine, with the terminal as its output.
#include "feedprof/analysis_progress.h"

#include <utility>

#include "analysis/phase_progress_line.h"

namespace feedprof {

AnalysisProgressLine::AnalysisProgressLine(std::string what)
    : line_(std::make_unique<analysis::PhaseProgressLine>(std::move(what))) {}

AnalysisProgressLine::~AnalysisProgressLine() = default;

std::function<void(AnalysisPhase phase, uint64_t events)>
AnalysisProgressLine::Reporter() {
  analysis::PhaseProgressLine* line = line_.get();
  return [line](AnalysisPhase phase, uint64_t events) {
    line->OnPhase(phase, events);
  };
}

}  // namespace feedprof
