#include "preload/python/finalized_interpreter.h"

#include <dlfcn.h>
#include <pthread.h>
#include <time.h>

#include <atomic>
#include <cerrno>
#include <cstring>

namespace feedprof::preload::python {
namespace {

// _PyRuntimeState of 3.10 (Include/internal/pycore_runtime.h and
// pycore_gil.h), read from 3.10.13's debug information; internal layouts
// stay the same within a minor version, and FinalizedRuntimeGilMutex
// checks them against the GIL's state before anything is written. Only
// ints and pointers precede the GIL, and within it only its condition
// variable (48 bytes in glibc on every architecture) precedes the mutex.
constexpr size_t kRuntimeInitialized = 12;      // int initialized
constexpr size_t kRuntimeFinalizing = 16;       // PyThreadState* _finalizing
constexpr size_t kRuntimeMainInterpreter = 40;  // interpreters.main
constexpr size_t kRuntimeGil = 352;             // ceval.gil
constexpr size_t kGilLastHolder = kRuntimeGil + 8;  // PyThreadState*
constexpr size_t kGilLocked = kRuntimeGil + 16;     // int
constexpr size_t kGilMutex = kRuntimeGil + 80;      // pthread_mutex_t
static_assert(sizeof(pthread_cond_t) == 48, "gil.cond ends at gil + 80");

// A daemon thread holds the mutex only for a few instructions at a time.
constexpr uint64_t kTryForNs = 5'000'000;
constexpr long kRetryPauseNs = 20'000;

using GetVersionFunction = const char* (*)();

std::atomic<uintptr_t> g_runtime{0};
std::atomic<bool> g_has_py_version{false};  // 3.11 and later
std::atomic<GetVersionFunction> g_get_version{nullptr};
std::atomic<bool> g_held{false};

uint64_t LoadWord(uintptr_t address) {
  return __atomic_load_n(reinterpret_cast<const uint64_t*>(address),
                         __ATOMIC_ACQUIRE);
}

int32_t LoadInt(uintptr_t address) {
  return __atomic_load_n(reinterpret_cast<const int32_t*>(address),
                         __ATOMIC_ACQUIRE);
}

uint64_t MonotonicNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull +
         static_cast<uint64_t>(ts.tv_nsec);
}

void LookUp() {
  void* runtime = dlsym(RTLD_DEFAULT, "_PyRuntime");
  if (runtime == nullptr) return;
  g_has_py_version.store(dlsym(RTLD_DEFAULT, "Py_Version") != nullptr);
  g_get_version.store(reinterpret_cast<GetVersionFunction>(
      dlsym(RTLD_DEFAULT, "Py_GetVersion")));
  g_runtime.store(reinterpret_cast<uintptr_t>(runtime),
                  std::memory_order_release);
}

}  // namespace

namespace internal {

bool FinalizedRuntimeGilMutex(uintptr_t runtime, const char* version,
                              pthread_mutex_t** mutex) {
  *mutex = nullptr;
  if (runtime == 0 || version == nullptr ||
      std::strncmp(version, "3.10.", 5) != 0) {
    return false;
  }
  // Py_FinalizeEx has completed: the runtime is marked finalizing by the
  // thread that finalized it, and the main interpreter is gone.
  const uint64_t finalizing = LoadWord(runtime + kRuntimeFinalizing);
  if (finalizing == 0 || LoadWord(runtime + kRuntimeMainInterpreter) != 0 ||
      LoadInt(runtime + kRuntimeInitialized) != 0) {
    return false;
  }
  // The layout is the one assumed: the GIL is still taken, last by the
  // finalizing thread (3.10 never releases it at the end of
  // Py_FinalizeEx).
  if (LoadWord(runtime + kGilLastHolder) != finalizing ||
      LoadInt(runtime + kGilLocked) != 1) {
    return false;
  }
  *mutex = reinterpret_cast<pthread_mutex_t*>(runtime + kGilMutex);
  return true;
}

bool TryLockFor(pthread_mutex_t* mutex, uint64_t timeout_ns) {
  const uint64_t start = MonotonicNs();
  for (;;) {
    const int rc = pthread_mutex_trylock(mutex);
    if (rc == 0) return true;
    if (rc != EBUSY || MonotonicNs() - start >= timeout_ns) return false;
    const timespec pause{0, kRetryPauseNs};
    nanosleep(&pause, nullptr);
  }
}

}  // namespace internal

void FindInterpreterForExit() {
  if (g_runtime.load(std::memory_order_acquire) == 0) LookUp();
}

bool HoldThreadsOfFinalizedInterpreter() {
  if (g_held.load()) return true;
  // An interpreter loaded after this library (an embedding host).
  if (g_runtime.load(std::memory_order_acquire) == 0) LookUp();
  const uintptr_t runtime = g_runtime.load(std::memory_order_acquire);
  const GetVersionFunction get_version = g_get_version.load();
  if (runtime == 0 || g_has_py_version.load() || get_version == nullptr) {
    return false;
  }
  // Cheap checks on the runtime first: Py_GetVersion is called only for an
  // interpreter that looks finalized (it formats static strings into a
  // static buffer; no lock, no allocation).
  if (LoadWord(runtime + kRuntimeFinalizing) == 0) return false;
  pthread_mutex_t* mutex = nullptr;
  if (!internal::FinalizedRuntimeGilMutex(runtime, get_version(), &mutex)) {
    return false;
  }
  // Kept until the process ends: released, it would let the threads that
  // woke meanwhile into the freed interpreter all at once.
  if (!internal::TryLockFor(mutex, kTryForNs)) return false;
  g_held.store(true);
  return true;
}

}  // namespace feedprof::preload::python
