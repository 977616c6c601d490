// TimelineIndexMap: a replay model's index of each of its timeline events,
// the same answers whether it is an array over the whole timeline (the
// process holds at least half of the events) or its own sorted pairs, and
// the bytes the memory estimate counts for each. A process among many
// costs 8 bytes per event of its own, not 4 per event of the whole trace.
#include "replay/timeline_index_map.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "analysis/prepared_timeline.h"
#include "feedprof/analysis.h"
#include "replay/replay_memory.h"
#include "tests/analysis/timeline_builder.h"

namespace feedprof::replay {
namespace {

using testing::TimelineBuilder;

// Events 4, 1 and 3 (in that order, as a second thread's calls come after
// the first's) at model indices 0, 1, 2, of a timeline of `timeline_size`.
TimelineIndexMap ThreeOf(uint64_t timeline_size) {
  TimelineIndexMap map;
  map.Start(3, timeline_size);
  map.Set(4, 0);
  map.Set(1, 1);
  map.Set(3, 2);
  map.Finish();
  return map;
}

TEST(TimelineIndexMapTest, AnArrayAndPairsAnswerAlike) {
  // 5 events: an array of the timeline; 1000: the three pairs.
  for (const uint64_t size : {uint64_t{5}, uint64_t{1000}}) {
    const TimelineIndexMap map = ThreeOf(size);
    EXPECT_EQ(map.Find(4), 0) << size;
    EXPECT_EQ(map.Find(1), 1) << size;
    EXPECT_EQ(map.Find(3), 2) << size;
    EXPECT_EQ(map.Find(0), -1) << size;
    EXPECT_EQ(map.Find(2), -1) << size;
    EXPECT_EQ(map.Find(999), -1) << size;
    EXPECT_EQ(map.Find(UINT32_MAX), -1) << size;
  }
  TimelineIndexMap cleared = ThreeOf(5);
  cleared.Clear();
  EXPECT_EQ(cleared.Find(4), -1);
}

TEST(TimelineIndexMapTest, BytesAreTheSmallerForm) {
  // Half of the timeline or more: an array of the timeline.
  EXPECT_EQ(TimelineIndexMap::BytesFor(5, 5), 20u);
  EXPECT_EQ(TimelineIndexMap::BytesFor(5, 10), 40u);
  // Less: the process's own pairs.
  EXPECT_EQ(TimelineIndexMap::BytesFor(5, 11), 40u);
  EXPECT_EQ(TimelineIndexMap::BytesFor(1'000, 64'000), 8'000u);
  EXPECT_EQ(TimelineIndexMap::BytesFor(0, 100), 0u);
}

// Four processes whose launches interleave (a session): each model maps
// its own 6 calls and 3 ops as pairs, 8 bytes each, where arrays over the
// timeline took 4 bytes per call and op of the whole trace per process.
TEST(TimelineIndexMapTest, ASessionsProcessesCountTheirOwnEvents) {
  TimelineBuilder b;
  std::vector<int32_t> pids;
  for (int32_t p = 0; p < 4; ++p) {
    const int32_t pid = TimelineBuilder::kPid + p;
    pids.push_back(pid);
    Process proc;
    proc.pid = pid;
    if (p > 0) b.timeline().processes.push_back(proc);
    Device d;
    d.pid = pid;
    if (p > 0) b.timeline().devices.push_back(d);
  }
  for (int step = 0; step < 3; ++step) {
    for (int32_t p = 0; p < 4; ++p) {
      const double t = 100.0 * step + p;
      const int32_t pid = pids[p];
      const uint64_t corr =
          b.Api("cudaLaunchKernel", t, t + 1, TimelineBuilder::kTid, pid);
      b.Op(GpuOpKind::kKernel, t + 2, t + 50, corr, 7, 0, pid);
      b.Api("cudaStreamSynchronize", t + 2, t + 51, TimelineBuilder::kTid, pid);
    }
  }
  const Timeline tl = b.Take();
  absl::StatusOr<analysis::PreparedTimeline> prepared =
      analysis::PreparedTimeline::Build(tl, AnalysisOptions{});
  ASSERT_TRUE(prepared.ok()) << prepared.status();
  const ReplayCounts c = CountReplayEvents(*prepared, pids);
  EXPECT_EQ(c.processes, 4u);
  EXPECT_EQ(c.calls, 24u);
  EXPECT_EQ(c.ops, 12u);
  EXPECT_EQ(c.call_index_bytes, 4u * 6u * 8u);  // was 4 × 24 × 4
  EXPECT_EQ(c.op_index_bytes, 4u * 3u * 8u);    // was 4 × 12 × 4
}

}  // namespace
}  // namespace feedprof::replay
