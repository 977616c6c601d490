// Step times before and after, and whether their change is beyond noise
// (docs/diff.md): with at least `min_steps_for_noise` steps on each side a
// Mann-Whitney U test decides (two-sided, or one-sided for the CI gate) and
// the Hodges-Lehmann shift with its interval sizes the change; with fewer,
// the comparison says significance cannot be judged.
#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "analysis/quantile.h"
#include "common/units.h"
#include "compare/compare_passes.h"

namespace feedprof::compare {
namespace {

std::vector<TimeNs> StepDurations(const StepReport& steps) {
  std::vector<TimeNs> d;
  d.reserve(steps.steps.size());
  for (const StepInfo& s : steps.steps) d.push_back(s.end - s.start);
  return d;
}

StepTimeStats Stats(std::vector<TimeNs> d) {
  StepTimeStats s;
  s.count = d.size();
  if (d.empty()) return s;
  double sum = 0;
  for (TimeNs v : d) sum += static_cast<double>(v);
  s.mean_ns = sum / static_cast<double>(d.size());
  s.median_ns = analysis::Quantile(d, 0.5);
  s.p10_ns = analysis::Quantile(d, 0.1);
  s.p90_ns = analysis::Quantile(d, 0.9);
  return s;
}

std::vector<double> AsDoubles(const std::vector<TimeNs>& d) {
  return std::vector<double>(d.begin(), d.end());
}

// "+1.94 ms", "-300 µs", "0 ns".
std::string SignedDuration(double ns) {
  const std::string d =
      common::FormatDuration(static_cast<TimeNs>(std::llround(ns)));
  return std::llround(ns) > 0 ? "+" + d : d;
}

// "95% interval -1 ms to +2 ms", "95% lower bound +1.9 ms".
std::string IntervalWords(const ShiftEstimate& shift) {
  const std::string level = absl::StrFormat("%g%%", shift.confidence * 100);
  if (shift.low && shift.high) {
    return absl::StrCat(level, " interval ", SignedDuration(*shift.low), " to ",
                        SignedDuration(*shift.high));
  }
  if (shift.low) {
    return absl::StrCat(level, " lower bound ", SignedDuration(*shift.low));
  }
  return absl::StrCat(level, " upper bound ",
                      SignedDuration(shift.high.value_or(0)));
}

const char* SidedWords(Alternative alternative) {
  return alternative == Alternative::kTwoSided ? "two-sided" : "one-sided";
}

}  // namespace

TimeNs TotalSpan(const Report& report) {
  TimeNs t = 0;
  for (const DeviceReport& d : report.devices) t += d.span_ns;
  return t;
}

TimeNs TotalBusy(const Report& report) {
  TimeNs t = 0;
  for (const DeviceReport& d : report.devices) t += d.busy_ns;
  return t;
}

IdleByCause TotalIdle(const Report& report) {
  IdleByCause idle;
  for (const DeviceReport& d : report.devices) idle += d.idle_by_cause;
  return idle;
}

StepTimeComparison CompareStepTimes(const Report& before, const Report& after,
                                    const CompareOptions& options) {
  StepTimeComparison c;
  auto busy_share = [](const Report& r) {
    const TimeNs span = TotalSpan(r);
    return span > 0
               ? static_cast<double>(TotalBusy(r)) / static_cast<double>(span)
               : 0.0;
  };
  c.gpu_busy_share = MakeChange(busy_share(before), busy_share(after));
  c.span_ns =
      MakeChange(static_cast<double>(before.window.end - before.window.start),
                 static_cast<double>(after.window.end - after.window.start));
  c.before_source = before.steps.source;
  c.after_source = after.steps.source;
  NoiseVerdict& noise = c.noise;
  noise.significance = options.significance;
  noise.alternative = options.fail_if_slower_percent ? Alternative::kAfterLarger
                                                     : Alternative::kTwoSided;
  c.available = before.steps.available && after.steps.available &&
                !before.steps.steps.empty() && !after.steps.steps.empty();
  if (!c.available) {
    noise.explanation =
        "significance cannot be judged: the runs do not both have steps";
    return c;
  }
  const std::vector<TimeNs> db = StepDurations(before.steps);
  const std::vector<TimeNs> da = StepDurations(after.steps);
  c.before = Stats(db);
  c.after = Stats(da);
  auto change = [](TimeNs b, TimeNs a) {
    return MakeChange(static_cast<double>(b), static_cast<double>(a));
  };
  c.median_ns = change(c.before.median_ns, c.after.median_ns);
  c.p10_ns = change(c.before.p10_ns, c.after.p10_ns);
  c.p90_ns = change(c.before.p90_ns, c.after.p90_ns);
  c.mean_ns = MakeChange(c.before.mean_ns, c.after.mean_ns);
  if (db.size() < options.min_steps_for_noise ||
      da.size() < options.min_steps_for_noise) {
    noise.explanation = absl::StrCat(
        "significance cannot be judged: ", db.size(), " and ", da.size(),
        " steps, a test needs ", options.min_steps_for_noise, " per run");
    return c;
  }
  noise.judged = true;
  noise.method = "mann_whitney_u";
  noise.test = MannWhitneyU(AsDoubles(db), AsDoubles(da), noise.alternative);
  noise.shift_ns =
      HodgesLehmannShift(AsDoubles(db), AsDoubles(da), 1 - options.significance,
                         noise.alternative);
  noise.beyond_noise = noise.test.p_value < options.significance;
  noise.explanation = absl::StrFormat(
      "%s (%s Mann-Whitney U p = %.3g over %d and %d steps)", NoiseWords(noise),
      SidedWords(noise.alternative), noise.test.p_value, db.size(), da.size());
  noise.effect = absl::StrCat(
      "median step ",
      c.median_ns.relative
          ? absl::StrFormat("%+.1f%%", *c.median_ns.relative * 100)
          : std::string("n/a"),
      " (Hodges-Lehmann shift ", SignedDuration(noise.shift_ns.estimate), ", ",
      IntervalWords(noise.shift_ns), ")");
  return c;
}

const char* NoiseWords(const NoiseVerdict& noise) {
  if (!noise.judged) return "significance cannot be judged";
  switch (noise.alternative) {
    case Alternative::kTwoSided:
      return noise.beyond_noise ? "beyond noise" : "within noise";
    case Alternative::kAfterLarger:
      return noise.beyond_noise ? "slower beyond noise"
                                : "no slowdown beyond noise";
    case Alternative::kAfterSmaller:
      return noise.beyond_noise ? "faster beyond noise"
                                : "no speed-up beyond noise";
  }
  return "within noise";
}

}  // namespace feedprof::compare
