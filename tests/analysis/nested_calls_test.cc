// Runtime calls with the driver calls they make (CUPTI and Nsight record
// both on the same thread), and graph launches that run many kernels from
// one call: each must count once, and GPU ops must join the runtime call.
#include <gtest/gtest.h>

#include <string_view>

#include "analysis/prepared_timeline.h"
#include "feedprof/analysis.h"
#include "tests/analysis/must_analyze.h"
#include "tests/analysis/timeline_builder.h"

namespace feedprof {
namespace {

using testing::MustAnalyze;
using testing::TimelineBuilder;
using testing::Us;

// A driver call nested in the runtime call with correlation `corr`.
void Driver(TimelineBuilder& b, std::string_view name, double start_us,
            double end_us, uint64_t corr) {
  b.Api(name, start_us, end_us);
  ApiCall& c = b.timeline().api_calls.back();
  c.domain = ApiDomain::kDriver;
  c.correlation = corr;
}

// The report has one sync point: `api`, called once, blocked `blocked`.
void ExpectOneSyncPoint(const Report& r, std::string_view api, TimeNs blocked) {
  ASSERT_EQ(r.sync_points.size(), 1u);
  EXPECT_EQ(r.sync_points[0].api, api);
  EXPECT_EQ(r.sync_points[0].count, 1u);
  EXPECT_EQ(r.sync_points[0].blocked_ns, blocked);
}

TEST(AnalysisNestedCallsTest, DriverSyncInsideRuntimeSyncIsOneSyncPoint) {
  TimelineBuilder b;
  b.Launch(0, 5, 6, 40);
  b.Api("cudaStreamSynchronize", 5, 45);
  Driver(b, "cuStreamSynchronize", 6, 44, /*corr=*/0);
  b.Launch(46, 50, 51, 60);
  const Report r = MustAnalyze(b.timeline());
  ExpectOneSyncPoint(r, "cudaStreamSynchronize", Us(40));
  EXPECT_EQ(r.host.sync_blocked_ns, Us(40));
  EXPECT_EQ(r.host.cuda_api_ns, Us(5 + 40 + 4));
}

// A call that does not block by its name, with a blocking driver call in
// it: the sync point is the outer call's time, named by the nested call.
TEST(AnalysisNestedCallsTest, DriverSyncInsideANonBlockingCallNamesTheSync) {
  TimelineBuilder b;
  b.Launch(0, 5, 6, 40);
  b.Api("cudaEventQuery", 5, 45);
  Driver(b, "cuCtxSynchronize", 6, 44, /*corr=*/0);
  b.Launch(46, 50, 51, 60);
  b.Api("cudaEventQuery", 61, 62);  // no sync inside: not a sync point
  const Report r = MustAnalyze(b.timeline());
  ExpectOneSyncPoint(r, "cuCtxSynchronize", Us(40));
  EXPECT_EQ(r.host.sync_blocked_ns, Us(40));
}

TEST(AnalysisNestedCallsTest, OpsJoinTheRuntimeCallOverTheDriverCall) {
  TimelineBuilder b;
  // The driver call is listed first and starts with the runtime call, as
  // exporters write records that start in the same nanosecond.
  b.Api("cuMemcpyHtoDAsync", 0, 30);
  ApiCall& driver = b.timeline().api_calls.back();
  driver.domain = ApiDomain::kDriver;
  const uint64_t corr = driver.correlation;
  b.Api("cudaMemcpyAsync", 0, 30);
  b.timeline().api_calls.back().correlation = corr;
  GpuOp& copy = b.Op(GpuOpKind::kMemcpy, 5, 25, corr);
  copy.copy_kind = CopyKind::kHtoD;
  copy.bytes = 1 << 20;
  copy.src_kind = MemoryKind::kPageable;
  copy.dst_kind = MemoryKind::kDevice;
  b.Launch(31, 35, 36, 50);
  ExpectOneSyncPoint(MustAnalyze(b.timeline()), "cudaMemcpyAsync", Us(30));
}

TEST(AnalysisNestedCallsTest, DriverLaunchInsideRuntimeLaunchCountsOnce) {
  TimelineBuilder b;
  for (int i = 0; i < 4; ++i) {
    const double t = 20.0 * i;
    const uint64_t corr = b.Api("cudaLaunchKernel", t, t + 10);
    Driver(b, "cuLaunchKernel", t + 1, t + 9, corr);
    b.Op(GpuOpKind::kKernel, t + 12, t + 18, corr);
  }
  const Report r = MustAnalyze(b.timeline());
  EXPECT_EQ(r.launch.count, 4u);
  EXPECT_EQ(r.launch.kernels, 4u);
  EXPECT_EQ(r.launch.median_api_ns, Us(10));
  EXPECT_EQ(r.launch.median_launch_delay_ns, Us(12));  // from the runtime call
  EXPECT_EQ(r.host.cuda_api_ns, Us(40));
}

// The view keeps one 24-byte entry per top-level call.
static_assert(sizeof(analysis::ThreadCall) == 24);

TEST(AnalysisGraphLaunchTest, OneCallForManyKernels) {
  TimelineBuilder b;
  b.Launch(0, 4, 5, 10);
  // The graph launch call is still returning while its kernels run.
  const uint64_t corr = b.Api("cudaGraphLaunch", 10, 70);
  b.Op(GpuOpKind::kKernel, 25, 30, corr);
  b.Op(GpuOpKind::kKernel, 40, 50, corr);  // 10 µs gap inside the graph
  b.Op(GpuOpKind::kKernel, 60, 65, corr);  // 10 µs gap inside the graph
  const Report r = MustAnalyze(b.timeline());
  EXPECT_EQ(r.launch.count, 2u);
  EXPECT_EQ(r.launch.graph_launches, 1u);
  EXPECT_EQ(r.launch.graph_kernels, 3u);
  EXPECT_EQ(r.launch.kernels, 4u);
  EXPECT_EQ(r.launch.median_api_ns, Us(4));  // kernel launches only
  EXPECT_EQ(r.launch.median_graph_launch_api_ns, Us(60));
  // Launch delays: the plain kernel (5 µs) and the graph's first (15 µs).
  EXPECT_EQ(r.launch.max_launch_delay_ns, Us(15));
  absl::StatusOr<std::vector<KernelLaunchDelay>> delays =
      ComputeLaunchDelays(b.timeline(), {});
  ASSERT_TRUE(delays.ok());
  EXPECT_EQ(delays->size(), 2u);
  // Gap [10, 25]: the graph launch was in flight → launch overhead. Gaps
  // inside the graph wait on the GPU side → queue latency, not launch
  // overhead.
  const IdleByCause& idle = r.devices[0].idle_by_cause;
  EXPECT_EQ(idle[IdleCause::kLaunchOverhead], Us(15));
  EXPECT_EQ(idle[IdleCause::kQueueLatency], Us(20));
}

}  // namespace
}  // namespace feedprof
