// Mann-Whitney U and the bootstrap interval against values computed by
// hand (the arithmetic is in the comments).
#include <gtest/gtest.h>

#include <vector>

#include "feedprof/compare.h"

namespace feedprof {
namespace {

TEST(MannWhitneyTest, SeparatedSamplesExact) {
  // Every AFTER value is larger: U_before = 0, U_after = 5 * 5 = 25. Only
  // 1 of C(10, 5) = 252 orderings is this extreme on each side:
  // p = 2 / 252.
  const MannWhitneyResult r = MannWhitneyU({1, 2, 3, 4, 5}, {6, 7, 8, 9, 10});
  EXPECT_TRUE(r.exact);
  EXPECT_DOUBLE_EQ(r.u_before, 0);
  EXPECT_DOUBLE_EQ(r.u_after, 25);
  EXPECT_NEAR(r.p_value, 2.0 / 252.0, 1e-12);
}

TEST(MannWhitneyTest, SeparatedSamplesNormalApproximation) {
  // mean 12.5, sd sqrt(25 * 11 / 12) = 4.7871; with continuity
  // z = -(12.5 - 0.5) / 4.7871 = -2.50672, p = erfc(2.50672 / sqrt 2).
  const MannWhitneyResult r = MannWhitneyU({1, 2, 3, 4, 5}, {6, 7, 8, 9, 10},
                                           MannWhitneyMethod::kNormal);
  EXPECT_FALSE(r.exact);
  EXPECT_NEAR(r.z, -2.5067182, 1e-6);
  EXPECT_NEAR(r.p_value, 0.0121858, 1e-6);
}

TEST(MannWhitneyTest, TiesUseAverageRanksAndTieCorrection) {
  // Pooled: 1b 2b 2b 2a 3b 3a 4a 4a; ranks 1, 3, 3, 3, 5.5, 5.5, 7.5, 7.5.
  // R_before = 1 + 3 + 3 + 5.5 = 12.5, U_before = 12.5 - 4 * 5 / 2 = 2.5,
  // U_after = 16 - 2.5 = 13.5. Ties (3, 2, 2): Σ t³ - t = 24 + 6 + 6 = 36;
  // var = 16 / 12 * (9 - 36 / 56) = 11.142857; z = -(8 - 2.5 - 0.5) /
  // sqrt(var) = -1.497862, p = 0.134169.
  const MannWhitneyResult r = MannWhitneyU({1, 2, 2, 3}, {2, 3, 4, 4});
  EXPECT_FALSE(r.exact);  // ties: the exact table does not apply
  EXPECT_DOUBLE_EQ(r.u_before, 2.5);
  EXPECT_DOUBLE_EQ(r.u_after, 13.5);
  EXPECT_NEAR(r.z, -1.4978617, 1e-6);
  EXPECT_NEAR(r.p_value, 0.1341692, 1e-6);
}

TEST(MannWhitneyTest, IdenticalSamplesAreNoEvidence) {
  const std::vector<double> v = {5, 7, 9, 11, 13, 15};
  const MannWhitneyResult r = MannWhitneyU(v, v);
  EXPECT_DOUBLE_EQ(r.u_before, 18);  // half of 36 pairs
  EXPECT_DOUBLE_EQ(r.p_value, 1.0);
  const MannWhitneyResult all_tied = MannWhitneyU({4, 4, 4}, {4, 4, 4, 4});
  EXPECT_DOUBLE_EQ(all_tied.p_value, 1.0);
}

TEST(BootstrapTest, ConstantSamplesGiveThePointDifference) {
  const BootstrapInterval b = BootstrapMedianDifference(
      {10, 10, 10, 10, 10}, {12, 12, 12, 12, 12}, 2000, 7);
  EXPECT_DOUBLE_EQ(b.low, 2);
  EXPECT_DOUBLE_EQ(b.high, 2);
  EXPECT_EQ(b.resamples, 2000u);
  EXPECT_EQ(b.seed, 7u);
}

TEST(BootstrapTest, IntervalFromTheResampledMedians) {
  // A resample of AFTER has median 21 when at least 3 of its 5 draws are
  // 21: P = 10 * 0.2^3 * 0.8^2 + 5 * 0.2^4 * 0.8 + 0.2^5 = 0.05792, above
  // 2.5%, so the 97.5th percentile of the difference is 21 - 10 = 11 and
  // the 2.5th is 20 - 10 = 10 (about 116 of 2000 resamples are 11).
  const std::vector<double> before = {10, 10, 10, 10, 10};
  const std::vector<double> after = {20, 20, 20, 20, 21};
  for (uint64_t seed : {1u, 2u, 20240601u}) {
    const BootstrapInterval b =
        BootstrapMedianDifference(before, after, 2000, seed);
    EXPECT_DOUBLE_EQ(b.low, 10) << seed;
    EXPECT_DOUBLE_EQ(b.high, 11) << seed;
  }
}

TEST(BootstrapTest, SameSeedSameInterval) {
  const std::vector<double> before = {3, 9, 4, 7, 1, 8, 2};
  const std::vector<double> after = {5, 12, 6, 10, 4, 11, 6};
  const BootstrapInterval a = BootstrapMedianDifference(before, after, 500, 9);
  const BootstrapInterval b = BootstrapMedianDifference(before, after, 500, 9);
  EXPECT_DOUBLE_EQ(a.low, b.low);
  EXPECT_DOUBLE_EQ(a.high, b.high);
  EXPECT_LE(a.low, a.high);
  // Medians 4 and 6: the observed difference lies in the interval.
  EXPECT_LE(a.low, 2);
  EXPECT_GE(a.high, 2);
}

}  // namespace
}  // namespace feedprof
