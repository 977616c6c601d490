// The parts of a comparison, one per file of lib/src/compare/: each fills
// one section of the Comparison model from the two analysed runs.
//
// Every figure a part calls "per unit" is the run's total over its analysed
// window divided by the run's divisor (its step count, or the window's
// length in seconds when either run has no steps), so runs of different
// lengths compare.
#ifndef FEEDPROF_COMPARE_COMPARE_PASSES_H_
#define FEEDPROF_COMPARE_COMPARE_PASSES_H_

#include <string>

#include "feedprof/compare.h"

namespace feedprof::compare {

// The divisors of both runs.
struct PerUnit {
  double before = 1;
  double after = 1;
  // A per-unit change of two totals.
  Change Of(double total_before, double total_after) const {
    return MakeChange(before > 0 ? total_before / before : 0,
                      after > 0 ? total_after / after : 0);
  }
};

// Σ over a run's devices.
TimeNs TotalSpan(const Report& report);
TimeNs TotalBusy(const Report& report);
IdleByCause TotalIdle(const Report& report);

StepTimeComparison CompareStepTimes(const Report& before, const Report& after,
                                    const CompareOptions& options);
// The verdict in words for the headline and the explanation: "beyond
// noise", "within noise", "slower beyond noise", "no slowdown beyond
// noise", ... or "significance cannot be judged".
const char* NoiseWords(const NoiseVerdict& noise);
// slower_gate.cc: the --fail-if-slower gate on the step-time comparison
// (its noise test one-sided, AFTER slower).
SlowerGate DecideSlowerGate(const StepTimeComparison& step_time, double percent,
                            const CompareOptions& options);
IdleComparison CompareIdle(const Report& before, const Report& after,
                           const PerUnit& per);
VerdictComparison CompareVerdicts(const Verdict& before, const Verdict& after);
LaunchComparison CompareLaunches(const Report& before, const Report& after,
                                 const PerUnit& per);
KernelComparison CompareKernels(const std::vector<KernelTotal>& before,
                                const std::vector<KernelTotal>& after,
                                const PerUnit& per);
CopyComparison CompareCopies(const CopyReport& before, const CopyReport& after,
                             const PerUnit& per);
SyncComparison CompareSyncPoints(const std::vector<SyncPoint>& before,
                                 const std::vector<SyncPoint>& after,
                                 const PerUnit& per);
// code_comparison.cc
CodeComparison CompareCode(const Report& before, const Report& after,
                           const PerUnit& per);

HostComparison CompareHosts(const HostReport& before, const HostReport& after,
                            const PerUnit& per);
std::vector<DeviceChange> CompareDevices(const Report& before,
                                         const Report& after,
                                         const PerUnit& per);
std::vector<RankChange> CompareRanks(const Report& before, const Report& after);
StragglerChange CompareStragglers(const Report& before, const Report& after);
std::vector<PlatformDifference> ComparePlatforms(const AnalyzedRun& before,
                                                 const AnalyzedRun& after);
// BEFORE's what-if against AFTER's measurement; needs the comparison's
// step time, idle, launch, copy and sync sections and both reports.
WhatIfCheck CompareWhatIf(const Comparison& comparison, const PerUnit& per);
// The one sentence on top of the diff: the largest idle-cause change and
// the step time (or GPU busy share) change.
std::string Headline(const Comparison& comparison);

}  // namespace feedprof::compare

#endif  // FEEDPROF_COMPARE_COMPARE_PASSES_H_
