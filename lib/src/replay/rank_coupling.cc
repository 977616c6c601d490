// Ranks coupled at collectives (see rank_coupling.h).
#include "replay/rank_coupling.h"

#include <algorithm>

namespace feedprof::replay {

bool SetCollectiveWaits(const Report& report, bool by_steps,
                        std::vector<ProcessRun>* runs) {
  const CollectivesReport& c = report.collectives;
  if (runs->size() < 2 || !c.available || !c.clocks_aligned || c.wait_ns <= 0) {
    return false;
  }
  std::vector<TimeNs> waits;
  for (const ProcessRun& r : *runs) {
    const RankReport* row = nullptr;
    for (const RankReport& k : report.ranks) {
      if (std::find(k.pids.begin(), k.pids.end(), r.pid) != k.pids.end()) {
        row = &k;
      }
    }
    if (row == nullptr || row->pids.size() != 1) return false;
    const size_t units = by_steps ? r.steps.size() : 1;
    waits.push_back(
        units > 0 ? row->collective_wait_ns / static_cast<TimeNs>(units) : 0);
  }
  for (size_t i = 0; i < runs->size(); ++i) {
    (*runs)[i].collective_wait = waits[i];
  }
  return true;
}

void CoupleRanks(const std::vector<ProcessRun>& runs, WhatIfScenario* s) {
  TimeNs base_median = 0, base_mean = 0, median = 0, mean = 0;
  TimeNs observed_median = 0, observed_mean = 0;
  for (size_t i = 0; i < runs.size() && i < s->ranks.size(); ++i) {
    WhatIfRank& k = s->ranks[i];
    const TimeNs wait = runs[i].collective_wait;
    k.collective_wait_ns = wait;
    base_median = std::max(base_median, k.observed_median_ns - wait);
    base_mean = std::max(base_mean, k.observed_mean_ns - wait);
    median = std::max(median, k.predicted_median_ns - wait);
    mean = std::max(mean, k.predicted_mean_ns - wait);
    observed_median = std::max(observed_median, k.observed_median_ns);
    observed_mean = std::max(observed_mean, k.observed_mean_ns);
  }
  s->predicted_median_ns =
      observed_median - std::max<TimeNs>(0, base_median - median);
  s->predicted_mean_ns = observed_mean - std::max<TimeNs>(0, base_mean - mean);
}

}  // namespace feedprof::replay
