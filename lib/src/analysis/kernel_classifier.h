// Tells communication kernels from compute kernels by name.
//
// Collective libraries (NCCL, RCCL, MSCCL, NVSHMEM) run their transfers as
// kernels that spin until every rank has arrived: counted as compute, a rank
// waiting for a late peer looks busy. Their kernels are named after the
// library ("ncclDevKernel_AllReduce_RING_LL", "ncclKernel_AllGather_...",
// "rcclKernel...", "mscclKernel..."), which is what is checked, once per
// distinct name.
#ifndef FEEDPROF_ANALYSIS_KERNEL_CLASSIFIER_H_
#define FEEDPROF_ANALYSIS_KERNEL_CLASSIFIER_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "feedprof/timeline.h"

namespace feedprof::analysis {

enum class KernelKind : uint8_t {
  kCompute,
  kCommunication,  // a collective or point-to-point transfer kernel
};

KernelKind ClassifyKernelName(std::string_view name);

// ClassifyKernelName of each string of a timeline, looked up once.
class KernelKinds {
 public:
  explicit KernelKinds(const StringTable& strings) : strings_(strings) {}
  KernelKind Of(StringId name);

 private:
  const StringTable& strings_;
  std::vector<int8_t> kinds_;  // by StringId; -1: not looked up yet
};

}  // namespace feedprof::analysis

#endif  // FEEDPROF_ANALYSIS_KERNEL_CLASSIFIER_H_
