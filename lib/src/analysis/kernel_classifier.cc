#include "analysis/kernel_classifier.h"

#include "common/ascii_match.h"

namespace feedprof::analysis {

KernelKind ClassifyKernelName(std::string_view name) {
  for (std::string_view library : {"nccl", "rccl", "msccl", "nvshmem"}) {
    if (common::ContainsIgnoreCase(name, library))
      return KernelKind::kCommunication;
  }
  return KernelKind::kCompute;
}

KernelKind KernelKinds::Of(StringId name) {
  if (name >= kinds_.size()) kinds_.resize(name + 1, -1);
  int8_t& kind = kinds_[name];
  if (kind < 0) {
    kind = static_cast<int8_t>(ClassifyKernelName(strings_.Get(name)));
  }
  return static_cast<KernelKind>(kind);
}

}  // namespace feedprof::analysis
