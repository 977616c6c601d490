// How the what-if replay (Report::what_if, docs/what-if.md) is worded in
// every renderer: a scenario's label, the basis of its figures, the
// assumptions as applied and the note that these are estimates.
//
// The text report, the HTML report and the three diff writers all name
// scenarios and state the replay's parameters; one place words them so a
// scenario reads the same on a terminal, in a page and in a diff.
#ifndef FEEDPROF_REPORT_WHAT_IF_WORDING_H_
#define FEEDPROF_REPORT_WHAT_IF_WORDING_H_

#include <string>
#include <vector>

#include "feedprof/analysis_report.h"

namespace feedprof::report {

// Said wherever a prediction is shown: they are never measurements.
inline constexpr const char* kWhatIfEstimateNote =
    "estimates from a replay of the trace, not measurements";
// What the replay leaves out, for the assumptions.
inline constexpr const char* kWhatIfIgnores =
    "The replay keeps every other duration as recorded: it ignores "
    "contention a change would create (PCIe, CPU cores, memory) and CPU "
    "time that would move elsewhere (docs/what-if.md).";

// A scenario in one line: its title; for remove_sync also the group's
// call and call site ("...: cudaStreamSynchronize at train.py:42"), each
// unless the title names it already.
std::string WhatIfScenarioLabel(WhatIfScenarioId id, const std::string& title,
                                const std::string& sync_api,
                                const std::string& sync_call_site);
std::string WhatIfScenarioLabel(const WhatIfScenario& scenario);

// "per step, median of 40 steps" or "span of the analysed window (no
// steps)".
std::string WhatIfBasis(const WhatIf& what_if);

// The parameters as applied, one phrase each: the GPU speedup, the launch
// cost and where it comes from, the pinned bandwidths and their source
// ("...; source: ...").
std::vector<std::string> WhatIfAssumptions(const WhatIf& what_if);

// Why there is no what-if: the model's reason, or that none was run.
// The launch queue as the replay models it: its depth and the calls it
// held, or that the trace never filled it.
std::string WhatIfLaunchQueue(const WhatIf& w);

std::string WhatIfUnavailableReason(const WhatIf& what_if);

// A relative change of the step time as a signed percentage, "-29.8%"
// ("0.0%" when it rounds to zero).
std::string SignedPercent(double relative);

}  // namespace feedprof::report

#endif  // FEEDPROF_REPORT_WHAT_IF_WORDING_H_
