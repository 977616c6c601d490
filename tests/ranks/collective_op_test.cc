// The operation of a communication kernel, told by its name.
#include "ranks/collective_op.h"

#include <gtest/gtest.h>

namespace feedprof::ranks {
namespace {

TEST(CollectiveOpTest, OperationsByKernelName) {
  EXPECT_EQ(CollectiveOpOfKernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL("
                                 "ncclDevKernelArgsStorage<4096ul>)"),
            CollectiveOp::kAllReduce);
  EXPECT_EQ(CollectiveOpOfKernel("ncclKernel_AllGather_RING_LL_Sum_int8_t"),
            CollectiveOp::kAllGather);
  EXPECT_EQ(CollectiveOpOfKernel("ncclDevKernel_ReduceScatter_Sum_bf16_RING"),
            CollectiveOp::kReduceScatter);
  EXPECT_EQ(CollectiveOpOfKernel("ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t"),
            CollectiveOp::kSendRecv);
  EXPECT_EQ(CollectiveOpOfKernel("ncclDevKernel_Broadcast_RING_LL"),
            CollectiveOp::kBroadcast);
  EXPECT_EQ(CollectiveOpOfKernel("ncclDevKernel_Reduce_Sum_f32_RING_LL"),
            CollectiveOp::kReduce);
  EXPECT_EQ(CollectiveOpOfKernel("rcclKernel_AllToAll"),
            CollectiveOp::kAllToAll);
  EXPECT_EQ(CollectiveOpOfKernel("nvshmemi_proxy_kernel"),
            CollectiveOp::kOther);
  EXPECT_STREQ(CollectiveOpName(CollectiveOp::kAllReduce), "all_reduce");
}

}  // namespace
}  // namespace feedprof::ranks
