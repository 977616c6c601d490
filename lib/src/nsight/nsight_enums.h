// Translations from Nsight Systems export values to the timeline model.
//
// nsys stores several values differently from CUPTI, and differently from
// one version to the next: memory kinds are numbered one lower than CUPTI's,
// API names carry a version suffix (`cudaLaunchKernel_v7000`), thread and
// process ids are packed into one 64-bit "global id", and the sync-type
// column has been renumbered between releases. Each translation lives here,
// as a pure function, so it can be tested on its own.
#ifndef FEEDPROF_LIB_SRC_NSIGHT_NSIGHT_ENUMS_H_
#define FEEDPROF_LIB_SRC_NSIGHT_NSIGHT_ENUMS_H_

#include <cstdint>
#include <optional>
#include <string_view>

#include "feedprof/timeline.h"
#include "timeline/cuda_names.h"

namespace feedprof::nsight {

// nsys serializes (host/vm, pid, tid) into one integer:
// pid = (id >> 24) & 0xFFFFFF, tid = id & 0xFFFFFF.
struct GlobalThreadId {
  int32_t pid = 0;
  int32_t tid = 0;
};
GlobalThreadId DecodeGlobalId(int64_t global_id);

// API names lose their version suffix the same way in every reader.
using timeline::HasVersionSuffix;
using timeline::StripVersionSuffix;

// nsys eventClass values of the RUNTIME/DRIVER tables (ENUM_NSYS_EVENT_CLASS).
inline constexpr int64_t kEventClassCudaRuntime = 0;
inline constexpr int64_t kEventClassCudaDriver = 1;
inline constexpr int64_t kEventClassCudaBacktrace = 67;

// Runtime or driver: by eventClass when known, else by the name (`cuda*` is
// the runtime, other `cu*` the driver).
ApiDomain ApiDomainFor(std::string_view stripped_name,
                       std::optional<int64_t> event_class);

// nsys CUDA_MEMOPR_MEMORY_KIND (0 = pageable ... 6 = managed static,
// 7 = unknown) -> CUPTI numbering used by MemoryKind (1 = pageable).
MemoryKind MemoryKindFromNsys(std::optional<int64_t> nsys_kind);

// CUDA_MEMCPY_KIND -> CopyKind. 0-10 are CUPTI's numbers; the unified-memory
// kinds 11-13 map onto their direction (HtoD, DtoH, DtoD).
CopyKind CopyKindFromNsys(std::optional<int64_t> nsys_kind);

// The kind of synchronization an API call performs, from its name (version
// suffix already removed). kUnknown for calls that are not syncs.
SyncType SyncTypeFromApiName(std::string_view stripped_name);

// Fallback when a sync record has no correlated API call: the label of the
// trace's own ENUM_CUPTI_SYNC_TYPE row ("Stream sync", ...).
SyncType SyncTypeFromEnumLabel(std::string_view label);

}  // namespace feedprof::nsight

#endif  // FEEDPROF_LIB_SRC_NSIGHT_NSIGHT_ENUMS_H_
