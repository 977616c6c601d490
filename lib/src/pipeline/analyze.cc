// Analyze() (feedprof/analysis.h): each rank's analysis and the ranks
// compared, the analysis, then the what-if replay, then the next steps
// priced by it.
//
// The order is the data's: the replay reads the finished measurements, and
// the next steps are sorted by what the replay says each is worth. Keeping
// the sequence here, above both, lets analysis/ and replay/ each depend only
// on what lies below them.
#include "analysis/analysis_before_replay.h"
#include "analysis/analysis_passes.h"
#include "analysis/platform_findings.h"
#include "feedprof/analysis.h"
#include "ranks/rank_analysis.h"
#include "replay/next_step_prices.h"
#include "replay/what_if.h"

namespace feedprof {
namespace {

absl::StatusOr<Report> AnalyzeThenReplay(const Timeline& timeline,
                                         Timeline* releasable,
                                         const AnalysisOptions& options) {
  // Counted before the analysis may free some of the timeline's events.
  const uint64_t events = analysis::PreparedTimeline::CountEvents(timeline);
  // Each rank alone first: the run's analysis may free events they read.
  const std::vector<ranks::RankSummary> rank_summaries =
      ranks::SummarizeRanks(timeline, options);
  absl::StatusOr<analysis::AnalysisBeforeReplay> measured =
      analysis::AnalyzeBeforeReplay(timeline, releasable, options);
  if (!measured.ok()) return measured.status();
  Report& report = measured->report;
  ranks::AddRankAnalysis(rank_summaries, &report);
  if (options.what_if.enabled && report.has_gpu_activity && options.on_phase) {
    options.on_phase(AnalysisPhase::kWhatIf, events);
  }
  report.what_if =
      replay::ComputeWhatIf(measured->prepared, report, options.what_if);
  replay::PriceNextSteps(analysis::NextStepsFor(report, measured->signals),
                         report.what_if, &report.verdict);
  ranks::AddStragglerNextSteps(&report);
  analysis::AddPlatformNextSteps(report, &report.verdict);
  return std::move(report);
}

}  // namespace

absl::StatusOr<Report> Analyze(const Timeline& timeline,
                               const AnalysisOptions& options) {
  return AnalyzeThenReplay(timeline, nullptr, options);
}

absl::StatusOr<Report> Analyze(Timeline&& timeline,
                               const AnalysisOptions& options) {
  return AnalyzeThenReplay(timeline, &timeline, options);
}

}  // namespace feedprof
