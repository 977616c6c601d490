// The real pair of the shared traces: the same 2-GPU training job before
// and after an optimization (Nsight Systems). The comparison's figures
// must be the analysis' figures of each side, divided by the same divisor.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "feedprof/compare.h"
#include "feedprof/diff_report.h"
#include "feedprof/trace_loader.h"
#include "tests/analysis/must_analyze.h"

namespace feedprof {
namespace {

const std::string kDir = std::string(FEEDPROF_SHARED_TRACES_DIR) + "/nsys_ai";

class RealPairTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists(kDir + "/mfu_2gpu_before.sqlite")) {
      GTEST_SKIP() << "shared trace " << kDir
                   << "/mfu_2gpu_before.sqlite not found";
    }
  }
  static Timeline Load(const char* name) {
    absl::StatusOr<Timeline> t = LoadTrace(kDir + "/" + name);
    EXPECT_TRUE(t.ok()) << t.status();
    return t.ok() ? *std::move(t) : Timeline{};
  }
};

TEST_F(RealPairTest, FiguresAgreeWithTheAnalysisOfEachSide) {
  const Timeline before = Load("mfu_2gpu_before.sqlite");
  const Timeline after = Load("mfu_2gpu_after.sqlite");
  const CompareOptions options;
  absl::StatusOr<AnalyzedRun> b = AnalyzeForComparison(before, options);
  absl::StatusOr<AnalyzedRun> a = AnalyzeForComparison(after, options);
  ASSERT_TRUE(b.ok() && a.ok());
  const Report rb = testing::MustAnalyze(before);
  const Report ra = testing::MustAnalyze(after);
  const Comparison c = Compare(*b, *a, options);

  // No steps in either trace: per second of the analysed window.
  EXPECT_EQ(c.unit, "second");
  EXPECT_FALSE(c.step_time.available);
  EXPECT_FALSE(c.step_time.noise.judged);
  EXPECT_EQ(c.before.window_ns, 299'986'072);
  EXPECT_EQ(c.after.window_ns, 299'272'477);
  const double sb = c.before.divisor, sa = c.after.divisor;
  EXPECT_DOUBLE_EQ(sb, 0.299986072);

  // Kernels 3986 -> 3577, launch calls 4006 -> 3580, copies 1015 -> 900
  // (the analysis' counts: work launched before recording is excluded).
  EXPECT_EQ(rb.launch.kernels, 3986u);
  EXPECT_EQ(ra.launch.kernels, 3577u);
  EXPECT_NEAR(c.launch.kernels_per_unit.before * sb, 3986, 1e-6);
  EXPECT_NEAR(c.launch.kernels_per_unit.after * sa, 3577, 1e-6);
  EXPECT_NEAR(c.launch.launches_per_unit.before * sb, 4006, 1e-6);
  EXPECT_NEAR(c.launch.launches_per_unit.after * sa, 3580, 1e-6);
  EXPECT_EQ(rb.copies.count, 1015u);
  EXPECT_EQ(ra.copies.count, 900u);
  EXPECT_NEAR(c.copies.count_per_unit.before * sb, 1015, 1e-6);
  EXPECT_NEAR(c.copies.count_per_unit.after * sa, 900, 1e-6);
  EXPECT_NEAR(c.copies.bytes_per_unit.before * sb,
              static_cast<double>(rb.copies.bytes), 1);

  // Every kernel name's total: the counts add up to the analysis' kernels,
  // and the top five are the report's top kernels.
  uint64_t counted = 0;
  for (const KernelTotal& k : b->kernels) counted += k.count;
  EXPECT_EQ(counted, rb.launch.kernels);
  ASSERT_GE(b->kernels.size(), rb.launch.top_kernels.size());
  for (size_t i = 0; i < rb.launch.top_kernels.size(); ++i) {
    EXPECT_EQ(b->kernels[i].name, rb.launch.top_kernels[i].name);
    EXPECT_EQ(b->kernels[i].total_ns, rb.launch.top_kernels[i].total_ns);
  }
  EXPECT_EQ(c.kernels.names_before, 27u);
  EXPECT_EQ(c.kernels.names_after, 27u);
  ASSERT_FALSE(c.kernels.losses.empty());
  EXPECT_EQ(c.kernels.losses[0].name.rfind("void flash::flash_fwd_kernel", 0),
            0u);
  ASSERT_FALSE(c.kernels.gains.empty());
  EXPECT_EQ(c.kernels.gains[0].name.rfind("ncclDevKernel_SendRecv(", 0), 0u);

  // GPU busy 90.1% -> 82.6% of the summed span of the 2 devices.
  EXPECT_NEAR(c.step_time.gpu_busy_share.before, 0.901, 0.0005);
  EXPECT_NEAR(c.step_time.gpu_busy_share.after, 0.826, 0.0005);
  EXPECT_EQ(c.devices.size(), 2u);
  EXPECT_EQ(c.ranks.size(), 2u);
  EXPECT_EQ(c.verdict.before_primary, VerdictClass::kGpuBound);
  EXPECT_EQ(c.verdict.after_primary, VerdictClass::kGpuBound);
  EXPECT_EQ(c.verdict.after_runner_up, VerdictClass::kLaunchBound);
  EXPECT_TRUE(c.comparable);
  const IdleCauseChange& top =
      c.idle.causes[static_cast<size_t>(c.idle.largest.front())];
  EXPECT_EQ(top.cause, IdleCause::kHostWaitUnknown);
  EXPECT_NEAR(top.per_unit_ns.before * sb,
              static_cast<double>(
                  rb.devices[0].idle_by_cause[IdleCause::kHostWaitUnknown] +
                  rb.devices[1].idle_by_cause[IdleCause::kHostWaitUnknown]),
              1);
  EXPECT_EQ(c.headline,
            "host wait (no CPU samples) rose from 126 ms to 217 ms per "
            "second; GPU busy 90.1% -> 82.6% (no steps: significance cannot "
            "be judged: the runs do not both have steps)");
  // The sync point matched across runs: cudaStreamSynchronize 33 -> 30.
  bool matched = false;
  for (const SyncPointChange& s : c.syncs.points) {
    if (s.api != "cudaStreamSynchronize") continue;
    matched = true;
    EXPECT_EQ(s.presence, Presence::kBoth);
    EXPECT_NEAR(s.count_per_unit.before * sb, 33, 1e-6);
    EXPECT_NEAR(s.count_per_unit.after * sa, 30, 1e-6);
  }
  EXPECT_TRUE(matched);
}

}  // namespace
}  // namespace feedprof
