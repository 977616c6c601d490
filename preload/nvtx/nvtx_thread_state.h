// What a thread keeps between its NVTX calls: the open push/pop ranges, the
// ASCII name cache and where it probes the start/end table.
//
// This is several KiB, too much for the initial-exec TLS the recorder uses
// (a library with initial-exec TLS must fit all of its TLS into the static
// TLS surplus when it is dlopen'ed, which holds only a few hundred bytes).
// So each thread has one initial-exec pointer, and the state itself is
// mapped on the thread's first NVTX call and unmapped when it exits. The
// hot path pays one TLS load and a null check.
#ifndef FEEDPROF_PRELOAD_NVTX_NVTX_THREAD_STATE_H_
#define FEEDPROF_PRELOAD_NVTX_NVTX_THREAD_STATE_H_

#include <cstdint>

#include "preload/nvtx/nvtx_range_stack.h"
#include "preload/nvtx/nvtx_strings.h"

namespace feedprof::preload::nvtx {

struct ThreadNvtxState {
  uint32_t start_end_hint;  // where this thread probes the start/end table
  RangeStack stack;
  NameCache names;
};

extern constinit thread_local ThreadNvtxState* t_nvtx_state
    __attribute__((tls_model("initial-exec")));

// Maps the calling thread's state; nullptr when memory is short.
ThreadNvtxState* CreateThreadNvtxState();

// The calling thread's state, created on first use; nullptr when it cannot
// be created (the NVTX call is then not recorded).
inline ThreadNvtxState* CurrentThreadNvtxState() {
  ThreadNvtxState* state = t_nvtx_state;
  if (state == nullptr) [[unlikely]] {
    state = CreateThreadNvtxState();
  }
  return state;
}

}  // namespace feedprof::preload::nvtx

#endif  // FEEDPROF_PRELOAD_NVTX_NVTX_THREAD_STATE_H_
