// Finds and loads libcupti at run time.
//
// The search order follows what a user of a production profiler expects:
// an explicit FEEDPROF_CUPTI_PATH wins (and is the only one tried, so a
// mistake is reported instead of papered over); else the copy a framework
// already mapped into the process, so two different CUPTI builds never
// coexist; else the CUDA toolkit's this library was built against; else the
// one a Python CUDA wheel ships beside the CUDA runtime the process loaded;
// else the usual toolkit layouts under $CUDA_HOME, $CUDA_PATH and
// /usr/local/cuda (a library built on one machine and run on another finds
// that machine's toolkit); else the dynamic linker's own search path. The
// loaded library's API version must have the build's major version: record
// layouts change between majors.
#ifndef FEEDPROF_CUPTI_HOOKS_CUPTI_LOADER_H_
#define FEEDPROF_CUPTI_HOOKS_CUPTI_LOADER_H_

#include <cstddef>
#include <cstdint>

#include "cupti_hooks/cupti_api.h"

namespace feedprof::cupti {

enum class LoadStatus {
  kLoaded,
  kNotFound,         // no candidate could be dlopen'ed
  kMissingSymbol,    // a required function is absent
  kVersionMismatch,  // API major differs from the build's
};

constexpr size_t kMaxCandidatePaths = 24;
constexpr size_t kPathCapacity = 512;

// The files tried, in order, when FEEDPROF_CUPTI_PATH is not set. Returns
// how many were written to `out` (at most kMaxCandidatePaths).
size_t CuptiCandidatePaths(char (*out)[kPathCapacity], size_t max);

// True when a library reporting `loaded` can read the records of a build
// against `built` (both CUPTI_API_VERSION numbers): same major.
bool CuptiVersionCompatible(uint32_t loaded, uint32_t built);

// Loads libcupti into `api`. On failure `api` stays unloaded and `message`
// holds one sentence saying what is wrong and what to do.
LoadStatus LoadCupti(CuptiApi* api, char* message, size_t message_size);

// dlcloses and clears `api` (used by tests; the collector keeps it loaded).
void UnloadCupti(CuptiApi* api);

}  // namespace feedprof::cupti

#endif  // FEEDPROF_CUPTI_HOOKS_CUPTI_LOADER_H_
