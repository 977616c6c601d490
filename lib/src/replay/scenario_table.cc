// The table of what-if scenarios (see scenario_table.h).
#include "replay/scenario_table.h"

#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/units.h"
#include "replay/scenarios.h"

namespace feedprof::replay {
namespace {

using common::FormatDuration;

const WhatIf& W(const ScenarioParameters& p) { return *p.what_if; }

ReplayEdits TakeBuilt(const ScenarioEditInputs& in) {
  return std::move(*in.built);
}

// input_ready

std::string InputReadyTitle(const ScenarioParameters&, const SyncPoint*) {
  return "next batch always ready (input wait removed)";
}

std::string InputReadyAssumption(const ScenarioParameters& p,
                                 const SyncPoint*) {
  const TimeNs made = W(p).input_production_ns;
  return absl::StrCat(
      "the launching thread no longer waits for input in GPU idle gaps: its "
      "on-CPU and unknown host time in gaps over 100 µs and its off-CPU I/O "
      "and waiting in any gap are cut",
      made > 0 ? absl::StrCat(", and so is the time it spent producing "
                              "batches itself (DataLoader operators, input "
                              "annotations, data-loading code: ",
                              FormatDuration(made),
                              " in the window) wherever the GPU was")
               : std::string(),
      " (more DataLoader workers, prefetching, faster storage); the CPU work "
      "that moves elsewhere is not modelled");
}

// cheaper_launches

std::string LaunchCost(const WhatIf& w) {
  return w.launch_cost_fraction > 0 ? absl::StrFormat("%g× their recorded time",
                                                      w.launch_cost_fraction)
                                    : FormatDuration(w.launch_cost_ns);
}

std::string CheaperLaunchesTitle(const ScenarioParameters& p,
                                 const SyncPoint*) {
  return absl::StrCat("cheaper kernel launches (", LaunchCost(W(p)), " each)");
}

std::string CheaperLaunchesAssumption(const ScenarioParameters& p,
                                      const SyncPoint*) {
  return absl::StrCat("every kernel launch call costs ", LaunchCost(W(p)), ", ",
                      W(p).launch_cost_source,
                      "; the host code between launches (Python, framework) "
                      "keeps its time");
}

ReplayEdits CheaperLaunches(const ScenarioEditInputs& in) {
  const WhatIf& w = W(*in.parameters);
  return CheaperLaunchEdits(*in.model, w.launch_cost_ns,
                            w.launch_cost_fraction > 0
                                ? std::optional<double>(w.launch_cost_fraction)
                                : std::nullopt);
}

// remove_sync

std::string RemoveSyncTitle(const ScenarioParameters&, const SyncPoint* p) {
  return absl::StrCat("remove ", p->api, " (", p->reason, ")",
                      p->call_site.empty() ? "" : " at " + p->call_site);
}

std::string RemoveSyncAssumption(const ScenarioParameters&,
                                 const SyncPoint* p) {
  return absl::StrCat("its ", common::Counted(p->count, "call"),
                      " return without waiting for the GPU and the host "
                      "issues the next work at once; assumes the program "
                      "does not need the synchronized result there");
}

ReplayEdits RemoveSync(const ScenarioEditInputs& in) {
  return RemoveSyncEdits(*in.model, in.sync_group);
}

// remove_all_syncs

std::string RemoveAllSyncsTitle(const ScenarioParameters&, const SyncPoint*) {
  return "remove every host sync (syncs, blocking copies, allocations)";
}

std::string RemoveAllSyncsAssumption(const ScenarioParameters&,
                                     const SyncPoint*) {
  return "every call that blocked the host until the GPU caught up returns "
         "without waiting and the host issues the next work at once; "
         "assumes the program needs none of the synchronized results where "
         "it waited (metrics kept on the GPU and read every N steps, results "
         "copied back asynchronously)";
}

ReplayEdits RemoveAllSyncs(const ScenarioEditInputs& in) {
  return RemoveAllSyncEdits(*in.model);
}

// pin_copies

std::string PinCopiesTitle(const ScenarioParameters&, const SyncPoint*) {
  return "pageable copies pinned";
}

std::string PinCopiesAssumption(const ScenarioParameters& p, const SyncPoint*) {
  const WhatIf& w = W(p);
  return absl::StrFormat(
      "copies from or to pageable host memory run at %.1f GB/s host to "
      "device and %.1f GB/s device to host (%s) and their calls return like "
      "async copies (%s)",
      w.pinned_htod_gbps, w.pinned_dtoh_gbps, w.pinned_source,
      FormatDuration(p.async_call_ns));
}

// faster_gpu

std::string FasterGpuTitle(const ScenarioParameters& p, const SyncPoint*) {
  return absl::StrCat("kernels ", common::FormatPercent(W(p).gpu_speedup),
                      " faster");
}

std::string FasterGpuAssumption(const ScenarioParameters& p, const SyncPoint*) {
  return absl::StrCat("every kernel takes ",
                      common::FormatPercent(W(p).gpu_speedup),
                      " less time (better kernels, mixed precision, a faster "
                      "GPU); copies and the host keep theirs");
}

ReplayEdits FasterGpu(const ScenarioEditInputs& in) {
  return FasterGpuEdits(*in.model, W(*in.parameters).gpu_speedup);
}

}  // namespace

const std::vector<ScenarioRow>& Scenarios() {
  static const std::vector<ScenarioRow> kRows = {
      {WhatIfScenarioId::kInputReady, InputReadyTitle, InputReadyAssumption,
       TakeBuilt,
       "the GPU is busy while the host waits for its input or makes it, so "
       "the host would wait for the GPU instead"},
      {WhatIfScenarioId::kCheaperLaunches, CheaperLaunchesTitle,
       CheaperLaunchesAssumption, CheaperLaunches,
       "the GPU, not the launch calls, sets the pace: cheaper calls would "
       "only wait longer for it"},
      {WhatIfScenarioId::kRemoveSync, RemoveSyncTitle, RemoveSyncAssumption,
       RemoveSync,
       "the GPU is busy through this wait, so the work after it would wait "
       "for the GPU all the same"},
      {WhatIfScenarioId::kRemoveAllSyncs, RemoveAllSyncsTitle,
       RemoveAllSyncsAssumption, RemoveAllSyncs,
       "the GPU is busy through the host's waits, so the work after them "
       "would wait for the GPU all the same"},
      {WhatIfScenarioId::kPinCopies, PinCopiesTitle, PinCopiesAssumption,
       TakeBuilt,
       "the copies' time is hidden behind other GPU work or host time"},
      {WhatIfScenarioId::kFasterGpu, FasterGpuTitle, FasterGpuAssumption,
       FasterGpu,
       "the host, not the GPU, sets the pace: shorter kernels would leave the "
       "GPU idle longer"},
  };
  return kRows;
}

const ScenarioRow& ScenarioOf(WhatIfScenarioId id) {
  for (const ScenarioRow& row : Scenarios()) {
    if (row.id == id) return row;
  }
  return Scenarios().front();
}

}  // namespace feedprof::replay
