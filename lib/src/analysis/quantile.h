// Order statistics of duration samples: medians and p90s of launch calls,
// kernels, launch delays and steps.
//
// One definition for every figure the report calls a median or a p90, so
// that, say, a run's step median and its rank's step median agree: the
// nearest-rank value at position round(q * (n - 1)) of the sorted samples,
// 0 for an empty set (the report says "not available" for those).
#ifndef FEEDPROF_ANALYSIS_QUANTILE_H_
#define FEEDPROF_ANALYSIS_QUANTILE_H_

#include <algorithm>
#include <cstddef>
#include <vector>

#include "feedprof/timeline.h"

namespace feedprof::analysis {

// Reorders `v` (a partial sort); the samples themselves are unchanged, so
// further quantiles of the same vector stay correct. The nearest-rank rule
// every reported quantile uses, for durations and for the diff's doubles.
template <typename T>
T Quantile(std::vector<T>& v, double q) {
  if (v.empty()) return 0;
  const auto k =
      static_cast<size_t>(q * static_cast<double>(v.size() - 1) + 0.5);
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k),
                   v.end());
  return v[k];
}

// The middle gap between consecutive sample times: what each sample
// stands for when a sampling export gives no period.
inline TimeNs MedianGap(std::vector<TimeNs> times) {
  std::sort(times.begin(), times.end());
  std::vector<TimeNs> gaps;
  for (size_t i = 1; i < times.size(); ++i) {
    if (times[i] > times[i - 1]) gaps.push_back(times[i] - times[i - 1]);
  }
  return Quantile(gaps, 0.5);
}

}  // namespace feedprof::analysis

#endif  // FEEDPROF_ANALYSIS_QUANTILE_H_
