// The trace clock (preload/trace_clock.h) must give CLOCK_MONOTONIC ns
// whichever way it reads the time: through the TSC once calibrated, through
// clock_gettime when the TSC is unsuitable or turned off.
#include "preload/trace_clock.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>

namespace feedprof::preload {
namespace {

// How far `value` lies outside [low, high] (0 inside).
uint64_t DistanceOutside(uint64_t value, uint64_t low, uint64_t high) {
  if (value < low) return low - value;
  if (value > high) return value - high;
  return 0;
}

// Reads NowNs() until it converts TSC reads; false after `limit_ns`.
bool WaitForTsc(uint64_t limit_ns) {
  const uint64_t begin = MonotonicNs();
  while (ActiveTraceClockSource() != TraceClockSource::kTsc) {
    if (MonotonicNs() - begin > limit_ns) return false;
    (void)NowNs();
  }
  return true;
}

TEST(TscUsableForTest, NeedsTheTscClocksourceAndBothInvariantFlags) {
  const char kFlags[] = "flags\t\t: fpu tsc constant_tsc rep_good nonstop_tsc";
  EXPECT_TRUE(TscUsableFor("tsc\n", kFlags));
  EXPECT_TRUE(TscUsableFor("tsc", "nonstop_tsc constant_tsc\n"));
  EXPECT_FALSE(TscUsableFor("kvm-clock\n", kFlags));
  EXPECT_FALSE(TscUsableFor("hpet\n", kFlags));
  EXPECT_FALSE(TscUsableFor("", kFlags));
  EXPECT_FALSE(TscUsableFor("tsc\n", "flags : fpu tsc constant_tsc"));
  EXPECT_FALSE(TscUsableFor("tsc\n", "flags : fpu tsc nonstop_tsc"));
  // Whole words only.
  EXPECT_FALSE(TscUsableFor("tsc\n", "xconstant_tsc nonstop_tsc_y"));
  EXPECT_FALSE(TscUsableFor("tsc\n", ""));
}

TEST(DetectTraceClockSourceTest, FeedprofTscZeroAsksForClockGettime) {
  setenv("FEEDPROF_TSC", "0", 1);
  const TraceClockSource source = DetectTraceClockSource();
  unsetenv("FEEDPROF_TSC");
  EXPECT_EQ(source, TraceClockSource::kClockGettime);
}

TEST(TscToNsTest, ConvertsForwardAndBackwardFromTheBase) {
  const uint64_t half_ns_per_tick = 1ull << 31;  // 0.5 ns per tick
  EXPECT_EQ(TscToNs(3000, 1000, 5'000'000'000, half_ns_per_tick),
            5'000'001'000u);
  EXPECT_EQ(TscToNs(1000, 1000, 5'000'000'000, half_ns_per_tick),
            5'000'000'000u);
  EXPECT_EQ(TscToNs(0, 1000, 5'000'000'000, half_ns_per_tick), 4'999'999'500u);
  // Never below 0.
  EXPECT_EQ(TscToNs(0, 1'000'000, 10, half_ns_per_tick), 0u);
}

// The 32.32 slope loses less than one part per billion: an hour of ticks
// converts to within 3.6 us (refreshes keep real conversions to 50 ms).
TEST(TscToNsTest, OneHourAtTwoPointSixGigahertzIsOffByLessThanOnePpb) {
  // 2.6 GHz: 1/2.6 ns per tick, rounded down to 32.32 fixed point.
  const uint64_t slope = static_cast<uint64_t>((1ull << 32) / 2.6);
  const uint64_t hour_ticks = 3600ull * 2'600'000'000ull;
  const uint64_t ns = TscToNs(hour_ticks, 0, 0, slope);
  const uint64_t hour_ns = 3600ull * 1'000'000'000ull;
  EXPECT_LE(hour_ns - ns, 3600u) << ns;
  EXPECT_LE(ns, hour_ns);
}

TEST(TraceClockTest, FallbackReadsClockGettime) {
  InitTraceClock(TraceClockSource::kClockGettime);
  EXPECT_EQ(ActiveTraceClockSource(), TraceClockSource::kClockGettime);
  const uint64_t begin = MonotonicNs();
  uint64_t worst = 0;
  uint64_t previous = 0;
  int reads = 0;
  // Past the calibration time: the fallback must not start converting.
  while (MonotonicNs() - begin < 2 * kCalibrationNs) {
    const uint64_t low = MonotonicNs();
    const uint64_t now = NowNs();
    const uint64_t high = MonotonicNs();
    const uint64_t distance = DistanceOutside(now, low, high);
    if (distance > worst) worst = distance;
    ASSERT_GE(now, previous);
    previous = now;
    ++reads;
  }
  EXPECT_EQ(worst, 0u) << "over " << reads << " reads";
  EXPECT_EQ(ActiveTraceClockSource(), TraceClockSource::kClockGettime);
}

TEST(TraceClockTest, ClockGettimeUntilCalibrated) {
  if (DetectTraceClockSource() != TraceClockSource::kTsc) {
    GTEST_SKIP() << "this machine's TSC is not usable for CLOCK_MONOTONIC";
  }
  InitTraceClock(TraceClockSource::kTsc);
  EXPECT_EQ(ActiveTraceClockSource(), TraceClockSource::kClockGettime);
  const uint64_t low = MonotonicNs();
  const uint64_t now = NowNs();
  const uint64_t high = MonotonicNs();
  EXPECT_EQ(DistanceOutside(now, low, high), 0u);
}

// Over two seconds (40 refreshes), a TSC-converted read stays within 20 us
// of a clock_gettime bracket around it and never goes backwards.
TEST(TraceClockTest, TscConversionTracksClockMonotonic) {
  if (DetectTraceClockSource() != TraceClockSource::kTsc) {
    GTEST_SKIP() << "this machine's TSC is not usable for CLOCK_MONOTONIC";
  }
  InitTraceClock(TraceClockSource::kTsc);
  ASSERT_TRUE(WaitForTsc(20 * kCalibrationNs));
  constexpr uint64_t kDurationNs = 2'000'000'000;
  constexpr uint64_t kBoundNs = 20'000;
  const uint64_t begin = MonotonicNs();
  uint64_t worst = 0;
  uint64_t previous = 0;
  int checks = 0;
  while (MonotonicNs() - begin < kDurationNs) {
    const uint64_t low = MonotonicNs();
    const uint64_t now = NowNs();
    const uint64_t high = MonotonicNs();
    // A read on another core, or preemption between the three reads, widens
    // the bracket: then it says nothing.
    if (high - low < 2'000) {
      const uint64_t distance = DistanceOutside(now, low, high);
      if (distance > worst) worst = distance;
      ++checks;
    }
    ASSERT_GE(now, previous);
    previous = now;
    for (int i = 0; i < 1000; ++i) {
      const uint64_t later = NowNs();
      ASSERT_GE(later, previous);
      previous = later;
    }
  }
  EXPECT_EQ(ActiveTraceClockSource(), TraceClockSource::kTsc);
  EXPECT_GT(checks, 1000);
  EXPECT_LE(worst, kBoundNs) << "over " << checks << " checks";
}

}  // namespace
}  // namespace feedprof::preload
