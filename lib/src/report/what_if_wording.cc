// Wording of the what-if replay's figures (report/what_if_wording.h).
#include "report/what_if_wording.h"

#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/units.h"

namespace feedprof::report {

using common::Counted;
using common::FormatDuration;

std::string WhatIfScenarioLabel(WhatIfScenarioId id, const std::string& title,
                                const std::string& sync_api,
                                const std::string& sync_call_site) {
  std::string label = title.empty() ? WhatIfScenarioName(id) : title;
  if (id != WhatIfScenarioId::kRemoveSync) return label;
  if (!sync_api.empty() && label.find(sync_api) == std::string::npos) {
    absl::StrAppend(&label, ": ", sync_api);
  }
  if (!sync_call_site.empty() &&
      label.find(sync_call_site) == std::string::npos) {
    absl::StrAppend(&label, " at ", sync_call_site);
  }
  return label;
}

std::string WhatIfScenarioLabel(const WhatIfScenario& s) {
  return WhatIfScenarioLabel(s.id, s.title, s.sync_api, s.sync_call_site);
}

std::string WhatIfBasis(const WhatIf& w) {
  if (w.basis == WhatIfBasis::kSteps) {
    return absl::StrCat("per step, median of ",
                        common::Counted(w.steps, "step"));
  }
  return "span of the analysed window (no steps)";
}

std::vector<std::string> WhatIfAssumptions(const WhatIf& w) {
  auto source = [](const std::string& s) {
    return s.empty() ? std::string() : absl::StrCat("; source: ", s);
  };
  std::vector<std::string> out;
  out.push_back(absl::StrFormat("faster GPU: every kernel %g%% shorter",
                                w.gpu_speedup * 100));
  if (w.launch_cost_fraction > 0) {
    out.push_back(absl::StrFormat(
        "cheaper launches: each kernel launch call takes %g%% of its recorded "
        "time%s",
        w.launch_cost_fraction * 100, source(w.launch_cost_source)));
  } else {
    out.push_back(
        absl::StrCat("cheaper launches: each kernel launch call takes ",
                     common::FormatDuration(w.launch_cost_ns),
                     source(w.launch_cost_source)));
  }
  auto gbps = [](const char* direction, double v) {
    return v > 0 ? absl::StrFormat("%s %.1f GB/s", direction, v)
                 : absl::StrCat(direction, " no figure");
  };
  out.push_back(absl::StrCat(
      "pinned copies: pageable copies at ", gbps("HtoD", w.pinned_htod_gbps),
      ", ", gbps("DtoH", w.pinned_dtoh_gbps),
      ", the host no longer blocking on them", source(w.pinned_source)));
  out.push_back(WhatIfLaunchQueue(w));
  return out;
}

std::string WhatIfLaunchQueue(const WhatIf& w) {
  if (w.launch_queue_depth == 0) {
    return absl::StrCat(
        "launch queue: never full in this trace (at most ",
        Counted(w.most_outstanding_ops, "op"),
        " outstanding), so its depth cannot be read; calls keep their "
        "recorded time");
  }
  return absl::StrCat("launch queue: ", w.launch_queue_depth, " ops deep; ",
                      w.queue_held_calls, " of ",
                      Counted(w.enqueueing_calls, "enqueueing call"),
                      " found it full and wait for the GPU to free a slot");
}

std::string WhatIfUnavailableReason(const WhatIf& w) {
  return w.unavailable_reason.empty() ? std::string("the replay was not run")
                                      : w.unavailable_reason;
}

std::string SignedPercent(double relative) {
  // What rounds to zero prints unsigned: "-0.0%" reads as a saving.
  if (std::abs(relative * 100) < 0.05) return "0.0%";
  return absl::StrFormat("%+.1f%%", relative * 100);
}

}  // namespace feedprof::report
