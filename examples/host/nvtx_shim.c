/* A tiny NVTX front end for languages that call C through an FFI.
 *
 * NVTX v3 is header-only, so a Python program cannot call it without a
 * compiled helper; this library is that helper for the example and tests
 * (examples/host/python/nvtx_threads.py loads it with ctypes). It carries
 * its own NVTX instance, which attaches to the injection named by
 * NVTX_INJECTION64_PATH on first use, like any other NVTX user. */
#include <nvtx3/nvToolsExt.h>

__attribute__((visibility("default"))) void shim_push(const char* name) {
  nvtxRangePushA(name);
}

__attribute__((visibility("default"))) void shim_pop(void) { nvtxRangePop(); }

__attribute__((visibility("default"))) void shim_mark(const char* name) {
  nvtxMarkA(name);
}
