// Is a step-time change real or noise? Step times of one run scatter (data
// loading, clocks, other tenants), so comparing two medians alone calls
// every wobble a regression. Two tools, both documented in docs/diff.md:
//
// - Mann-Whitney U (two-sided) decides "beyond noise": it needs no normal
//   distribution, and a few outlier steps do not move it. Exact for small
//   samples without ties; else the normal approximation with the tie and
//   continuity corrections.
// - A percentile bootstrap of the median difference gives the size of the
//   change with a 95% interval, from a fixed seed so two runs of `diff` on
//   the same traces print the same interval.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <random>
#include <vector>

#include "analysis/quantile.h"
#include "feedprof/compare.h"

namespace feedprof {
namespace {

constexpr size_t kMaxExactSize = 20;

// Number of orderings of n1 + n2 distinct values in which the first sample
// has statistic U = u, for every u in [0, n1 * n2]; their sum is
// C(n1 + n2, n1). Recurrence on the largest value: it belongs to the first
// sample (adding n2 to U) or to the second.
std::vector<double> ExactUCounts(size_t n1, size_t n2) {
  // counts[i][j] is the distribution for sizes (i, j), built row by row.
  std::vector<std::vector<std::vector<double>>> counts(
      n1 + 1, std::vector<std::vector<double>>(n2 + 1));
  for (size_t i = 0; i <= n1; ++i) {
    for (size_t j = 0; j <= n2; ++j) {
      std::vector<double>& c = counts[i][j];
      c.assign(i * j + 1, 0.0);
      if (i == 0 || j == 0) {
        c[0] = 1;
        continue;
      }
      const std::vector<double>& first = counts[i - 1][j];  // largest in 1st
      for (size_t u = 0; u < first.size(); ++u) c[u + j] += first[u];
      const std::vector<double>& second = counts[i][j - 1];
      for (size_t u = 0; u < second.size(); ++u) c[u] += second[u];
    }
  }
  return counts[n1][n2];
}

}  // namespace

MannWhitneyResult MannWhitneyU(const std::vector<double>& before,
                               const std::vector<double>& after,
                               MannWhitneyMethod method) {
  MannWhitneyResult r;
  const size_t n1 = before.size(), n2 = after.size();
  if (n1 == 0 || n2 == 0) return r;
  // Ranks of the pooled sample, ties sharing their average rank.
  struct Value {
    double v;
    bool first;
  };
  std::vector<Value> pooled;
  pooled.reserve(n1 + n2);
  for (double v : before) pooled.push_back({v, true});
  for (double v : after) pooled.push_back({v, false});
  std::sort(pooled.begin(), pooled.end(),
            [](const Value& a, const Value& b) { return a.v < b.v; });
  double rank_sum_first = 0;
  double tie_term = 0;  // Σ (t³ - t) over groups of t tied values
  for (size_t i = 0; i < pooled.size();) {
    size_t j = i;
    while (j < pooled.size() && pooled[j].v == pooled[i].v) ++j;
    const double t = static_cast<double>(j - i);
    const double average_rank = static_cast<double>(i + j + 1) / 2.0;
    for (size_t k = i; k < j; ++k) {
      if (pooled[k].first) rank_sum_first += average_rank;
    }
    tie_term += t * t * t - t;
    i = j;
  }
  const double d1 = static_cast<double>(n1), d2 = static_cast<double>(n2);
  r.u_before = rank_sum_first - d1 * (d1 + 1) / 2;
  r.u_after = d1 * d2 - r.u_before;
  const bool exact_possible =
      tie_term == 0 && n1 <= kMaxExactSize && n2 <= kMaxExactSize;
  if (method == MannWhitneyMethod::kExact ||
      (method == MannWhitneyMethod::kAuto && exact_possible)) {
    const std::vector<double> counts = ExactUCounts(n1, n2);
    double total = 0;
    for (double c : counts) total += c;
    const auto u = static_cast<size_t>(std::lround(r.u_before));
    double at_most = 0, at_least = 0;
    for (size_t k = 0; k < counts.size(); ++k) {
      if (k <= u) at_most += counts[k];
      if (k >= u) at_least += counts[k];
    }
    r.exact = true;
    r.p_value = std::min(1.0, 2 * std::min(at_most, at_least) / total);
    return r;
  }
  const double n = d1 + d2;
  const double variance = d1 * d2 / 12.0 * ((n + 1) - tie_term / (n * (n - 1)));
  if (variance <= 0) return r;  // every value tied: no evidence of change
  const double mean = d1 * d2 / 2;
  const double distance = std::max(0.0, std::abs(r.u_before - mean) - 0.5);
  r.z = std::copysign(distance / std::sqrt(variance), r.u_before - mean);
  r.p_value = std::min(1.0, std::erfc(std::abs(r.z) / std::sqrt(2.0)));
  return r;
}

BootstrapInterval BootstrapMedianDifference(const std::vector<double>& before,
                                            const std::vector<double>& after,
                                            uint32_t resamples, uint64_t seed) {
  BootstrapInterval interval;
  interval.resamples = resamples;
  interval.seed = seed;
  if (before.empty() || after.empty() || resamples == 0) return interval;
  // mt19937_64 is specified bit for bit by the standard; the index is taken
  // modulo the size (the bias is below 2^-50 for any step count), not with
  // a distribution whose algorithm differs between standard libraries.
  std::mt19937_64 rng(seed);
  std::vector<double> sample_before(before.size());
  std::vector<double> sample_after(after.size());
  std::vector<double> differences(resamples);
  for (uint32_t i = 0; i < resamples; ++i) {
    for (double& v : sample_before) v = before[rng() % before.size()];
    for (double& v : sample_after) v = after[rng() % after.size()];
    differences[i] = analysis::Quantile(sample_after, 0.5) -
                     analysis::Quantile(sample_before, 0.5);
  }
  interval.low = analysis::Quantile(differences, 0.025);
  interval.high = analysis::Quantile(differences, 0.975);
  return interval;
}

}  // namespace feedprof
