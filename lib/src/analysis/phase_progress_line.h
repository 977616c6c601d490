// A progress line on stderr while a trace is analysed.
//
// After the reading line (common/read_progress.h) is erased, a big trace
// still takes seconds to analyse and more to replay for the what-if; the
// passes give no sign of life in between. Analyze reports where it is at
// each phase boundary (AnalysisOptions::on_phase); this line shows the
// phase and the time the analysis has taken so far, refreshed from a
// thread of its own so that the seconds keep counting inside a long phase:
//
//   feedprof: analysing trace.fpt (61.1 M events): what-if replay, 9 s
//
// It follows the terminal rules of every progress line (ProgressLine):
// only on a terminal, only after a second, erased when done. When stderr is
// no terminal no thread is started and nothing is written.
#ifndef FEEDPROF_ANALYSIS_PHASE_PROGRESS_LINE_H_
#define FEEDPROF_ANALYSIS_PHASE_PROGRESS_LINE_H_

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

#include "common/progress_line.h"
#include "feedprof/analysis_report.h"

namespace feedprof::analysis {

// "12 events", "812.4 k events", "61.1 M events", "1.2 G events".
std::string FormatEventCount(uint64_t events);

// The line's text without the terminal codes, e.g. "feedprof: analysing
// trace.fpt (61.1 M events): what-if replay, 9 s"; the time is the whole
// seconds since the analysis began (rounded down).
std::string FormatAnalysisProgressLine(std::string_view what, uint64_t events,
                                       AnalysisPhase phase,
                                       std::chrono::nanoseconds elapsed);

class PhaseProgressLine {
 public:
  // The analysis of `what` (the input's path) starts now. With `tick`, a
  // thread refreshes the line (only when it is shown at all); tests leave
  // it off and call ShowIfDue themselves.
  explicit PhaseProgressLine(std::string what,
                             common::ProgressLine::Output output = {},
                             bool tick = true);
  // Stops the refreshing thread and erases the line.
  ~PhaseProgressLine();
  PhaseProgressLine(const PhaseProgressLine&) = delete;
  PhaseProgressLine& operator=(const PhaseProgressLine&) = delete;

  // Analyze entered `phase` (AnalysisOptions::on_phase). Any thread.
  void OnPhase(AnalysisPhase phase, uint64_t events);
  // Shows the line when it is due (ProgressLine) and a phase has begun.
  void ShowIfDue();

 private:
  void Tick();

  const std::string what_;
  common::ProgressLine line_;
  // Taken by OnPhase's caller and, inside the line's own lock, by
  // whichever thread shows the line; guards the three fields below.
  std::mutex phase_mutex_;
  bool started_ = false;
  AnalysisPhase phase_ = AnalysisPhase::kPreparing;
  uint64_t events_ = 0;
  // The refreshing thread sleeps on `stop_` between refreshes; the
  // destructor sets it. Taken by that thread and the destructor.
  std::mutex stop_mutex_;
  std::condition_variable stop_changed_;
  bool stop_ = false;
  std::thread ticker_;
};

}  // namespace feedprof::analysis

#endif  // FEEDPROF_ANALYSIS_PHASE_PROGRESS_LINE_H_
