#include "ranks/rank_analysis.h"

#include <algorithm>
#include <string>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "analysis/analysis_before_replay.h"
#include "analysis/analysis_passes.h"
#include "ranks/collective_matching.h"
#include "ranks/straggler.h"

namespace feedprof::ranks {
namespace {

// At most this many of the straggler's own next steps lead the job's.
constexpr size_t kStragglerNextSteps = 2;

// The row of a rank, or of a process without a rank.
RankReport* FindRow(std::vector<RankReport>* rows, const RankSummary& s) {
  for (RankReport& r : *rows) {
    if (s.rank >= 0 ? r.rank == s.rank
                    : r.rank < 0 && !r.pids.empty() && !s.pids.empty() &&
                          r.pids.front() == s.pids.front()) {
      return &r;
    }
  }
  return nullptr;
}

}  // namespace

std::vector<RankSummary> SummarizeRanks(const Timeline& timeline,
                                        const AnalysisOptions& options,
                                        size_t min_groups) {
  if (options.rank.has_value()) return {};
  const std::vector<ComparedGroup> groups =
      GroupsToCompare(timeline, min_groups);
  std::vector<RankSummary> out;
  out.reserve(groups.size());
  for (const ComparedGroup& group : groups) {
    AnalysisOptions one = options;
    if (group.rank >= 0) one.rank = group.rank;
    one.on_phase = nullptr;
    one.what_if.enabled = false;
    absl::StatusOr<analysis::AnalysisBeforeReplay> analysed =
        analysis::AnalyzeBeforeReplay(
            timeline, nullptr, one,
            group.rank >= 0 ? std::vector<int32_t>{} : group.pids);
    if (!analysed.ok()) continue;
    out.push_back(SummarizeRank(*analysed, group.rank));
  }
  return out;
}

void AddRankAnalysis(const std::vector<RankSummary>& ranks, Report* report) {
  if (ranks.size() < 2) return;
  const MatchedRun run = MatchCollectives(ranks);
  const std::vector<RankWaits> waits = WaitsOf(ranks, run);
  report->collectives = run.report;
  for (size_t i = 0; i < ranks.size(); ++i) {
    RankReport* row = FindRow(&report->ranks, ranks[i]);
    if (row == nullptr) {
      report->ranks.push_back(ranks[i].figures);
      row = &report->ranks.back();
    }
    row->verdict = ranks[i].verdict;
    row->clock_offset_ns = run.clock_offsets[i];
    if (!run.report.clocks_aligned) continue;
    row->collectives = waits[i].collectives;
    row->collective_wait_ns = waits[i].wait_ns;
    row->arrived_last = waits[i].arrived_last;
    row->caused_wait_ns = waits[i].caused_wait_ns;
    report->collectives.wait_ns += waits[i].wait_ns;
  }
  std::sort(report->ranks.begin(), report->ranks.end(),
            [](const RankReport& a, const RankReport& b) {
              const int32_t pa = a.pids.empty() ? 0 : a.pids.front();
              const int32_t pb = b.pids.empty() ? 0 : b.pids.front();
              return std::tie(a.rank, pa) < std::tie(b.rank, pb);
            });
  TimeNs spans = 0;
  for (const RankSummary& r : ranks) {
    if (!r.collectives.empty()) spans += r.figures.span_ns;
  }
  if (spans > 0) {
    report->collectives.wait_share =
        static_cast<double>(report->collectives.wait_ns) /
        static_cast<double>(spans);
  }
  for (const std::string& w : run.warnings) report->warnings.push_back(w);

  report->straggler = FindStraggler(ranks, run, waits);
  const Straggler& s = report->straggler;
  if (s.kind == StragglerKind::kNone) return;
  // The stragglers' rows are marked; the other ranks that took part in
  // collectives are the ones that waited.
  TimeNs waiting_spans = 0;
  for (size_t i = 0; i < ranks.size(); ++i) {
    if (std::find(s.pids.begin(), s.pids.end(), ranks[i].pids.front()) !=
        s.pids.end()) {
      if (RankReport* row = FindRow(&report->ranks, ranks[i])) {
        row->straggler = true;
      }
    } else if (waits[i].collectives > 0) {
      waiting_spans += ranks[i].figures.span_ns;
    }
  }
  // The finding is evidence; where the waiting weighs as much as a verdict
  // rule needs, it is the job's verdict: the late rank's cause, the run's
  // own verdict kept as the runner-up.
  Verdict& v = report->verdict;
  const bool decides = s.cause != VerdictClass::kInconclusive &&
                       waiting_spans > 0 &&
                       static_cast<double>(s.caused_wait_ns) /
                               static_cast<double>(waiting_spans) >=
                           kLateRankVerdictWaitShare;
  if (!decides) {
    v.evidence.insert(v.evidence.begin() + (v.evidence.empty() ? 0 : 1),
                      s.explanation);
    return;
  }
  v.evidence.insert(v.evidence.begin(), s.explanation);
  if (v.primary != s.cause) {
    v.runner_up = v.primary;
    v.primary = s.cause;
  }
  v.basis = VerdictBasis::kLateRank;
}

void AddStragglerNextSteps(Report* report) {
  const Straggler& s = report->straggler;
  if (report->verdict.basis != VerdictBasis::kLateRank || s.pids.empty() ||
      s.next_steps.empty()) {
    return;
  }
  Verdict& v = report->verdict;
  std::vector<std::string> lead;
  for (size_t i = 0;
       i < s.next_steps.size() && lead.size() < kStragglerNextSteps; ++i) {
    // A step the run's own list already gives is not repeated.
    if (std::find(v.next_steps.begin(), v.next_steps.end(), s.next_steps[i]) !=
        v.next_steps.end()) {
      continue;
    }
    lead.push_back(absl::StrCat("On ",
                                s.ranks.empty()
                                    ? absl::StrCat("pid ", s.pids.front())
                                    : absl::StrCat("rank ", s.ranks.front()),
                                " (the ", s.ranks.empty() ? "process" : "rank",
                                " the others wait for): ", s.next_steps[i]));
  }
  v.next_steps.insert(v.next_steps.begin(), lead.begin(), lead.end());
  for (NextStepEstimate& e : v.next_step_estimates) e.step += lead.size();
}

}  // namespace feedprof::ranks
