#include "analysis/kernel_classifier.h"

#include <cctype>

namespace feedprof::analysis {
namespace {

// Whether `name` contains `part`, ignoring ASCII case.
bool ContainsNoCase(std::string_view name, std::string_view part) {
  if (part.size() > name.size()) return false;
  for (size_t i = 0; i + part.size() <= name.size(); ++i) {
    size_t k = 0;
    while (k < part.size() &&
           std::tolower(static_cast<unsigned char>(name[i + k])) == part[k]) {
      ++k;
    }
    if (k == part.size()) return true;
  }
  return false;
}

}  // namespace

KernelKind ClassifyKernelName(std::string_view name) {
  for (std::string_view library : {"nccl", "rccl", "msccl", "nvshmem"}) {
    if (ContainsNoCase(name, library)) return KernelKind::kCommunication;
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
