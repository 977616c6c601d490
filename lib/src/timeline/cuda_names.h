// Names CUDA tools give to API calls and copies, shared by every reader.
//
// The recorder, Kineto and Nsight Systems each spell the same things: an API
// call may carry a version suffix (`cudaLaunchKernel_v7000`) and a copy is
// named after its direction (`Memcpy HtoD`). Readers normalise through these
// functions so a call or copy gets the same name whatever trace it came from.
#ifndef FEEDPROF_TIMELINE_CUDA_NAMES_H_
#define FEEDPROF_TIMELINE_CUDA_NAMES_H_

#include <string_view>

#include "feedprof/timeline.h"

namespace feedprof::timeline {

// "cudaLaunchKernel_v7000" -> "cudaLaunchKernel". Only a trailing `_v`
// followed by digits is removed, and only when a name is left before it.
std::string_view StripVersionSuffix(std::string_view name);
bool HasVersionSuffix(std::string_view name);

// "Memcpy HtoD" for kHtoD; "Memcpy" for kUnknown or a value out of range.
std::string_view CopyOpName(CopyKind kind);

// "HtoD" for kHtoD; empty for kUnknown or a value out of range.
std::string_view CopyKindLabel(CopyKind kind);

// The copy kind whose label appears in `text` ("Memcpy HtoD (Pageable ->
// Device)" -> kHtoD), or kUnknown.
CopyKind FindCopyKind(std::string_view text);

}  // namespace feedprof::timeline

#endif  // FEEDPROF_TIMELINE_CUDA_NAMES_H_
