// Steps: the iterations of a training or inference loop, from a user-named
// range, from PyTorch's ProfilerStep#N, or from NVTX/annotation ranges whose
// name says "step" or "iteration".
//
// Step time is what users feel; the per-step GPU busy share says how much of
// each step the GPU worked. When several names look like steps, the one with
// the largest total duration (the outermost) is taken.
#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>

#include "analysis/analysis_passes.h"

namespace feedprof::analysis {
namespace {

bool LooksLikeStep(std::string_view name) {
  std::string lower(name);
  for (char& ch : lower) {
    ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  }
  return lower.find("step") != std::string::npos ||
         lower.find("iteration") != std::string::npos;
}

bool IsProfilerStep(const Timeline& tl, const Range& r) {
  return r.source == RangeSource::kProfilerStep ||
         tl.strings.Get(r.name).starts_with("ProfilerStep#");
}

TimeNs Quantile(std::vector<TimeNs> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[static_cast<size_t>(q * static_cast<double>(v.size() - 1) + 0.5)];
}

}  // namespace

StepReport ComputeSteps(const PreparedTimeline& prepared,
                        const AnalysisOptions& options,
                        const std::vector<DeviceBusy>& busy) {
  const Timeline& tl = prepared.timeline();
  const Window& w = prepared.window();
  StepReport report;
  auto in_scope = [&](const Range& r) {
    return prepared.Selected(r.pid) && r.end >= w.start && r.start <= w.end &&
           r.end > r.start;
  };

  std::vector<const Range*> chosen;
  if (!options.step_range_name.empty()) {
    report.source = "user:" + options.step_range_name;
    for (const Range& r : tl.ranges) {
      if (in_scope(r) &&
          tl.strings.Get(r.name).starts_with(options.step_range_name)) {
        chosen.push_back(&r);
      }
    }
  } else {
    for (const Range& r : tl.ranges) {
      if (in_scope(r) && IsProfilerStep(tl, r)) chosen.push_back(&r);
    }
    if (!chosen.empty()) {
      report.source = "ProfilerStep";
    } else {
      // Step-like names: the one with the largest total duration wins.
      // Ranges shorter than this are marks or helpers, not loop steps.
      constexpr TimeNs kMinAutoStepNs = 1'000;
      std::vector<int8_t> step_like(tl.strings.size(), -1);
      std::vector<TimeNs> total(tl.strings.size(), 0);
      StringId best = 0;
      for (const Range& r : tl.ranges) {
        if (!in_scope(r) || r.end - r.start < kMinAutoStepNs ||
            (r.source != RangeSource::kNvtx &&
             r.source != RangeSource::kUserAnnotation)) {
          continue;
        }
        if (r.name >= step_like.size()) continue;
        int8_t& like = step_like[r.name];
        if (like < 0) like = LooksLikeStep(tl.strings.Get(r.name)) ? 1 : 0;
        if (like == 0) continue;
        total[r.name] += r.end - r.start;
        if (best == 0 || total[r.name] > total[best]) best = r.name;
      }
      if (best != 0) {
        report.source = "range:" + std::string(tl.strings.Get(best));
        for (const Range& r : tl.ranges) {
          if (in_scope(r) && r.name == best &&
              r.end - r.start >= kMinAutoStepNs &&
              (r.source == RangeSource::kNvtx ||
               r.source == RangeSource::kUserAnnotation)) {
            chosen.push_back(&r);
          }
        }
      }
    }
  }
  if (chosen.empty()) {
    report.source.clear();
    return report;
  }
  std::sort(chosen.begin(), chosen.end(), [](const Range* a, const Range* b) {
    return a->start != b->start ? a->start < b->start : a->end < b->end;
  });
  // The same step recorded twice (a CPU op and an annotation): keep one.
  chosen.erase(std::unique(chosen.begin(), chosen.end(),
                           [](const Range* a, const Range* b) {
                             return a->start == b->start && a->end == b->end &&
                                    a->pid == b->pid;
                           }),
               chosen.end());

  std::vector<TimeNs> durations;
  std::vector<TimeNs> busy_permille;
  for (const Range* r : chosen) {
    StepInfo s;
    s.start = r->start;
    s.end = r->end;
    s.name = std::string(tl.strings.Get(r->name));
    s.pid = r->pid;
    bool has_device = false;
    for (const DeviceBusy& d : busy) has_device |= d.pid == r->pid;
    if (has_device) {
      s.gpu_busy_ns = ProcessBusyIn(busy, r->pid, r->start, r->end);
    } else {
      // GPU ops carry another pid than the host (a device pseudo process).
      for (const DeviceBusy& d : busy) {
        s.gpu_busy_ns += d.busy.BusyIn(r->start, r->end);
      }
    }
    const TimeNs duration = r->end - r->start;
    durations.push_back(duration);
    busy_permille.push_back(s.gpu_busy_ns * 1'000'000 / duration);
    report.steps.push_back(std::move(s));
  }
  report.available = true;
  report.count = report.steps.size();
  report.median_ns = Quantile(durations, 0.5);
  report.p90_ns = Quantile(durations, 0.9);
  report.median_gpu_busy_share =
      static_cast<double>(Quantile(busy_permille, 0.5)) / 1e6;
  return report;
}

}  // namespace feedprof::analysis
