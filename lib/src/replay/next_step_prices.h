// The next steps priced by the what-if: a step a scenario stands for ends
// with what the replay says it is worth, or, where the replay finds
// nothing, with why (docs/what-if.md, "Next steps").
#ifndef FEEDPROF_REPLAY_NEXT_STEP_PRICES_H_
#define FEEDPROF_REPLAY_NEXT_STEP_PRICES_H_

#include <vector>

#include "analysis/analysis_passes.h"
#include "feedprof/analysis_report.h"

namespace feedprof::replay {

// A saving under this share of the step (or span) is none: it prints as
// 0.0 %, and it is within what the replay's rounding moves.
inline constexpr double kNoSavingShare = 0.001;

// Sets verdict->next_steps and next_step_estimates from `steps`: the steps
// a scenario of `what_if` prices with a saving come first, by saving, their
// text ending with the estimate; the unpriced ones follow in their order;
// the steps whose scenario saves nothing come last, their text ending with
// the reason.
void PriceNextSteps(const std::vector<analysis::TaggedNextStep>& steps,
                    const WhatIf& what_if, Verdict* verdict);

}  // namespace feedprof::replay

#endif  // FEEDPROF_REPLAY_NEXT_STEP_PRICES_H_
