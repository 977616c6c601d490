// DigestRanges: what the analysis keeps of the ranges before they may be
// freed. The steps (with --step-range, ProfilerStep, or a step name), each
// step's thread as the first range with its pid and times gives it, the
// DataLoader time clipped to the window, and the ranges the window holds,
// all for the selected processes only.
#include "analysis/range_digest.h"

#include <gtest/gtest.h>

#include <string_view>
#include <vector>

namespace feedprof::analysis {
namespace {

constexpr TimeNs kMs = 1'000'000;

class RangeDigestTest : public ::testing::Test {
 protected:
  Range& Add(std::string_view name, TimeNs start_ms, TimeNs end_ms,
             int32_t pid = 1, int32_t tid = 11,
             RangeSource source = RangeSource::kNvtx) {
    Range r;
    r.start = start_ms * kMs;
    r.end = end_ms * kMs;
    r.pid = pid;
    r.tid = tid;
    r.name = tl_.strings.Intern(name);
    r.source = source;
    tl_.ranges.push_back(r);
    return tl_.ranges.back();
  }
  Window WindowMs(TimeNs start_ms, TimeNs end_ms) const {
    Window w;
    w.trace_start = w.start = start_ms * kMs;
    w.trace_end = w.end = end_ms * kMs;
    return w;
  }

  Timeline tl_;
};

TEST_F(RangeDigestTest, ProfilerStepsWithTheirThreadsAndCounts) {
  // A range of the same pid and times on thread 12 comes first: the step
  // is replayed on that thread, as the what-if always did.
  Add("forward", 0, 10, 1, 12);
  Add("ProfilerStep#1", 0, 10, 1, 11, RangeSource::kProfilerStep);
  Add("ProfilerStep#2", 10, 20, 1, 11, RangeSource::kProfilerStep);
  // The same step recorded twice is one step.
  Add("ProfilerStep#2", 10, 20, 1, 11, RangeSource::kUserAnnotation);
  Add("ProfilerStep#3", 20, 30, 2, 21, RangeSource::kProfilerStep);
  Add("enumerate(DataLoader)#1", 5, 25, 1, 11, RangeSource::kDataLoader);
  Add("enumerate(DataLoader)#2", 40, 50, 1, 11, RangeSource::kDataLoader);

  const RangeDigest all = DigestRanges(tl_, {}, WindowMs(0, 30), "");
  EXPECT_EQ(all.step_source, "ProfilerStep");
  ASSERT_EQ(all.steps.size(), 3u);
  EXPECT_EQ(all.steps[0].start, 0);
  EXPECT_EQ(all.steps[1].start, 10 * kMs);
  EXPECT_EQ(all.steps[2].pid, 2);
  EXPECT_EQ(all.step_tids, (std::vector<int32_t>{12, 11, 21}));
  EXPECT_EQ(all.dataloader_ranges, 1u);
  EXPECT_EQ(all.dataloader_ns, 20 * kMs);
  EXPECT_EQ(all.in_window, 6u);  // the second DataLoader range is later

  // Process 1 alone, from 8 ms on: its second step, the first overlaps
  // the window too; DataLoader time counts within the window only.
  const RangeDigest one = DigestRanges(tl_, {1}, WindowMs(8, 60), "");
  ASSERT_EQ(one.steps.size(), 2u);
  EXPECT_EQ(one.dataloader_ranges, 2u);
  EXPECT_EQ(one.dataloader_ns, (25 - 8 + 10) * kMs);
  EXPECT_EQ(one.in_window, 6u);
}

TEST_F(RangeDigestTest, TheUsersRangeNameComesFirst) {
  Add("ProfilerStep#1", 0, 10, 1, 11, RangeSource::kProfilerStep);
  Add("train_batch 1", 0, 8);
  Add("train_batch 2", 10, 18);
  const RangeDigest d = DigestRanges(tl_, {}, WindowMs(0, 20), "train_batch");
  EXPECT_EQ(d.step_source, "user:train_batch");
  ASSERT_EQ(d.steps.size(), 2u);
  EXPECT_EQ(d.steps[1].end, 18 * kMs);
  // A name nothing has: no steps and no source.
  const RangeDigest none = DigestRanges(tl_, {}, WindowMs(0, 20), "eval");
  EXPECT_TRUE(none.steps.empty());
  EXPECT_TRUE(none.step_tids.empty());
  EXPECT_EQ(none.step_source, "");
}

TEST_F(RangeDigestTest, StepNamesPreferTopLevelThenCount) {
  Add("Step 1", 0, 10).depth = 0;
  Add("Step 2", 10, 20).depth = 0;
  for (int i = 0; i < 3; ++i) Add("iteration", i * 5, i * 5 + 2).depth = 1;
  Add("optimizer.step", 0, 1);  // contains "step": no loop step
  const RangeDigest d = DigestRanges(tl_, {}, WindowMs(0, 20), "");
  EXPECT_EQ(d.step_source, "range:step");  // "Step 1", "Step 2": one key
  ASSERT_EQ(d.steps.size(), 2u);
  EXPECT_EQ(d.step_tids, (std::vector<int32_t>{11, 11}));
}

TEST_F(RangeDigestTest, NoRangesNoSteps) {
  const RangeDigest d = DigestRanges(tl_, {}, WindowMs(0, 20), "");
  EXPECT_TRUE(d.steps.empty());
  EXPECT_EQ(d.in_window, 0u);
  EXPECT_EQ(d.dataloader_ns, 0);
}

}  // namespace
}  // namespace feedprof::analysis
