// Communication kernels (NCCL and the like) counted apart from compute:
// their union, the part no other kernel overlaps, and busy time unchanged
// (docs/metrics.md).
#include <gtest/gtest.h>

#include <string>

#include "analysis/kernel_classifier.h"
#include "feedprof/analysis.h"
#include "feedprof/report.h"
#include "tests/analysis/must_analyze.h"
#include "tests/analysis/timeline_builder.h"

namespace feedprof {
namespace {

using analysis::ClassifyKernelName;
using analysis::KernelKind;
using testing::MustAnalyze;
using testing::TimelineBuilder;
using testing::Us;

TEST(KernelClassifierTest, CollectiveLibrariesByName) {
  for (const char* name :
       {"ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<"
        "4096ul>)",
        "ncclKernel_AllGather_RING_LL_Sum_int8_t(ncclWorkElem)",
        "void ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*)",
        "rcclKernel_AllReduce", "mscclKernel_Sum_float_LL",
        "nvshmemi_proxy_kernel", "NCCLKernelCustom"}) {
    EXPECT_EQ(ClassifyKernelName(name), KernelKind::kCommunication) << name;
  }
  for (const char* name :
       {"ampere_sgemm_128x64_nn",
        "void at::native::vectorized_elementwise_kernel", "Memcpy HtoD",
        "volta_scudnn_winograd_128x128", ""}) {
    EXPECT_EQ(ClassifyKernelName(name), KernelKind::kCompute) << name;
  }
}

TEST(CommunicationTest, ExposedAndOverlappedCommunication) {
  TimelineBuilder b;
  // Compute 0-100 µs on stream 7; an all-reduce 50-200 µs on stream 8
  // (50 µs under compute, 100 µs alone); compute again 150-170 µs, under
  // the all-reduce; a second all-reduce 300-340 µs alone.
  b.Launch(0, 1, 0, 100, /*stream=*/7);
  GpuOp& all_reduce = b.Launch(1, 2, 50, 200, /*stream=*/8);
  all_reduce.name = b.timeline().strings.Intern(
      "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage)");
  b.Launch(2, 3, 150, 170, /*stream=*/7);
  GpuOp& second = b.Launch(3, 4, 300, 340, /*stream=*/8);
  second.name = all_reduce.name;
  const Report r = MustAnalyze(b.timeline());
  ASSERT_EQ(r.devices.size(), 1u);
  const DeviceReport& d = r.devices[0];
  // Busy and compute as before: every kernel counts.
  EXPECT_EQ(d.busy_ns, Us(240));
  EXPECT_EQ(d.compute_ns, Us(240));
  EXPECT_EQ(d.kernel_count, 4u);
  EXPECT_EQ(d.communication_kernel_count, 2u);
  EXPECT_EQ(d.communication_ns, Us(190));
  // Other kernels cover 0-100 and 150-170: 120 µs; the rest is exposed.
  EXPECT_EQ(d.exposed_communication_ns, Us(120));
}

TEST(CommunicationTest, NoCommunicationKernelsNoCommunicationTime) {
  TimelineBuilder b;
  b.Launch(0, 1, 0, 100);
  const Report r = MustAnalyze(b.timeline());
  ASSERT_EQ(r.devices.size(), 1u);
  EXPECT_EQ(r.devices[0].communication_ns, 0);
  EXPECT_EQ(r.devices[0].exposed_communication_ns, 0);
  EXPECT_EQ(r.devices[0].communication_kernel_count, 0u);
}

// Two ranks, each with one compute kernel and one all-reduce; rank 1
// arrives late, so rank 0 spends longer in communication.
Timeline TwoRanks() {
  TimelineBuilder b;
  Timeline& t = b.timeline();
  t.processes[0].rank = 0;
  Process second = t.processes[0];
  second.pid = TimelineBuilder::kPid + 1;
  second.rank = 1;
  t.processes.push_back(second);
  Device device = t.devices[0];
  device.pid = second.pid;
  t.devices.push_back(device);
  const StringId all_reduce =
      t.strings.Intern("ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)");
  for (int rank = 0; rank < 2; ++rank) {
    const int32_t pid = TimelineBuilder::kPid + rank;
    const double late = rank == 1 ? 300 : 0;
    uint64_t corr =
        b.Api("cudaLaunchKernel", late, late + 1, TimelineBuilder::kTid, pid);
    b.Op(GpuOpKind::kKernel, late + 5, late + 105, corr, 7, 0, pid);
    corr = b.Api("cudaLaunchKernel", late + 2, late + 3, TimelineBuilder::kTid,
                 pid);
    // The all-reduce ends at 500 µs on both ranks.
    b.Op(GpuOpKind::kKernel, late + 105, 500, corr, 13, 0, pid).name =
        all_reduce;
  }
  return b.Take();
}

TEST(CommunicationTest, RanksSumTheirDevicesCommunication) {
  const Report r = MustAnalyze(TwoRanks());
  ASSERT_EQ(r.ranks.size(), 2u);
  EXPECT_EQ(r.ranks[0].rank, 0);
  EXPECT_EQ(r.ranks[0].communication_ns, Us(395));
  EXPECT_EQ(r.ranks[0].exposed_communication_ns, Us(395));
  EXPECT_EQ(r.ranks[1].communication_ns, Us(95));
  EXPECT_EQ(r.ranks[1].exposed_communication_ns, Us(95));
  const std::string html = WriteHtmlReport(r);
  EXPECT_NE(html.find("<th>exposed communication</th>"), std::string::npos);
  EXPECT_NE(html.find("<th>of it communication</th>"), std::string::npos);
  const std::string text = WriteTextReport(r, TextReportOptions{});
  EXPECT_NE(text.find("communication 395 µs (exposed 395 µs)"),
            std::string::npos)
      << text;
}

TEST(CommunicationTest, NoCommunicationColumnsWithoutCollectives) {
  TimelineBuilder b;
  b.Launch(0, 1, 0, 100);
  const std::string html = WriteHtmlReport(MustAnalyze(b.timeline()));
  EXPECT_EQ(html.find("communication</th>"), std::string::npos);
}

}  // namespace
}  // namespace feedprof
