#include "preload/nvtx/nvtx_thread_state.h"

#include <pthread.h>
#include <sys/mman.h>

namespace feedprof::preload::nvtx {

constinit thread_local ThreadNvtxState* t_nvtx_state
    __attribute__((tls_model("initial-exec"))) = nullptr;

namespace {

pthread_key_t g_exit_key;
pthread_once_t g_exit_key_once = PTHREAD_ONCE_INIT;
bool g_exit_key_ok = false;

// Runs at thread exit with the thread's state. Open ranges of the thread
// end with it, unrecorded.
void ReleaseThreadState(void* state) {
  if (t_nvtx_state == state) t_nvtx_state = nullptr;
  munmap(state, sizeof(ThreadNvtxState));
}

void CreateExitKey() {
  g_exit_key_ok = pthread_key_create(&g_exit_key, ReleaseThreadState) == 0;
}

}  // namespace

ThreadNvtxState* CreateThreadNvtxState() {
  pthread_once(&g_exit_key_once, CreateExitKey);
  if (!g_exit_key_ok) return nullptr;
  // mmap, not malloc: the program's allocator may itself use NVTX, and a
  // zero-filled mapping is an empty stack and an empty cache.
  void* memory = mmap(nullptr, sizeof(ThreadNvtxState), PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED) return nullptr;
  if (pthread_setspecific(g_exit_key, memory) != 0) {
    munmap(memory, sizeof(ThreadNvtxState));
    return nullptr;
  }
  auto* state = static_cast<ThreadNvtxState*>(memory);
  t_nvtx_state = state;
  return state;
}

}  // namespace feedprof::preload::nvtx
