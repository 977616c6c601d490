// Steps: the iterations of a training or inference loop (docs/metrics.md,
// "Steps"). In order: the user's --step-range NAME; PyTorch's
// ProfilerStep#N; NVTX/annotation ranges whose whole name is a step name
// ("step", "train_step", "iteration", "Step 12", "iter#3", ...). Names that
// merely contain "step" ("optimizer.step", "domain-step") are not loop
// steps. Among step names the one with ranges at depth 0 wins, then the most
// frequent, then the longest in total; a name seen once is no loop.
//
// Step time is what users feel; the per-step GPU busy share says how much of
// each step the GPU worked.
#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "analysis/analysis_passes.h"
#include "analysis/quantile.h"
#include "analysis/time_sum.h"

namespace feedprof::analysis {
namespace {

// The step name `name` stands for ("step" for "Step 12", "train_step" for
// "train_step#3"), "" when it is no step name. Case-insensitive; a trailing
// number with an optional separator (space, '#', '_', '-', ':') is the step
// index.
std::string StepNameKey(std::string_view name) {
  std::string lower(name);
  for (char& ch : lower) {
    ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  }
  size_t end = lower.size();
  while (end > 0 && std::isdigit(static_cast<unsigned char>(lower[end - 1]))) {
    --end;
  }
  const bool numbered = end < lower.size();
  if (numbered) {
    while (end > 0 && (lower[end - 1] == ' ' || lower[end - 1] == '#' ||
                       lower[end - 1] == '_' || lower[end - 1] == '-' ||
                       lower[end - 1] == ':')) {
      --end;
    }
  }
  lower.resize(end);
  static constexpr std::string_view kStepNames[] = {
      "step",       "train_step",      "training_step",
      "train step", "training step",   "iteration",
      "iter",       "train_iteration", "train iteration"};
  for (std::string_view known : kStepNames) {
    if (lower == known) return lower;
  }
  return "";
}

bool IsProfilerStep(const Timeline& tl, const Range& r) {
  return r.source == RangeSource::kProfilerStep ||
         tl.strings.Get(r.name).starts_with("ProfilerStep#");
}

// Ranges with a step name (StepNameKey), grouped by that name; the group
// with depth-0 ranges, then the most ranges, then the longest in total
// wins. Groups of one range are no loop. Sets `source` to "range:NAME".
template <typename InScope>
std::vector<const Range*> StepNamedRanges(const Timeline& tl,
                                          const InScope& in_scope,
                                          std::string* source) {
  struct Group {
    std::string key;
    StringId name = 0;  // the first name as written, for the report
    bool one_name = true;
    bool top_level = false;
    uint64_t count = 0;
    TimeNs total = 0;
  };
  std::vector<Group> groups;
  // Per interned name: index into groups, -1 not a step name, -2 unseen.
  std::vector<int32_t> group_of(tl.strings.size(), -2);
  for (const Range& r : tl.ranges) {
    if (!in_scope(r) || r.name >= group_of.size() ||
        (r.source != RangeSource::kNvtx &&
         r.source != RangeSource::kUserAnnotation)) {
      continue;
    }
    int32_t& g = group_of[r.name];
    if (g == -2) {
      const std::string key = StepNameKey(tl.strings.Get(r.name));
      g = -1;
      if (!key.empty()) {
        for (size_t i = 0; i < groups.size(); ++i) {
          if (groups[i].key == key) g = static_cast<int32_t>(i);
        }
        if (g < 0) {
          groups.push_back({key, r.name});
          g = static_cast<int32_t>(groups.size() - 1);
        }
      }
    }
    if (g < 0) continue;
    Group& group = groups[static_cast<size_t>(g)];
    group.one_name &= group.name == r.name;
    group.top_level |= r.depth == 0;
    ++group.count;
    AddTime(&group.total, r.end - r.start);
  }
  const Group* best = nullptr;
  int32_t best_index = -1;
  for (size_t i = 0; i < groups.size(); ++i) {
    const Group& g = groups[i];
    if (g.count < 2) continue;
    const bool better = best == nullptr ||
                        std::tie(g.top_level, g.count, g.total) >
                            std::tie(best->top_level, best->count, best->total);
    if (better) {
      best = &g;
      best_index = static_cast<int32_t>(i);
    }
  }
  std::vector<const Range*> chosen;
  if (best == nullptr) return chosen;
  // "range:train_step", or the common name of "Step 1", "Step 2": "step".
  *source = "range:" + (best->one_name ? std::string(tl.strings.Get(best->name))
                                       : best->key);
  for (const Range& r : tl.ranges) {
    if (in_scope(r) && r.name < group_of.size() &&
        group_of[r.name] == best_index &&
        (r.source == RangeSource::kNvtx ||
         r.source == RangeSource::kUserAnnotation) &&
        (!best->top_level || r.depth == 0)) {
      chosen.push_back(&r);
    }
  }
  return chosen;
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
      chosen = StepNamedRanges(tl, in_scope, &report.source);
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
        AddTime(&s.gpu_busy_ns, d.busy.BusyIn(r->start, r->end));
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
