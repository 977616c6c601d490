// Mann-Whitney U (two- and one-sided) and the Hodges-Lehmann shift with its
// interval against values computed by hand or by enumerating the exact U
// distribution (the arithmetic is in the comments).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "feedprof/compare.h"

namespace feedprof {
namespace {

// The exact null distribution of U for 6 against 6 values (counts of the
// C(12, 6) = 924 orderings with U = 0, 1, 2, ...): 1, 1, 2, 3, 5, 7, 11,
// 13, ..., so P(U <= 5) = 19/924, P(U <= 6) = 30/924, P(U <= 7) = 43/924.
//
// 6 against 6 steps (µs), AFTER's 39 % slower by the median, one warm-up
// outlier in BEFORE (9000) above every AFTER step: BEFORE wins the 6 pairs
// of its outlier and no other, U_before = 6.
const std::vector<double> kWarmupBefore = {9000, 4960, 4980, 4990, 5000, 5010};
const std::vector<double> kSlowerAfter = {8000, 6900, 6920, 6940, 6950, 6960};

TEST(MannWhitneyTest, SeparatedSamplesExact) {
  // Every AFTER value is larger: U_before = 0, U_after = 5 * 5 = 25. Only
  // 1 of C(10, 5) = 252 orderings is this extreme on each side:
  // p = 2 / 252.
  const MannWhitneyResult r =
      MannWhitneyU({1, 2, 3, 4, 5}, {6, 7, 8, 9, 10}, Alternative::kTwoSided);
  EXPECT_TRUE(r.exact);
  EXPECT_EQ(r.alternative, Alternative::kTwoSided);
  EXPECT_DOUBLE_EQ(r.u_before, 0);
  EXPECT_DOUBLE_EQ(r.u_after, 25);
  EXPECT_NEAR(r.p_value, 2.0 / 252.0, 1e-12);
  EXPECT_NEAR(r.smallest_p_value, 2.0 / 252.0, 1e-12);
}

TEST(MannWhitneyTest, SeparatedSamplesOneSidedExact) {
  // AFTER larger: P(U <= 0) = 1/252, also the smallest p 5 against 5 can
  // give. AFTER smaller: P(U >= 0) = 1.
  const std::vector<double> before = {1, 2, 3, 4, 5};
  const std::vector<double> after = {6, 7, 8, 9, 10};
  const MannWhitneyResult larger =
      MannWhitneyU(before, after, Alternative::kAfterLarger);
  EXPECT_TRUE(larger.exact);
  EXPECT_EQ(larger.alternative, Alternative::kAfterLarger);
  EXPECT_NEAR(larger.p_value, 1.0 / 252.0, 1e-12);
  EXPECT_NEAR(larger.smallest_p_value, 1.0 / 252.0, 1e-12);
  const MannWhitneyResult smaller =
      MannWhitneyU(before, after, Alternative::kAfterSmaller);
  EXPECT_DOUBLE_EQ(smaller.p_value, 1.0);
  EXPECT_NEAR(smaller.smallest_p_value, 1.0 / 252.0, 1e-12);
}

TEST(MannWhitneyTest, WarmupOutlierHalvesThePOneSided) {
  // The measured defect: two-sided p = 2 * 30/924 = 0.0649 ("within
  // noise"), one-sided (AFTER larger) P(U <= 6) = 30/924 = 0.0325.
  const MannWhitneyResult two =
      MannWhitneyU(kWarmupBefore, kSlowerAfter, Alternative::kTwoSided);
  EXPECT_DOUBLE_EQ(two.u_before, 6);
  EXPECT_NEAR(two.p_value, 60.0 / 924.0, 1e-12);
  const MannWhitneyResult slower =
      MannWhitneyU(kWarmupBefore, kSlowerAfter, Alternative::kAfterLarger);
  EXPECT_TRUE(slower.exact);
  EXPECT_NEAR(slower.p_value, 30.0 / 924.0, 1e-12);
  EXPECT_NEAR(slower.smallest_p_value, 1.0 / 924.0, 1e-12);
  // The other way round (AFTER 28 % faster), AFTER larger is
  // P(U <= 30) = 1 - P(U <= 5) = 905/924 = 0.979.
  const MannWhitneyResult faster =
      MannWhitneyU(kSlowerAfter, kWarmupBefore, Alternative::kAfterLarger);
  EXPECT_DOUBLE_EQ(faster.u_before, 30);
  EXPECT_NEAR(faster.p_value, 905.0 / 924.0, 1e-12);
  EXPECT_NEAR(
      MannWhitneyU(kSlowerAfter, kWarmupBefore, Alternative::kAfterSmaller)
          .p_value,
      30.0 / 924.0, 1e-12);
}

TEST(MannWhitneyTest, SmallestPOfFourAndThreeSteps) {
  // k against k steps reach at best p = 1 / C(2k, k) one-sided: 1/70 for
  // 4 (below 0.05), 1/20 for 3 (not below).
  EXPECT_NEAR(
      MannWhitneyU({1, 2, 3, 4}, {5, 6, 7, 8}, Alternative::kAfterLarger)
          .smallest_p_value,
      1.0 / 70.0, 1e-12);
  EXPECT_NEAR(
      MannWhitneyU({1, 2, 3}, {5, 6, 7}, Alternative::kAfterLarger).p_value,
      1.0 / 20.0, 1e-12);
}

TEST(MannWhitneyTest, SeparatedSamplesNormalApproximation) {
  // mean 12.5, sd sqrt(25 * 11 / 12) = 4.7871; with continuity
  // z = -(12.5 - 0.5) / 4.7871 = -2.50672, p = erfc(2.50672 / sqrt 2).
  const MannWhitneyResult r =
      MannWhitneyU({1, 2, 3, 4, 5}, {6, 7, 8, 9, 10}, Alternative::kTwoSided,
                   MannWhitneyMethod::kNormal);
  EXPECT_FALSE(r.exact);
  EXPECT_NEAR(r.z, -2.5067182, 1e-6);
  EXPECT_NEAR(r.p_value, 0.0121858, 1e-6);
  // One-sided: z = (0 - 12.5 + 0.5) / 4.7871 = -2.50672, p = Phi(z).
  const MannWhitneyResult one =
      MannWhitneyU({1, 2, 3, 4, 5}, {6, 7, 8, 9, 10}, Alternative::kAfterLarger,
                   MannWhitneyMethod::kNormal);
  EXPECT_NEAR(one.z, -2.5067182, 1e-6);
  EXPECT_NEAR(one.p_value, 0.0060929, 1e-6);
}

TEST(MannWhitneyTest, TiesUseAverageRanksAndTieCorrection) {
  // Pooled: 1b 2b 2b 2a 3b 3a 4a 4a; ranks 1, 3, 3, 3, 5.5, 5.5, 7.5, 7.5.
  // R_before = 1 + 3 + 3 + 5.5 = 12.5, U_before = 12.5 - 4 * 5 / 2 = 2.5,
  // U_after = 16 - 2.5 = 13.5. Ties (3, 2, 2): Σ t³ - t = 24 + 6 + 6 = 36;
  // var = 16 / 12 * (9 - 36 / 56) = 11.142857; z = -(8 - 2.5 - 0.5) /
  // sqrt(var) = -1.497862, p = 0.134169.
  const MannWhitneyResult r =
      MannWhitneyU({1, 2, 2, 3}, {2, 3, 4, 4}, Alternative::kTwoSided);
  EXPECT_FALSE(r.exact);  // ties: the exact table does not apply
  EXPECT_DOUBLE_EQ(r.u_before, 2.5);
  EXPECT_DOUBLE_EQ(r.u_after, 13.5);
  EXPECT_NEAR(r.z, -1.4978617, 1e-6);
  EXPECT_NEAR(r.p_value, 0.1341692, 1e-6);
}

TEST(MannWhitneyTest, OneSidedNormalWithTies) {
  // As above, sd = sqrt(11.142857) = 3.338092. AFTER larger: z = (2.5 - 8 +
  // 0.5) / sd = -1.497862, p = Phi(z) = 0.0670846. AFTER smaller: z =
  // (2.5 - 8 - 0.5) / sd = -1.797434, p = 1 - Phi(z) = 0.9638666. The
  // smallest p (U = 0): Phi((0.5 - 8) / sd) = 0.0123266.
  const MannWhitneyResult larger =
      MannWhitneyU({1, 2, 2, 3}, {2, 3, 4, 4}, Alternative::kAfterLarger);
  EXPECT_FALSE(larger.exact);
  EXPECT_NEAR(larger.z, -1.4978617, 1e-6);
  EXPECT_NEAR(larger.p_value, 0.0670846, 1e-6);
  EXPECT_NEAR(larger.smallest_p_value, 0.0123266, 1e-6);
  const MannWhitneyResult smaller =
      MannWhitneyU({1, 2, 2, 3}, {2, 3, 4, 4}, Alternative::kAfterSmaller);
  EXPECT_NEAR(smaller.z, -1.7974341, 1e-6);
  EXPECT_NEAR(smaller.p_value, 0.9638666, 1e-6);
}

TEST(MannWhitneyTest, IdenticalSamplesAreNoEvidence) {
  const std::vector<double> v = {5, 7, 9, 11, 13, 15};
  const MannWhitneyResult r = MannWhitneyU(v, v, Alternative::kTwoSided);
  EXPECT_DOUBLE_EQ(r.u_before, 18);  // half of 36 pairs
  EXPECT_DOUBLE_EQ(r.p_value, 1.0);
  const MannWhitneyResult all_tied =
      MannWhitneyU({4, 4, 4}, {4, 4, 4, 4}, Alternative::kAfterLarger);
  EXPECT_DOUBLE_EQ(all_tied.p_value, 1.0);
  EXPECT_DOUBLE_EQ(all_tied.smallest_p_value, 1.0);  // cannot find anything
}

TEST(HodgesLehmannTest, SeparatedSamples) {
  // Differences after_j - before_i of {1..5} and {6..10}: 1 once, 2 twice,
  // ..., 5 five times, ..., 9 once; the 13th of 25 is 5. 95 % two-sided:
  // P(U <= 2) = 4/252 = 0.0159 <= 0.025 < P(U <= 3) = 7/252, so k = 3:
  // [D(3), D(23)] = [2, 8], coverage 1 - 2 * 4/252 = 61/63.
  const ShiftEstimate s = HodgesLehmannShift({1, 2, 3, 4, 5}, {6, 7, 8, 9, 10},
                                             0.95, Alternative::kTwoSided);
  EXPECT_TRUE(s.exact);
  EXPECT_DOUBLE_EQ(s.estimate, 5);
  EXPECT_EQ(s.order, 3u);
  ASSERT_TRUE(s.low && s.high);
  EXPECT_DOUBLE_EQ(*s.low, 2);
  EXPECT_DOUBLE_EQ(*s.high, 8);
  EXPECT_NEAR(s.coverage, 61.0 / 63.0, 1e-12);
  EXPECT_DOUBLE_EQ(s.confidence, 0.95);
}

TEST(HodgesLehmannTest, WarmupOutlierTwoAndOneSided) {
  // 36 differences (µs): the outlier's six, 8000 - 9000 = -1000 and
  // 6900..6960 - 9000 = -2100..-2040; the other 30 from 6900 - 5010 = 1890
  // to 8000 - 4960 = 3040. Median: D(18) = 1940 and D(19) = 1950, 1945.
  // Two-sided 95 %: P(U <= 5) = 19/924 <= 0.025 < 30/924, k = 6:
  // [D(6), D(31)] = [-1000, 2000]: 0 is inside, as the two-sided p (0.065)
  // says. One-sided 95 %: P(U <= 7) = 43/924 <= 0.05 < 61/924, k = 8:
  // lower bound D(8) = 1900 (1890, then 1900), above 0 as the one-sided p
  // (0.032) says; coverage 1 - 43/924 = 881/924.
  const ShiftEstimate two = HodgesLehmannShift(kWarmupBefore, kSlowerAfter,
                                               0.95, Alternative::kTwoSided);
  EXPECT_DOUBLE_EQ(two.estimate, 1945);
  EXPECT_EQ(two.order, 6u);
  ASSERT_TRUE(two.low && two.high);
  EXPECT_DOUBLE_EQ(*two.low, -1000);
  EXPECT_DOUBLE_EQ(*two.high, 2000);
  EXPECT_NEAR(two.coverage, 443.0 / 462.0, 1e-12);
  const ShiftEstimate slower = HodgesLehmannShift(
      kWarmupBefore, kSlowerAfter, 0.95, Alternative::kAfterLarger);
  EXPECT_DOUBLE_EQ(slower.estimate, 1945);
  EXPECT_EQ(slower.order, 8u);
  ASSERT_TRUE(slower.low);
  EXPECT_FALSE(slower.high);  // unbounded above
  EXPECT_DOUBLE_EQ(*slower.low, 1900);
  EXPECT_NEAR(slower.coverage, 881.0 / 924.0, 1e-12);
  // The runs swapped: the shift -1945, the lower bound D(8) = -1980.
  const ShiftEstimate faster = HodgesLehmannShift(
      kSlowerAfter, kWarmupBefore, 0.95, Alternative::kAfterLarger);
  EXPECT_DOUBLE_EQ(faster.estimate, -1945);
  EXPECT_DOUBLE_EQ(faster.low.value_or(0), -1980);
  const ShiftEstimate upper = HodgesLehmannShift(
      kSlowerAfter, kWarmupBefore, 0.95, Alternative::kAfterSmaller);
  EXPECT_FALSE(upper.low);
  EXPECT_DOUBLE_EQ(upper.high.value_or(0), -1900);
}

TEST(HodgesLehmannTest, TooFewValuesForTheLevel) {
  // 3 against 3 at 95 %: even P(U <= 0) = 1/20 is above 0.025, so k = 1,
  // the whole range [D(1), D(9)] = [1, 5], coverage 1 - 2/20 = 0.9.
  const ShiftEstimate s =
      HodgesLehmannShift({1, 2, 3}, {4, 5, 6}, 0.95, Alternative::kTwoSided);
  EXPECT_DOUBLE_EQ(s.estimate, 3);
  EXPECT_EQ(s.order, 1u);
  EXPECT_DOUBLE_EQ(s.low.value_or(0), 1);
  EXPECT_DOUBLE_EQ(s.high.value_or(0), 5);
  EXPECT_NEAR(s.coverage, 0.9, 1e-12);
}

TEST(HodgesLehmannTest, NormalApproximation) {
  // 30 against 25 values (with ties across the samples), sorted
  // differences enumerated: median (D(375) + D(376)) / 2 = 14. Two-sided
  // 95 %: k = floor(375 - 1.959964 * sqrt(750 * 56 / 12) + 0.5) = 259,
  // [D(259), D(492)] = [-3, 31]; one-sided: z = 1.644854, k = 278,
  // lower bound D(278) = 0, upper bound D(473) = 28.
  std::vector<double> before, after;
  for (int i = 0; i < 30; ++i) before.push_back((i * 37) % 101);
  for (int i = 0; i < 25; ++i) after.push_back((i * 53) % 97 + 20);
  const ShiftEstimate two =
      HodgesLehmannShift(before, after, 0.95, Alternative::kTwoSided);
  EXPECT_FALSE(two.exact);
  EXPECT_DOUBLE_EQ(two.estimate, 14);
  EXPECT_EQ(two.order, 259u);
  EXPECT_DOUBLE_EQ(two.low.value_or(0), -3);
  EXPECT_DOUBLE_EQ(two.high.value_or(0), 31);
  EXPECT_DOUBLE_EQ(two.coverage, 0.95);
  const ShiftEstimate larger =
      HodgesLehmannShift(before, after, 0.95, Alternative::kAfterLarger);
  EXPECT_EQ(larger.order, 278u);
  EXPECT_DOUBLE_EQ(larger.low.value_or(-1), 0);
  EXPECT_DOUBLE_EQ(
      HodgesLehmannShift(before, after, 0.95, Alternative::kAfterSmaller)
          .high.value_or(0),
      28);
}

TEST(HodgesLehmannTest, ManyStepsWithoutTheDifferenceArray) {
  // 3000 against 3000 steps, AFTER = BEFORE + 100: 9 million differences
  // t = j - i + 100, t taken 3000 - |t - 100| times, symmetric about 100.
  // k = floor(4.5e6 - 1.959964 * sqrt(9e6 * 6001 / 12) + 0.5) = 4368511;
  // counting the multiplicities, D(k) = 56 and D(N + 1 - k) = 144.
  std::vector<double> before, after;
  for (int i = 0; i < 3000; ++i) {
    before.push_back(i);
    after.push_back(i + 100);
  }
  const ShiftEstimate s =
      HodgesLehmannShift(before, after, 0.95, Alternative::kTwoSided);
  EXPECT_DOUBLE_EQ(s.estimate, 100);
  EXPECT_EQ(s.order, 4368511u);
  EXPECT_DOUBLE_EQ(s.low.value_or(0), 56);
  EXPECT_DOUBLE_EQ(s.high.value_or(0), 144);
}

TEST(HodgesLehmannTest, NegativeAndFractionalDifferences) {
  // {0.5, 1.5} against {-1.25, 0.25}: differences -2.75, -1.75, -1.25,
  // -0.25; median (-1.75 + -1.25) / 2 = -1.5. Identical samples: 0.
  EXPECT_DOUBLE_EQ(HodgesLehmannShift({0.5, 1.5}, {-1.25, 0.25}, 0.95,
                                      Alternative::kTwoSided)
                       .estimate,
                   -1.5);
  const ShiftEstimate same =
      HodgesLehmannShift({3, 1, 2}, {2, 3, 1}, 0.95, Alternative::kTwoSided);
  EXPECT_DOUBLE_EQ(same.estimate, 0);
  EXPECT_FALSE(std::signbit(same.estimate));
}

}  // namespace
}  // namespace feedprof
