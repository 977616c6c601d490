// Durations in the words of every report: the units below 1000 s as they
// always were, minutes, hours and days past it, and never an exponent.
#include "common/units.h"

#include <cstdint>
#include <limits>
#include <string>

#include "gtest/gtest.h"

namespace feedprof::common {
namespace {

constexpr int64_t kSecond = 1'000'000'000;

TEST(FormatDurationTest, ShorterThan1000SecondsReadsAsBefore) {
  EXPECT_EQ(common::FormatDuration(0), "0 ns");
  EXPECT_EQ(common::FormatDuration(850), "850 ns");
  EXPECT_EQ(common::FormatDuration(999), "999 ns");
  EXPECT_EQ(common::FormatDuration(1'000), "1 µs");
  EXPECT_EQ(common::FormatDuration(12'345), "12.3 µs");
  EXPECT_EQ(common::FormatDuration(4'560'000), "4.56 ms");
  EXPECT_EQ(common::FormatDuration(1'230'000'000), "1.23 s");
  EXPECT_EQ(common::FormatDuration(999 * kSecond), "999 s");
  EXPECT_EQ(common::FormatDuration(999'400'000'000), "999 s");
}

TEST(FormatDurationTest, From1000SecondsReadsInMinutesHoursAndDays) {
  EXPECT_EQ(common::FormatDuration(1000 * kSecond), "16.7 min");
  EXPECT_EQ(common::FormatDuration(59 * 60 * kSecond), "59 min");
  EXPECT_EQ(common::FormatDuration(3600 * kSecond), "1 h");
  EXPECT_EQ(common::FormatDuration(5 * 3600 * kSecond), "5 h");
  EXPECT_EQ(common::FormatDuration(90 * 60 * kSecond), "1.5 h");
  EXPECT_EQ(common::FormatDuration(86400 * kSecond), "1 d");
  // The window of two traces recorded three weeks apart.
  EXPECT_EQ(common::FormatDuration(1'800'000 * kSecond), "20.8 d");
  EXPECT_EQ(common::FormatDuration(1000 * 86400 * kSecond), "1000 d");
  // The longest int64_t holds: 106751.99 days.
  EXPECT_EQ(common::FormatDuration(std::numeric_limits<int64_t>::max()),
            "106752 d");
}

// A value that rounds to 1000 of a unit ("%.3g" would write "1e+03") takes
// the next unit; 60 min and 24 h likewise.
TEST(FormatDurationTest, ValuesThatRoundUpTakeTheNextUnit) {
  EXPECT_EQ(common::FormatDuration(999'700), "1 ms");
  EXPECT_EQ(common::FormatDuration(999'700'000), "1 s");
  EXPECT_EQ(common::FormatDuration(999'700'000'000), "16.7 min");
  EXPECT_EQ(common::FormatDuration(3599 * kSecond), "1 h");    // 59.98 min
  EXPECT_EQ(common::FormatDuration(86'390 * kSecond), "1 d");  // 23.997 h
}

TEST(FormatDurationTest, NegativeDurationsReadAsTheirMagnitudeWithASign) {
  EXPECT_EQ(common::FormatDuration(-850), "-850 ns");
  EXPECT_EQ(common::FormatDuration(-12'345), "-12.3 µs");
  EXPECT_EQ(common::FormatDuration(-999 * kSecond), "-999 s");
  EXPECT_EQ(common::FormatDuration(-1000 * kSecond), "-16.7 min");
  EXPECT_EQ(common::FormatDuration(-3600 * kSecond), "-1 h");
  EXPECT_EQ(common::FormatDuration(-1'800'000 * kSecond), "-20.8 d");
  EXPECT_EQ(common::FormatDuration(-999'700), "-1 ms");
}

TEST(FormatDurationTest, NeverWritesAnExponent) {
  // Every power of 2 and its neighbours, both signs, across the range.
  for (int bit = 0; bit < 63; ++bit) {
    const int64_t base = int64_t{1} << bit;
    for (int64_t ns : {base - 1, base, base + 1, -base}) {
      const std::string s = common::FormatDuration(ns);
      EXPECT_EQ(s.find("e+"), std::string::npos) << ns << ": " << s;
      EXPECT_EQ(s.find("e-"), std::string::npos) << ns << ": " << s;
    }
  }
}

}  // namespace
}  // namespace feedprof::common
