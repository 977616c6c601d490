// Compare(): both runs' sections side by side, per step when both runs
// have steps, else per second of the analysed window, plus the platform
// check, the --fail-if-slower gate and the headline.
#include <string>

#include "absl/strings/str_cat.h"
#include "compare/compare_passes.h"

namespace feedprof {
namespace {

RunSide Side(const Report& r, bool per_step) {
  RunSide s;
  s.source_path = r.source_path;
  s.source_format = r.source_format;
  s.events = r.events;
  s.steps = r.steps.available ? r.steps.steps.size() : 0;
  s.window_ns = r.window.end - r.window.start;
  s.divisor = per_step ? static_cast<double>(s.steps)
                       : static_cast<double>(s.window_ns) / 1e9;
  s.rank_filter = r.rank_filter;
  return s;
}

}  // namespace

Comparison Compare(const AnalyzedRun& before, const AnalyzedRun& after,
                   const CompareOptions& options) {
  const Report& b = before.report;
  const Report& a = after.report;
  Comparison c;
  const bool per_step = b.steps.available && a.steps.available &&
                        !b.steps.steps.empty() && !a.steps.steps.empty();
  c.unit = per_step ? "step" : "second";
  c.before = Side(b, per_step);
  c.after = Side(a, per_step);
  c.before_report = b;
  c.after_report = a;
  const compare::PerUnit per{c.before.divisor, c.after.divisor};

  c.step_time = compare::CompareStepTimes(b, a, options);
  c.idle = compare::CompareIdle(b, a, per);
  c.verdict = compare::CompareVerdicts(b.verdict, a.verdict);
  c.launch = compare::CompareLaunches(b, a, per);
  c.kernels = compare::CompareKernels(before.kernels, after.kernels, per);
  c.copies = compare::CompareCopies(b.copies, a.copies, per);
  c.syncs = compare::CompareSyncPoints(b.sync_points, a.sync_points, per);
  c.code = compare::CompareCode(b, a, per);
  c.host = compare::CompareHosts(b.host, a.host, per);
  if (b.devices.size() > 1 || a.devices.size() > 1) {
    c.devices = compare::CompareDevices(b, a, per);
  }
  c.ranks = compare::CompareRanks(b, a);
  c.straggler = compare::CompareStragglers(b, a);
  c.platform = compare::ComparePlatforms(before, after);
  c.what_if = compare::CompareWhatIf(c, per);
  for (const PlatformDifference& d : c.platform) {
    if (!d.hardware) continue;
    c.comparable = false;
    c.warnings.push_back(absl::StrCat("the runs are not comparable: ", d.what,
                                      " differs (", d.before, " -> ", d.after,
                                      ")"));
  }
  if (b.steps.available != a.steps.available) {
    c.warnings.push_back(absl::StrCat(
        "only ", b.steps.available ? "BEFORE" : "AFTER",
        " has steps; figures are per second of the analysed window"));
  } else if (per_step && b.steps.source != a.steps.source) {
    c.warnings.push_back(
        absl::StrCat("the runs' steps come from different "
                     "ranges (",
                     b.steps.source, " -> ", a.steps.source, ")"));
  }
  if (b.has_gpu_activity != a.has_gpu_activity) {
    c.warnings.push_back(absl::StrCat(b.has_gpu_activity ? "AFTER" : "BEFORE",
                                      " has no GPU activity"));
  }
  if (options.fail_if_slower_percent) {
    c.gate = compare::DecideSlowerGate(
        c.step_time, *options.fail_if_slower_percent, options);
  }
  c.headline = compare::Headline(c);
  return c;
}

}  // namespace feedprof
