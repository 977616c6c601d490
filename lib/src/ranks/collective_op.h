// Tells which operation a communication kernel performs from its name.
//
// Matching collectives across ranks needs to know that the k-th kernel of a
// rank's communication stream is the same operation as the k-th on another
// rank: an all-reduce matched with an all-gather means the matching slipped
// (a collective missing on one rank). The collective libraries name their
// kernels after the operation ("ncclDevKernel_AllReduce_Sum_f32_RING_LL",
// "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t", "rcclKernel_AllGather...").
#ifndef FEEDPROF_RANKS_COLLECTIVE_OP_H_
#define FEEDPROF_RANKS_COLLECTIVE_OP_H_

#include <string_view>

#include "feedprof/analysis_report.h"

namespace feedprof::ranks {

// kOther when the name says none of the operations.
CollectiveOp CollectiveOpOfKernel(std::string_view name);

}  // namespace feedprof::ranks

#endif  // FEEDPROF_RANKS_COLLECTIVE_OP_H_
