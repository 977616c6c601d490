// Classifies CUDA runtime/driver API calls by name.
//
// Exporters disagree on sync-type fields and on version suffixes, so every
// decision about what an API call does (launch, copy, synchronize, allocate)
// is taken from its name alone, once per distinct name (the StringTable is
// small next to the event count). docs/metrics.md lists which calls block the
// host.
#ifndef FEEDPROF_ANALYSIS_API_CLASSIFIER_H_
#define FEEDPROF_ANALYSIS_API_CLASSIFIER_H_

#include <cstdint>
#include <string_view>

#include "feedprof/analysis_report.h"

namespace feedprof::analysis {

enum class ApiClass : uint8_t {
  kOther,
  kKernelLaunch,     // cudaLaunchKernel, cuLaunchKernel, ...
  kGraphLaunch,      // cudaGraphLaunch, cuGraphLaunch
  kMemcpySync,       // cudaMemcpy, cudaMemcpy2D, cuMemcpyDtoH, ...
  kMemcpyAsync,      // cudaMemcpyAsync, cuMemcpyHtoDAsync, ...
  kMemsetSync,       // cudaMemset, cuMemsetD8, ...
  kMemsetAsync,      // cudaMemsetAsync, ...
  kExplicitSync,     // cudaDeviceSynchronize, cuStreamSynchronize, ...
  kAlloc,            // cudaMalloc, cudaFree, cudaHostAlloc, cudaFreeHost, ...
  kDeviceSetting,    // cudaDeviceSetLimit, cuCtxSetLimit
  kStreamWaitEvent,  // GPU-side wait: not a host block
  kEventQuery,       // non-blocking poll
};

ApiClass ClassifyApiName(std::string_view name);

// Why a call blocked the host; kNone for calls that do not. One reason is
// device-side: kLegacyDefaultStream marks work issued to the legacy default
// (NULL) stream while other blocking streams of its context had work, which
// serializes the GPU rather than the host (sync_points.cc).
enum class SyncReason : uint8_t {
  kNone,
  kExplicit,
  kSynchronousCopy,
  kPageableAsyncCopy,
  kSteadyStateAlloc,
  kSynchronousMemset,
  kDeviceSetting,
  kLegacyDefaultStream,
};
const char* SyncReasonText(SyncReason reason);
SyncKind SyncKindOf(SyncReason reason);

// Whether a copy moves data from pageable host memory to the device or from
// the device to pageable host memory: such copies are staged by the driver
// (and their async calls block), pinned ones are not.
bool IsPageableHostCopy(const GpuOp& op);

// Whether a kernel-launch class call (kernels and graphs).
inline bool IsLaunch(ApiClass c) {
  return c == ApiClass::kKernelLaunch || c == ApiClass::kGraphLaunch;
}

}  // namespace feedprof::analysis

#endif  // FEEDPROF_ANALYSIS_API_CLASSIFIER_H_
