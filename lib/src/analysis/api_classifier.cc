// Name-based classification of CUDA API calls (see api_classifier.h).
#include "analysis/api_classifier.h"

#include <string_view>

#include "timeline/cuda_names.h"

namespace feedprof::analysis {
namespace {

// Drops nsys/CUPTI decorations: version suffixes ("_v7000", stripped as every
// reader strips them) and the per-thread default stream variants
// ("_ptsz", "_ptds"), in whichever order they were appended.
std::string_view BaseName(std::string_view name) {
  for (size_t before = 0; before != name.size();) {
    before = name.size();
    name = timeline::StripVersionSuffix(name);
    for (std::string_view suffix : {"_ptsz", "_ptds"}) {
      if (name.size() > suffix.size() && name.ends_with(suffix)) {
        name.remove_suffix(suffix.size());
      }
    }
  }
  return name;
}

bool Contains(std::string_view s, std::string_view part) {
  return s.find(part) != std::string_view::npos;
}

}  // namespace

ApiClass ClassifyApiName(std::string_view raw) {
  const std::string_view name = BaseName(raw);
  if (!name.starts_with("cu")) return ApiClass::kOther;
  if (name == "cudaEventQuery" || name == "cuEventQuery" ||
      name == "cudaStreamQuery" || name == "cuStreamQuery") {
    return ApiClass::kEventQuery;
  }
  if (name == "cudaStreamWaitEvent" || name == "cuStreamWaitEvent") {
    return ApiClass::kStreamWaitEvent;
  }
  if (name == "cudaDeviceSynchronize" || name == "cudaStreamSynchronize" ||
      name == "cudaEventSynchronize" || name == "cudaThreadSynchronize" ||
      name == "cuCtxSynchronize" || name == "cuStreamSynchronize" ||
      name == "cuEventSynchronize") {
    return ApiClass::kExplicitSync;
  }
  if (name == "cudaGraphLaunch" || name == "cuGraphLaunch") {
    return ApiClass::kGraphLaunch;
  }
  if (Contains(name, "Launch") &&
      (Contains(name, "Kernel") || name == "cuLaunch" ||
       name == "cuLaunchGrid" || name == "cuLaunchGridAsync" ||
       name == "cudaLaunch")) {
    return ApiClass::kKernelLaunch;
  }
  const bool async = name.ends_with("Async");
  if (name.starts_with("cudaMemcpy") || name.starts_with("cuMemcpy")) {
    return async ? ApiClass::kMemcpyAsync : ApiClass::kMemcpySync;
  }
  if (name.starts_with("cudaMemset") || name.starts_with("cuMemset")) {
    return async ? ApiClass::kMemsetAsync : ApiClass::kMemsetSync;
  }
  if (name == "cudaMalloc" || name == "cudaFree" || name == "cudaHostAlloc" ||
      name == "cudaMallocHost" || name == "cudaFreeHost" ||
      name == "cudaMallocPitch" || name == "cudaMalloc3D" ||
      name == "cudaMallocManaged" || name == "cuMemAlloc" ||
      name == "cuMemFree" || name == "cuMemHostAlloc" ||
      name == "cuMemAllocHost" || name == "cuMemFreeHost" ||
      name == "cuMemAllocPitch" || name == "cuMemAllocManaged") {
    return ApiClass::kAlloc;
  }
  if (name == "cudaDeviceSetLimit" || name == "cuCtxSetLimit") {
    return ApiClass::kDeviceSetting;
  }
  return ApiClass::kOther;
}

const char* SyncReasonText(SyncReason reason) {
  switch (reason) {
    case SyncReason::kNone:
      return "";
    case SyncReason::kExplicit:
      return "explicit synchronization";
    case SyncReason::kSynchronousCopy:
      return "synchronous copy";
    case SyncReason::kPageableAsyncCopy:
      return "async copy with pageable host memory";
    case SyncReason::kSteadyStateAlloc:
      return "allocation or free after GPU work started";
    case SyncReason::kSynchronousMemset:
      return "synchronous memset on pinned or managed memory";
    case SyncReason::kDeviceSetting:
      return "device-wide setting";
    case SyncReason::kLegacyDefaultStream:
      return "legacy default stream";
  }
  return "";
}

SyncKind SyncKindOf(SyncReason reason) {
  return reason == SyncReason::kExplicit ? SyncKind::kExplicit
                                         : SyncKind::kHidden;
}

bool IsPageableHostCopy(const GpuOp& op) {
  return op.kind == GpuOpKind::kMemcpy &&
         ((op.copy_kind == CopyKind::kHtoD &&
           op.src_kind == MemoryKind::kPageable) ||
          (op.copy_kind == CopyKind::kDtoH &&
           op.dst_kind == MemoryKind::kPageable));
}

}  // namespace feedprof::analysis
