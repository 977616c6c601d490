// PhaseProgressLine: the analysis phase on the terminal (see
// phase_progress_line.h).
#include "analysis/phase_progress_line.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace feedprof::analysis {

std::string FormatEventCount(uint64_t events) {
  const double n = static_cast<double>(events);
  if (events < 10'000) return absl::StrCat(events, " events");
  if (events < 1'000'000) return absl::StrFormat("%.1f k events", n / 1e3);
  if (events < 1'000'000'000) return absl::StrFormat("%.1f M events", n / 1e6);
  return absl::StrFormat("%.1f G events", n / 1e9);
}

std::string FormatAnalysisProgressLine(std::string_view what, uint64_t events,
                                       AnalysisPhase phase,
                                       std::chrono::nanoseconds elapsed) {
  const auto seconds =
      std::chrono::duration_cast<std::chrono::seconds>(elapsed).count();
  return absl::StrCat(
      "feedprof: analysing ", std::string(what), " (", FormatEventCount(events),
      "): ", AnalysisPhaseName(phase), ", ",
      common::FormatProgressSeconds(seconds > 0 ? static_cast<uint64_t>(seconds)
                                                : 0));
}

PhaseProgressLine::PhaseProgressLine(std::string what,
                                     common::ProgressLine::Output output,
                                     bool tick)
    : what_(std::move(what)), line_(std::move(output)) {
  if (tick && line_.enabled()) ticker_ = std::thread([this] { Tick(); });
}

PhaseProgressLine::~PhaseProgressLine() {
  if (ticker_.joinable()) {
    {
      std::lock_guard<std::mutex> lock(stop_mutex_);
      stop_ = true;
    }
    stop_changed_.notify_one();
    ticker_.join();
  }
  line_.Clear();
}

void PhaseProgressLine::OnPhase(AnalysisPhase phase, uint64_t events) {
  if (!line_.enabled()) return;
  {
    std::lock_guard<std::mutex> lock(phase_mutex_);
    started_ = true;
    phase_ = phase;
    events_ = events;
  }
  ShowIfDue();
}

void PhaseProgressLine::ShowIfDue() {
  {
    std::lock_guard<std::mutex> lock(phase_mutex_);
    if (!started_) return;
  }
  line_.ShowIfDue([this](common::ProgressLine::Clock::duration elapsed) {
    std::lock_guard<std::mutex> lock(phase_mutex_);
    return FormatAnalysisProgressLine(what_, events_, phase_, elapsed);
  });
}

void PhaseProgressLine::Tick() {
  std::unique_lock<std::mutex> lock(stop_mutex_);
  while (!stop_changed_.wait_for(lock, common::ProgressLine::kRefreshPeriod,
                                 [this] { return stop_; })) {
    ShowIfDue();
  }
}

}  // namespace feedprof::analysis
