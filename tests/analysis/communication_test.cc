// Communication kernels (NCCL and the like) counted apart from compute:
// their union, the part no other kernel overlaps, and busy time unchanged
// (docs/metrics.md).
#include <gtest/gtest.h>

#include <string>

#include "analysis/kernel_classifier.h"
#include "feedprof/analysis.h"
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

}  // namespace
}  // namespace feedprof
