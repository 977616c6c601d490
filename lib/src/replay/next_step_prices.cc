// Next steps priced by the what-if (see next_step_prices.h).
#include "replay/next_step_prices.h"

#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/units.h"
#include "replay/scenario_table.h"

namespace feedprof::replay {
namespace {

// Why `s` saves nothing: the scenario's reason, or, for cheaper launches
// on a host the launch queue paces, that one.
std::string NoSavingReason(const WhatIfScenario& s, const WhatIf& w) {
  if (s.id == WhatIfScenarioId::kCheaperLaunches && w.queue_held_calls > 0) {
    return "the host waits for a full launch queue, so cheaper calls would "
           "wait as long for the GPU to free a slot";
  }
  return ScenarioOf(s.id).no_saving;
}

const WhatIfScenario* ScenarioFor(const analysis::TaggedNextStep& step,
                                  const WhatIf& w) {
  if (!w.available || !step.scenario) return nullptr;
  for (const WhatIfScenario& sc : w.scenarios) {
    if (sc.id != *step.scenario || sc.edits == 0) continue;
    if (sc.id == WhatIfScenarioId::kRemoveSync &&
        (sc.sync_api != step.sync_api ||
         sc.sync_call_site != step.sync_call_site)) {
      continue;
    }
    return &sc;
  }
  return nullptr;
}

}  // namespace

void PriceNextSteps(const std::vector<analysis::TaggedNextStep>& steps,
                    const WhatIf& what_if, Verdict* verdict) {
  struct Priced {
    const analysis::TaggedNextStep* step;
    const WhatIfScenario* scenario;
  };
  std::vector<Priced> priced, rest, worthless;
  for (const analysis::TaggedNextStep& s : steps) {
    const WhatIfScenario* match = ScenarioFor(s, what_if);
    if (match == nullptr) {
      rest.push_back({&s, nullptr});
    } else if (match->saving_share < kNoSavingShare) {
      worthless.push_back({&s, match});
    } else {
      priced.push_back({&s, match});
    }
  }
  std::stable_sort(priced.begin(), priced.end(),
                   [](const Priced& a, const Priced& b) {
                     return a.scenario->saving_ns > b.scenario->saving_ns;
                   });
  verdict->next_steps.clear();
  verdict->next_step_estimates.clear();
  const auto estimate = [&](const WhatIfScenario& sc, std::string reason) {
    NextStepEstimate e;
    e.step = verdict->next_steps.size();
    e.scenario = sc.id;
    e.sync_api = sc.sync_api;
    e.sync_call_site = sc.sync_call_site;
    e.saving_ns = std::max<TimeNs>(0, sc.saving_ns);
    e.saving_share = std::max(0.0, sc.saving_share);
    e.no_saving_reason = std::move(reason);
    verdict->next_step_estimates.push_back(std::move(e));
  };
  const std::string per =
      what_if.basis == WhatIfBasis::kSteps ? " per step" : " of the span";
  for (const Priced& p : priced) {
    const WhatIfScenario& sc = *p.scenario;
    estimate(sc, "");
    verdict->next_steps.push_back(absl::StrCat(
        p.step->text, " Worth up to ~", common::FormatDuration(sc.saving_ns),
        per, " (", common::FormatPercent(sc.saving_share),
        ") by the what-if replay."));
  }
  for (const Priced& p : rest) verdict->next_steps.push_back(p.step->text);
  for (const Priced& p : worthless) {
    const std::string reason = NoSavingReason(*p.scenario, what_if);
    estimate(*p.scenario, reason);
    verdict->next_steps.push_back(absl::StrCat(
        p.step->text, " The what-if replay finds no saving: ", reason, "."));
  }
}

}  // namespace feedprof::replay
