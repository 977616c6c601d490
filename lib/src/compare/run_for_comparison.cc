// One run analysed for a comparison: the report, the GPU time of every
// kernel name (the report keeps the top five; a diff must see the kernel
// that went from 0.1% to 0.2% too) and the platform it ran on. With a step
// selection the run is analysed a second time over the selected steps.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "analysis/prepared_timeline.h"
#include "analysis/time_sum.h"
#include "feedprof/analysis.h"
#include "feedprof/compare.h"

namespace feedprof {
namespace {

// Kernel totals by name, grouped as the launch statistics group them (by
// the interned name), over the ops the analysis counted.
absl::StatusOr<std::vector<KernelTotal>> AllKernelTotals(
    const Timeline& timeline, const AnalysisOptions& options) {
  absl::StatusOr<analysis::PreparedTimeline> prepared =
      analysis::PreparedTimeline::Build(timeline, options);
  if (!prepared.ok()) return prepared.status();
  std::vector<KernelTotal> by_name;  // indexed by StringId
  for (const analysis::DeviceView& d : prepared->devices()) {
    for (const analysis::OpRef& op : d.ops) {
      const GpuOp& g = timeline.gpu_ops[op.op];
      if (g.kind != GpuOpKind::kKernel) continue;
      if (g.name >= by_name.size()) by_name.resize(g.name + 1);
      ++by_name[g.name].count;
      analysis::AddTime(&by_name[g.name].total_ns, g.end - g.start);
    }
  }
  for (StringId id = 0; id < by_name.size(); ++id) {
    if (by_name[id].count > 0) by_name[id].name = timeline.strings.Get(id);
  }
  std::erase_if(by_name, [](const KernelTotal& k) { return k.count == 0; });
  std::stable_sort(by_name.begin(), by_name.end(),
                   [](const KernelTotal& a, const KernelTotal& b) {
                     return a.total_ns > b.total_ns;
                   });
  return by_name;
}

// AnalyzeForComparison; TimelineRef is a const Timeline& or a Timeline&&
// passed on to Analyze as it came. The kernels are counted before the
// analysis, which may free the events it no longer needs (they read only
// the GPU ops, which it keeps).
template <typename TimelineRef>
absl::StatusOr<AnalyzedRun> AnalyzeRun(TimelineRef&& timeline,
                                       const CompareOptions& options) {
  AnalysisOptions analysis = options.analysis;
  if (options.steps) {
    absl::StatusOr<AnalysisOptions> window = WindowOfSteps(
        timeline, analysis, options.steps->first, options.steps->last);
    if (!window.ok()) return window.status();
    analysis = *window;
  }
  absl::StatusOr<std::vector<KernelTotal>> kernels =
      AllKernelTotals(timeline, analysis);
  if (!kernels.ok()) return kernels.status();
  AnalyzedRun run;
  run.platform = timeline.platform;
  run.machine_devices = timeline.devices;
  absl::StatusOr<Report> report =
      Analyze(std::forward<TimelineRef>(timeline), analysis);
  if (!report.ok()) return report.status();
  run.report = *std::move(report);
  run.kernels = *std::move(kernels);
  return run;
}

}  // namespace

absl::StatusOr<AnalyzedRun> AnalyzeForComparison(
    const Timeline& timeline, const CompareOptions& options) {
  return AnalyzeRun(timeline, options);
}

absl::StatusOr<AnalyzedRun> AnalyzeForComparison(
    Timeline&& timeline, const CompareOptions& options) {
  return AnalyzeRun(std::move(timeline), options);
}

}  // namespace feedprof
