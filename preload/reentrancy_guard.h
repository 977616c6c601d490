// Per-thread recorder state and the reentrancy guard.
//
// Anything the library calls (malloc, the C library, CUPTI, a logging
// hook) may call back into it — an NVTX range inside an allocator, a CUDA
// call from a callback. Every entry point takes a ReentrancyGuard and does
// nothing when the calling thread is already inside feedprof. The state is
// initial-exec TLS: one instruction to reach, no __tls_get_addr call.
#ifndef FEEDPROF_PRELOAD_REENTRANCY_GUARD_H_
#define FEEDPROF_PRELOAD_REENTRANCY_GUARD_H_

#include <cstdint>

namespace feedprof::preload {

struct EventChunk;

struct ThreadRecorderState {
  EventChunk* chunk;  // this thread's active chunk
  uint32_t epoch;     // recording epoch `chunk` belongs to
  uint32_t tid;       // cached gettid(); 0 = not yet read
  uint8_t in_call;    // inside feedprof on this thread
  uint8_t in_cupti;   // inside the CUPTI collector (cupti_hooks/)
  uint8_t exit_hook;  // thread-exit destructor registered
};

// constinit: no dynamic initialisation, so no TLS wrapper call on access.
extern constinit thread_local ThreadRecorderState t_recorder
    __attribute__((tls_model("initial-exec")));

// Sets one of the thread's flags for its lifetime. The recorder's own entry
// points use `in_call`; the CUPTI collector keeps its own flag so that its
// callbacks can still record through the recorder.
template <uint8_t ThreadRecorderState::*kFlag>
class BasicReentrancyGuard {
 public:
  BasicReentrancyGuard() : entered_(t_recorder.*kFlag == 0) {
    if (entered_) t_recorder.*kFlag = 1;
  }
  ~BasicReentrancyGuard() {
    if (entered_) t_recorder.*kFlag = 0;
  }
  BasicReentrancyGuard(const BasicReentrancyGuard&) = delete;
  BasicReentrancyGuard& operator=(const BasicReentrancyGuard&) = delete;

  // False when the thread was already inside: do nothing then.
  bool entered() const { return entered_; }

 private:
  bool entered_;
};

using ReentrancyGuard = BasicReentrancyGuard<&ThreadRecorderState::in_call>;

}  // namespace feedprof::preload

#endif  // FEEDPROF_PRELOAD_REENTRANCY_GUARD_H_
