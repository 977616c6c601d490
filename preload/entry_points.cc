// The exported entry points of libfeedprof.so (see exports.map). Everything
// else in the library is hidden.
#include <stdlib.h>
#include <unistd.h>

#include "preload/lifecycle.h"
#include "preload/recorder.h"

#define FEEDPROF_EXPORT extern "C" __attribute__((visibility("default")))

// Runs when the library is loaded: by LD_PRELOAD before main, or by the
// CUDA driver's dlopen when only CUDA_INJECTION64_PATH names it.
__attribute__((constructor)) static void FeedprofOnLoad() {
  feedprof::preload::OnLibraryLoad();
}

// CUDA injection entry point: the driver calls it at cuInit when
// CUDA_INJECTION64_PATH names this library.
FEEDPROF_EXPORT int InitializeInjection(void) {
  return feedprof::preload::OnCudaInjection();
}

// Lets a program write what was recorded so far (e.g. before a long
// checkpoint), waiting up to `timeout_ms`.
FEEDPROF_EXPORT void feedprof_flush(int timeout_ms) {
  feedprof::preload::FlushNow(timeout_ms);
}

// _exit and _Exit skip exit handlers (Python's os._exit in multiprocessing
// and DataLoader workers, dash, a child whose exec failed): the trace is
// finished here with a bounded wait, then the C library's function ends
// the process with the same status. A vfork child passes straight through.
FEEDPROF_EXPORT void _exit(int status) {
  feedprof::preload::EndProcessNow(
      feedprof::preload::ImmediateExit::kUnderscoreExit, status);
}

FEEDPROF_EXPORT void _Exit(int status) noexcept {
  feedprof::preload::EndProcessNow(feedprof::preload::ImmediateExit::kUpperExit,
                                   status);
}
