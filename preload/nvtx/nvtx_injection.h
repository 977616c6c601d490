// libfeedprof.so as an NVTX v3 injection.
//
// NVTX is header-only: every library or program that uses it carries its
// own NVTX instance, and on its first NVTX call that instance loads the
// library named by NVTX_INJECTION64_PATH and calls its
// InitializeInjectionNvtx2 with a way to reach the instance's tables of
// function pointers. We fill those tables with our handlers, so from then on
// each NVTX call of that instance is one indirect call into this library.
// Several instances (the program, a shim library, a framework) may each
// initialize us; they share all state here.
//
// Supported (see docs/nvtx.md): push/pop and start/end ranges, marks, in the
// default domain and in named domains, ASCII, wide and registered-string
// messages, colors, categories and their names, payloads, and OS thread
// names. Everything else NVTX offers stays a no-op.
#ifndef FEEDPROF_PRELOAD_NVTX_NVTX_INJECTION_H_
#define FEEDPROF_PRELOAD_NVTX_NVTX_INJECTION_H_

#include <cstdint>

#include "preload/nvtx/nvtx_api.h"

extern "C" {
// Called by an NVTX instance on its first use. Returns 1 when our handlers
// are installed, 0 (NVTX then turns every call into a no-op) when recording
// is off or the instance is unusable.
__attribute__((visibility("default"))) int InitializeInjectionNvtx2(
    NvtxGetExportTableFunc_t get_export_table);
}

namespace feedprof::preload::nvtx {

// What the injection could not record, since the process began.
struct NvtxDropCounts {
  uint64_t pushes_past_max_depth = 0;  // nested deeper than the stack holds
  uint64_t start_end_table_full = 0;   // too many open start/end ranges
  uint64_t unmatched_pops = 0;         // pop with no open range
};

NvtxDropCounts GetNvtxDropCounts();

}  // namespace feedprof::preload::nvtx

#endif  // FEEDPROF_PRELOAD_NVTX_NVTX_INJECTION_H_
