// The shared 2-GPU Nsight Systems pair (the same training job before and
// after an optimization, two processes without ranks, NCCL send/recv on the
// compute stream): the communication counted per device, the collectives
// matched across the two processes, and which one waits for which.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "feedprof/analysis.h"
#include "feedprof/trace_loader.h"
#include "tests/analysis/must_analyze.h"

namespace feedprof {
namespace {

const std::string kDir = std::string(FEEDPROF_SHARED_TRACES_DIR) + "/nsys_ai";

Report AnalyzeShared(const char* name) {
  absl::StatusOr<Timeline> t = LoadTrace(kDir + "/" + name);
  EXPECT_TRUE(t.ok()) << t.status();
  return t.ok() ? testing::MustAnalyze(*t) : Report{};
}

class RealPairRanksTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists(kDir + "/mfu_2gpu_before.sqlite")) {
      GTEST_SKIP() << "shared trace " << kDir
                   << "/mfu_2gpu_before.sqlite not found";
    }
  }
};

TEST_F(RealPairRanksTest, BeforeTheFirstProcessWaitsForTheSecond) {
  const Report r = AnalyzeShared("mfu_2gpu_before.sqlite");
  ASSERT_EQ(r.devices.size(), 2u);
  // 32 NCCL kernels on each device (send/recv on the compute stream).
  EXPECT_EQ(r.devices[0].pid, 144);
  EXPECT_EQ(r.devices[0].communication_kernel_count, 32u);
  EXPECT_EQ(r.devices[0].communication_ns, 17'072'844);
  EXPECT_EQ(r.devices[1].communication_kernel_count, 32u);
  EXPECT_EQ(r.devices[1].communication_ns, 8'106'669);

  EXPECT_TRUE(r.collectives.available);
  EXPECT_EQ(r.collectives.matched, 32u);
  EXPECT_EQ(r.collectives.unaligned, 0u);
  EXPECT_EQ(r.collectives.unmatched, 0u);
  // Their ends lie 22 µs apart (median): one clock, nothing moved.
  EXPECT_EQ(r.collectives.median_end_spread_ns, 22'327);
  ASSERT_EQ(r.ranks.size(), 2u);
  EXPECT_EQ(r.ranks[0].pids, std::vector<int32_t>{144});
  EXPECT_EQ(r.ranks[0].clock_offset_ns, 0);
  EXPECT_EQ(r.ranks[1].clock_offset_ns, 0);
  // Pid 144 waits 10.9 ms for pid 145, which arrives last at 22 of the 32;
  // 144, with the longer step, is the victim.
  EXPECT_EQ(r.ranks[0].collective_wait_ns, 10'898'336);
  EXPECT_EQ(r.ranks[1].collective_wait_ns, 2'450'705);
  EXPECT_EQ(r.ranks[1].arrived_last, 22u);
  EXPECT_EQ(r.ranks[1].caused_wait_ns, 10'898'336);
  EXPECT_TRUE(r.ranks[1].straggler);
  EXPECT_TRUE(r.ranks[0].slowest);
  EXPECT_EQ(r.straggler.kind, StragglerKind::kSingle);
  EXPECT_TRUE(r.straggler.ranks.empty());
  EXPECT_EQ(r.straggler.pids, std::vector<int32_t>{145});
  EXPECT_EQ(r.straggler.main_op, CollectiveOp::kSendRecv);
  // The waiting is 3.8 % of pid 144's time: the kernels still decide.
  EXPECT_EQ(r.verdict.primary, VerdictClass::kGpuBound);
  EXPECT_EQ(r.verdict.basis, VerdictBasis::kRun);
  ASSERT_GE(r.verdict.evidence.size(), 2u);
  EXPECT_EQ(r.verdict.evidence[1].rfind(
                "Pid 144 waits 10.9 ms inside collectives (send_recv most) "
                "for pid 145, last at 22 of 32 collectives",
                0),
            0u)
      << r.verdict.evidence[1];
}

TEST_F(RealPairRanksTest, AfterTheSecondProcessWaitsForTheFirst) {
  const Report r = AnalyzeShared("mfu_2gpu_after.sqlite");
  EXPECT_EQ(r.collectives.matched, 30u);
  ASSERT_EQ(r.ranks.size(), 2u);
  EXPECT_EQ(r.ranks[1].pids, std::vector<int32_t>{149});
  EXPECT_EQ(r.ranks[1].collective_wait_ns, 18'197'839);
  EXPECT_EQ(r.straggler.pids, std::vector<int32_t>{148});
  // Before pid 148's late arrivals its GPU sat idle longer, most of it
  // while its launches were in flight.
  EXPECT_EQ(r.straggler.cause, VerdictClass::kLaunchBound);
  EXPECT_EQ(r.straggler.extra_idle[IdleCause::kLaunchOverhead], 10'019'624);
}

}  // namespace
}  // namespace feedprof
