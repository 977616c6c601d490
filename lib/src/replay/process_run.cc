// Step times of a replayed process (see process_run.h).
#include "replay/process_run.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "analysis/device_busy.h"
#include "analysis/quantile.h"

namespace feedprof::replay {

Figures FiguresOf(std::vector<TimeNs> samples) {
  Figures f;
  if (!samples.empty()) {
    long double sum = 0;  // exact for any realistic count of steps
    for (TimeNs v : samples) sum += static_cast<long double>(v);
    f.mean = static_cast<TimeNs>(
        std::llround(sum / static_cast<long double>(samples.size())));
    f.median = analysis::Quantile(samples, 0.5);
  }
  f.samples = std::move(samples);
  return f;
}

TimeNs PredictedMedian(const Figures& recorded, const Figures& replayed) {
  if (recorded.samples.size() != replayed.samples.size() ||
      recorded.samples.empty()) {
    return replayed.median;
  }
  std::vector<TimeNs> savings(recorded.samples.size());
  for (size_t k = 0; k < savings.size(); ++k) {
    savings[k] = recorded.samples[k] - replayed.samples[k];
  }
  return recorded.median - analysis::Quantile(savings, 0.5);
}

void AssignOpsToSteps(ProcessRun* run) {
  const auto& ops = run->model.ops();
  const auto& calls = run->model.calls();
  run->step_first.clear();
  run->step_ops.clear();
  if (run->steps.empty()) return;
  const auto& steps = run->steps;
  std::vector<int32_t> step_of_op(ops.size(), -1);
  const size_t n = steps.size();
  // Launches come nearly in time order: the step found last is tried
  // before a search.
  const bool sorted = std::is_sorted(
      steps.begin(), steps.end(),
      [](const std::pair<TimeNs, TimeNs>& a,
         const std::pair<TimeNs, TimeNs>& b) { return a.first < b.first; });
  size_t hint = 0;  // upper bound found last (0: none)
  for (size_t i = 0; i < ops.size(); ++i) {
    if (ops[i].call < 0 || ops[i].excluded) continue;
    const TimeNs t = calls[static_cast<size_t>(ops[i].call)].start;
    // The first step starting after t.
    size_t upper = 0;
    if (sorted && hint > 0 && steps[hint - 1].first <= t &&
        (hint == n || t < steps[hint].first)) {
      upper = hint;
    } else {
      upper = static_cast<size_t>(
          std::upper_bound(steps.begin(), steps.end(), t,
                           [](TimeNs v, const std::pair<TimeNs, TimeNs>& s) {
                             return v < s.first;
                           }) -
          steps.begin());
      hint = upper;
    }
    if (upper == 0) continue;
    if (t < steps[upper - 1].second) {
      step_of_op[i] = static_cast<int32_t>(upper - 1);
    }
  }
  run->step_first.assign(n + 1, 0);
  for (int32_t s : step_of_op) {
    if (s >= 0) ++run->step_first[static_cast<size_t>(s) + 1];
  }
  for (size_t k = 0; k < n; ++k) run->step_first[k + 1] += run->step_first[k];
  run->step_ops.resize(run->step_first[n]);
  std::vector<uint32_t> fill(run->step_first.begin(),
                             run->step_first.end() - 1);
  for (size_t i = 0; i < ops.size(); ++i) {
    const int32_t s = step_of_op[i];
    if (s >= 0) {
      run->step_ops[fill[static_cast<size_t>(s)]++] = static_cast<uint32_t>(i);
    }
  }
}

Figures Measure(const ProcessRun& run, const ReplayEdits& edits,
                const ReplayTimes* times) {
  const auto& ops = run.model.ops();
  auto op_start = [&](size_t i) {
    return times != nullptr ? times->op_start[i] : ops[i].start;
  };
  auto op_end = [&](size_t i) {
    return times != nullptr ? ReplayedOpEnd(run.model, edits, *times, i)
                            : ops[i].end;
  };
  constexpr TimeNs kMax = std::numeric_limits<TimeNs>::max();
  constexpr TimeNs kMin = std::numeric_limits<TimeNs>::min();
  std::vector<TimeNs> samples;
  if (!run.steps.empty()) {
    // The GPU time of each step's work: the union of its ops' intervals.
    // The union (a sort of the step's ops by start) is needed only where
    // their summed time exceeds the host range, since the union is never
    // longer than the sum.
    const size_t n = run.steps.size();
    const std::vector<uint32_t>& first = run.step_first;
    const std::vector<uint32_t>& members = run.step_ops;
    std::vector<std::pair<TimeNs, TimeNs>> intervals;
    samples.reserve(n);
    for (size_t k = 0; k < n; ++k) {
      const auto [start, end] = run.steps[k];
      TimeNs host = end - start;
      if (times != nullptr) {
        const uint32_t thread = run.step_threads[k];
        host = MapHostTime(run.model, edits, *times, thread, end) -
               MapHostTime(run.model, edits, *times, thread, start);
      }
      TimeNs summed = 0;
      for (uint32_t m = first[k]; m < first[k + 1]; ++m) {
        summed += op_end(members[m]) - op_start(members[m]);
      }
      TimeNs device = 0;
      if (summed > host) {
        intervals.clear();
        for (uint32_t m = first[k]; m < first[k + 1]; ++m) {
          intervals.emplace_back(op_start(members[m]), op_end(members[m]));
        }
        if (!std::is_sorted(intervals.begin(), intervals.end())) {
          std::sort(intervals.begin(), intervals.end());
        }
        analysis::StartOrderedUnion busy;
        for (const auto& [s0, s1] : intervals) busy.Add(s0, s1);
        device = busy.Total();
      }
      samples.push_back(std::max(host, device));
    }
  } else {
    // The span of the ops the analysis counts.
    TimeNs first = kMax, last = kMin;
    for (size_t i = 0; i < ops.size(); ++i) {
      if (ops[i].excluded) continue;
      first = std::min(first, op_start(i));
      last = std::max(last, op_end(i));
    }
    if (last >= first) samples.push_back(last - first);
  }
  return FiguresOf(std::move(samples));
}

double RelativeError(TimeNs replayed, TimeNs recorded) {
  if (recorded <= 0) return replayed == recorded ? 0.0 : 1.0;
  return std::abs(static_cast<double>(replayed - recorded)) /
         static_cast<double>(recorded);
}

}  // namespace feedprof::replay
