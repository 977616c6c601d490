#include "nsight/nsight_enums.h"

#include "common/ascii_match.h"

namespace feedprof::nsight {

using common::ContainsIgnoreCase;

GlobalThreadId DecodeGlobalId(int64_t global_id) {
  const auto id = static_cast<uint64_t>(global_id);
  return {static_cast<int32_t>((id >> 24) & 0xFFFFFF),
          static_cast<int32_t>(id & 0xFFFFFF)};
}

ApiDomain ApiDomainFor(std::string_view stripped_name,
                       std::optional<int64_t> event_class) {
  if (event_class == kEventClassCudaRuntime) return ApiDomain::kRuntime;
  if (event_class == kEventClassCudaDriver) return ApiDomain::kDriver;
  if (stripped_name.starts_with("cuda")) return ApiDomain::kRuntime;
  if (stripped_name.starts_with("cu")) return ApiDomain::kDriver;
  return ApiDomain::kUnknown;
}

MemoryKind MemoryKindFromNsys(std::optional<int64_t> nsys_kind) {
  if (!nsys_kind.has_value() || *nsys_kind < 0 || *nsys_kind > 6) {
    return MemoryKind::kUnknown;  // includes nsys 7 = "Unknown"
  }
  return static_cast<MemoryKind>(*nsys_kind + 1);
}

CopyKind CopyKindFromNsys(std::optional<int64_t> nsys_kind) {
  if (!nsys_kind.has_value()) return CopyKind::kUnknown;
  const int64_t k = *nsys_kind;
  if (k >= 0 && k <= 10) return static_cast<CopyKind>(k);
  switch (k) {
    case 11:
      return CopyKind::kHtoD;
    case 12:
      return CopyKind::kDtoH;
    case 13:
      return CopyKind::kDtoD;
    default:
      return CopyKind::kUnknown;
  }
}

SyncType SyncTypeFromApiName(std::string_view name) {
  if (name == "cudaStreamSynchronize" || name == "cuStreamSynchronize" ||
      name == "cudaStreamQuery" || name == "cuStreamQuery") {
    return SyncType::kStreamSynchronize;
  }
  if (name == "cudaEventSynchronize" || name == "cuEventSynchronize" ||
      name == "cudaEventQuery" || name == "cuEventQuery") {
    return SyncType::kEventSynchronize;
  }
  if (name == "cudaDeviceSynchronize" || name == "cudaThreadSynchronize" ||
      name == "cuCtxSynchronize") {
    return SyncType::kContextSynchronize;
  }
  if (name == "cudaStreamWaitEvent" || name == "cuStreamWaitEvent") {
    return SyncType::kStreamWaitEvent;
  }
  return SyncType::kUnknown;
}

SyncType SyncTypeFromEnumLabel(std::string_view label) {
  if (ContainsIgnoreCase(label, "wait")) {
    return SyncType::kStreamWaitEvent;
  }
  if (ContainsIgnoreCase(label, "stream")) {
    return SyncType::kStreamSynchronize;
  }
  if (ContainsIgnoreCase(label, "event")) {
    return SyncType::kEventSynchronize;
  }
  if (ContainsIgnoreCase(label, "context")) {
    return SyncType::kContextSynchronize;
  }
  return SyncType::kUnknown;
}

}  // namespace feedprof::nsight
