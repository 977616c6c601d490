// Is a step-time change real or noise, and how large is it? Step times of
// one run scatter (data loading, clocks, other tenants, a warm-up step), so
// comparing two medians alone calls every wobble a regression. Two tools,
// both documented in docs/diff.md, both from the ranks of the step times
// and so unmoved by a few outlier steps:
//
// - Mann-Whitney U decides "beyond noise". It needs no normal distribution.
//   Two-sided when the diff describes a change, one-sided (AFTER slower)
//   for the CI gate, which asks about that direction before it looks.
//   Exact for small samples without ties; else the normal approximation
//   with the tie and continuity corrections.
// - The Hodges-Lehmann shift sizes the change: the median of every
//   difference after - before, with the distribution-free interval that
//   inverts the same U distribution with the same alternative, so size and
//   test speak of one shift and agree on whether it could be 0.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

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

double NormalCdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }

// The z with NormalCdf(z) = p, 0 < p < 1. Bisection: the interval halves
// 200 times, past the last bit of a double, and it needs nothing but erfc.
double NormalQuantile(double p) {
  double lo = -40, hi = 40;
  for (int i = 0; i < 200; ++i) {
    const double mid = (lo + hi) / 2;
    if (NormalCdf(mid) < p) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return (lo + hi) / 2;
}

// Order statistics of the n1 * n2 differences after_j - before_i without
// storing them: runs of ten thousand steps would need 800 MB for the array.
// With both samples sorted, the number of differences at most v is counted
// in one pass (as before_i grows, after_j - before_i <= v holds for more
// j), and the k-th smallest is the smallest double v whose count reaches k,
// found by bisecting the doubles in their order as 64-bit keys. Rounding
// of a - b is monotone in a and in b, so the count is monotone in v and the
// answer is one of the differences as computed, exactly.
class PairwiseDifferences {
 public:
  PairwiseDifferences(std::vector<double> before, std::vector<double> after)
      : before_(std::move(before)), after_(std::move(after)) {
    std::sort(before_.begin(), before_.end());
    std::sort(after_.begin(), after_.end());
  }

  uint64_t size() const {
    return static_cast<uint64_t>(before_.size()) * after_.size();
  }

  // The k-th smallest difference, k in [1, size()].
  double Smallest(uint64_t k) const {
    uint64_t lo = Key(after_.front() - before_.back());
    uint64_t hi = Key(after_.back() - before_.front());
    while (lo < hi) {
      const uint64_t mid = lo + (hi - lo) / 2;
      if (CountAtMost(Value(mid)) >= k) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    return Value(lo) + 0.0;  // -0 (a key below +0 that counts the same) is 0
  }

 private:
  static constexpr uint64_t kSign = uint64_t{1} << 63;
  // Orders the doubles (not NaN) as unsigned integers: negatives reversed
  // below the positives.
  static uint64_t Key(double v) {
    const auto bits = std::bit_cast<uint64_t>(v);
    return (bits & kSign) != 0 ? ~bits : bits | kSign;
  }
  static double Value(uint64_t key) {
    return std::bit_cast<double>((key & kSign) != 0 ? key & ~kSign : ~key);
  }

  uint64_t CountAtMost(double v) const {
    uint64_t count = 0;
    size_t j = 0;
    for (double b : before_) {
      while (j < after_.size() && after_[j] - b <= v) ++j;
      count += j;
    }
    return count;
  }

  std::vector<double> before_, after_;
};

}  // namespace

const char* AlternativeName(Alternative alternative) {
  switch (alternative) {
    case Alternative::kTwoSided:
      return "two_sided";
    case Alternative::kAfterLarger:
      return "after_larger";
    case Alternative::kAfterSmaller:
      return "after_smaller";
  }
  return "two_sided";
}

MannWhitneyResult MannWhitneyU(const std::vector<double>& before,
                               const std::vector<double>& after,
                               Alternative alternative,
                               MannWhitneyMethod method) {
  MannWhitneyResult r;
  r.alternative = alternative;
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
  // AFTER larger means BEFORE wins few pairs: a small U_before is the
  // evidence, so that tail is P(U <= u); AFTER smaller, P(U >= u).
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
    switch (alternative) {
      case Alternative::kAfterLarger:
        r.p_value = at_most / total;
        r.smallest_p_value = counts.front() / total;
        break;
      case Alternative::kAfterSmaller:
        r.p_value = at_least / total;
        r.smallest_p_value = counts.back() / total;
        break;
      case Alternative::kTwoSided:
        r.p_value = std::min(1.0, 2 * std::min(at_most, at_least) / total);
        r.smallest_p_value = std::min(1.0, 2 * counts.front() / total);
        break;
    }
    return r;
  }
  const double n = d1 + d2;
  const double variance = d1 * d2 / 12.0 * ((n + 1) - tie_term / (n * (n - 1)));
  if (variance <= 0) return r;  // every value tied: no evidence of change
  const double mean = d1 * d2 / 2;
  const double sd = std::sqrt(variance);
  // The most extreme U (0, or n1 n2 the other way) with the continuity
  // correction: the same tail for either one-sided question.
  const double extreme_tail = NormalCdf((0.5 - mean) / sd);
  switch (alternative) {
    case Alternative::kAfterLarger:
      r.z = (r.u_before - mean + 0.5) / sd;
      r.p_value = std::min(1.0, NormalCdf(r.z));
      r.smallest_p_value = extreme_tail;
      break;
    case Alternative::kAfterSmaller:
      r.z = (r.u_before - mean - 0.5) / sd;
      r.p_value = std::min(1.0, NormalCdf(-r.z));
      r.smallest_p_value = extreme_tail;
      break;
    case Alternative::kTwoSided: {
      const double distance = std::max(0.0, std::abs(r.u_before - mean) - 0.5);
      r.z = std::copysign(distance / sd, r.u_before - mean);
      r.p_value = std::min(1.0, std::erfc(std::abs(r.z) / std::sqrt(2.0)));
      r.smallest_p_value = std::min(1.0, 2 * extreme_tail);
      break;
    }
  }
  return r;
}

ShiftEstimate HodgesLehmannShift(const std::vector<double>& before,
                                 const std::vector<double>& after,
                                 double confidence, Alternative alternative,
                                 MannWhitneyMethod method) {
  ShiftEstimate s;
  s.alternative = alternative;
  s.confidence = confidence;
  if (before.empty() || after.empty()) return s;
  const size_t n1 = before.size(), n2 = after.size();
  const PairwiseDifferences d(before, after);
  const uint64_t n = d.size();
  s.estimate = n % 2 == 1 ? d.Smallest((n + 1) / 2)
                          : (d.Smallest(n / 2) + d.Smallest(n / 2 + 1)) / 2;
  // The shift is below D(k) exactly when at most k - 1 of the differences
  // minus the shift are negative: a U statistic, so P = P(U <= k - 1), and
  // the same above D(N + 1 - k). The tolerance keeps a tail of exactly
  // 1 - confidence (1/40 at 95 %, two-sided) from missing by a rounding.
  const bool two_sided = alternative == Alternative::kTwoSided;
  const double tail = (1 - confidence) / (two_sided ? 2 : 1) * (1 + 1e-9);
  s.exact = method == MannWhitneyMethod::kExact ||
            (method == MannWhitneyMethod::kAuto && n1 <= kMaxExactSize &&
             n2 <= kMaxExactSize);
  uint64_t k = 0;
  if (s.exact) {
    const std::vector<double> counts = ExactUCounts(n1, n2);
    double total = 0;
    for (double c : counts) total += c;
    double below = 0;  // P(U <= k - 1) * total
    while (k < counts.size() && (below + counts[k]) / total <= tail) {
      below += counts[k];
      ++k;
    }
    if (k == 0) {  // even the whole range covers less than asked
      k = 1;
      below = counts.front();
    }
    s.coverage = std::max(0.0, 1 - (two_sided ? 2 : 1) * below / total);
  } else {
    const double d1 = static_cast<double>(n1), d2 = static_cast<double>(n2);
    const double sd = std::sqrt(d1 * d2 * (d1 + d2 + 1) / 12);
    const double z = NormalQuantile(1 - tail);
    const double order = std::floor(d1 * d2 / 2 - z * sd + 0.5);
    k = order < 1 ? 1 : static_cast<uint64_t>(order);
    s.coverage = confidence;
  }
  k = std::min(k, (n + 1) / 2);  // low never above high
  s.order = k;
  if (alternative != Alternative::kAfterSmaller) s.low = d.Smallest(k);
  if (alternative != Alternative::kAfterLarger) s.high = d.Smallest(n + 1 - k);
  return s;
}

}  // namespace feedprof
