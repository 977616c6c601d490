// What-if models (Report::what_if) with round numbers, as the replay would
// fill them, for the tests of the renderers and of `diff`: they test how a
// prediction is shown and compared, independently of the replay itself.
#ifndef FEEDPROF_TESTS_TESTING_WHAT_IF_SAMPLE_H_
#define FEEDPROF_TESTS_TESTING_WHAT_IF_SAMPLE_H_

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "feedprof/analysis.h"

namespace feedprof::testing {

// The first scenario of `w` with id `id`; null when it has none.
inline const WhatIfScenario* FindScenario(const WhatIf& w,
                                          WhatIfScenarioId id) {
  for (const WhatIfScenario& s : w.scenarios) {
    if (s.id == id) return &s;
  }
  return nullptr;
}

// A scenario that saves `saving_share` of `observed_ns`.
inline WhatIfScenario MakeScenario(WhatIfScenarioId id, std::string title,
                                   TimeNs observed_ns, double saving_share,
                                   uint64_t edits) {
  WhatIfScenario s;
  s.id = id;
  s.title = std::move(title);
  s.assumption = std::string("assumed for ") + WhatIfScenarioName(s.id);
  s.edits = edits;
  s.saving_ns = static_cast<TimeNs>(
      std::llround(static_cast<double>(observed_ns) * saving_share));
  s.saving_share = saving_share;
  s.predicted_median_ns = observed_ns - s.saving_ns;
  s.predicted_mean_ns = s.predicted_median_ns + 50'000;
  return s;
}

inline WhatIfScenario MakeSyncScenario(TimeNs observed_ns, double saving_share,
                                       std::string api, std::string call_site,
                                       std::string reason) {
  WhatIfScenario s =
      MakeScenario(WhatIfScenarioId::kRemoveSync, "sync point removed",
                   observed_ns, saving_share, 5);
  s.sync_api = std::move(api);
  s.sync_call_site = std::move(call_site);
  s.sync_reason = std::move(reason);
  return s;
}

// Per step over 40 steps, observed median 1.2 ms; five scenarios by
// saving: input ready 400 µs (1/3), the sync 150 µs (12.5%), launches
// 60 µs (5%), GPU 30 µs (2.5%), pinning nothing (no pageable copies).
inline WhatIf SampleWhatIf() {
  constexpr TimeNs kObserved = 1'200'000;
  WhatIf w;
  w.available = true;
  w.basis = WhatIfBasis::kSteps;
  w.steps = 40;
  w.observed_median_ns = kObserved;
  w.observed_mean_ns = 1'250'000;
  w.replayed_median_ns = 1'210'000;
  w.self_check_error = 0.008;
  w.gpu_speedup = 0.2;
  w.launch_cost_ns = 1'500;
  w.launch_cost_source = "CUDA graph replay per kernel";
  w.pinned_htod_gbps = 24.5;
  w.pinned_dtoh_gbps = 0;
  w.pinned_source = "the trace's pinned copies";
  w.scenarios = {
      MakeScenario(WhatIfScenarioId::kInputReady, "next batch always ready",
                   kObserved, 1.0 / 3, 40),
      MakeSyncScenario(kObserved, 0.125, "cudaStreamSynchronize",
                       "train_step (train.py:42)", "explicit synchronization"),
      MakeScenario(WhatIfScenarioId::kCheaperLaunches,
                   "launches at CUDA graph cost", kObserved, 0.05, 80),
      MakeScenario(WhatIfScenarioId::kFasterGpu, "kernels 20% faster",
                   kObserved, 0.025, 80),
      MakeScenario(WhatIfScenarioId::kPinCopies, "pageable copies pinned",
                   kObserved, 0, 0),
  };
  return w;
}

}  // namespace feedprof::testing

#endif  // FEEDPROF_TESTS_TESTING_WHAT_IF_SAMPLE_H_
