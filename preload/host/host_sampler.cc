// The process-wide sampler: wires HostSamplerThread to the recorder.
//
// The sampler object lives in static storage that is never destroyed, so
// a late StopSampler (from an exit handler running after static
// destructors) still finds it intact.
#include "preload/host/host_sampler.h"

#include <pthread.h>

#include <new>
#include <string_view>

#include "preload/host/host_sampler_thread.h"
#include "preload/log.h"
#include "preload/recorder.h"

namespace feedprof::preload::host {
namespace {

constexpr uint64_t kDefaultIntervalNs = 10000000;  // 100 Hz

// Serializes Start/Stop/Restart; taken only by lifecycle callers.
pthread_mutex_t g_lifecycle_mutex = PTHREAD_MUTEX_INITIALIZER;
alignas(HostSamplerThread) unsigned char g_storage[sizeof(HostSamplerThread)];
HostSamplerThread* g_sampler = nullptr;

bool SubmitToRecorder(const uint8_t* data, size_t size, void*) {
  return SubmitPacket(data, size);
}

uint32_t InternWithRecorder(std::string_view text, void*) {
  return InternString(text);
}

void CountDropsWithRecorder(uint64_t n, void*) { CountDroppedSamples(n); }

void LogOneLine(const char* what, const char* why) {
  LogWarning("%s: %s; host sampling is off, the rest of the recording goes on",
             what, why);
}

}  // namespace

bool StartSampler(uint64_t interval_ns, uint32_t python_stack_every_rounds) {
  pthread_mutex_lock(&g_lifecycle_mutex);
  if (g_sampler == nullptr) g_sampler = new (g_storage) HostSamplerThread();
  bool ok = g_sampler->running();
  if (!ok) {
    SamplerOptions options;
    options.interval_ns = interval_ns == 0 ? kDefaultIntervalNs : interval_ns;
    options.python_stack_every_rounds = python_stack_every_rounds;
    SamplerSinks sinks;
    sinks.submit_packet = &SubmitToRecorder;
    sinks.intern_string = &InternWithRecorder;
    sinks.count_dropped_samples = &CountDropsWithRecorder;
    if (!g_sampler->Init(options, sinks)) {
      LogOneLine("cannot prepare host sampling", g_sampler->error());
    } else if (!g_sampler->Start()) {
      LogOneLine("cannot start host sampling", g_sampler->error());
      g_sampler->Release();
    } else {
      ok = true;
    }
  }
  pthread_mutex_unlock(&g_lifecycle_mutex);
  return ok;
}

void StopSampler() {
  pthread_mutex_lock(&g_lifecycle_mutex);
  if (g_sampler != nullptr && g_sampler->running()) {
    g_sampler->Stop();
    g_sampler->Release();
  }
  pthread_mutex_unlock(&g_lifecycle_mutex);
}

bool FlushSamplerBatch(int timeout_ms) {
  // No lifecycle mutex here (a signal handler calls this): the object is
  // never destroyed, and RequestFlush checks that its thread runs.
  HostSamplerThread* sampler = g_sampler;
  return sampler != nullptr && sampler->RequestFlush(timeout_ms);
}

void RestartSamplerAfterFork() {
  // Another parent thread may have held the mutex at the fork; in the
  // child nobody will release it.
  g_lifecycle_mutex = PTHREAD_MUTEX_INITIALIZER;
  pthread_mutex_lock(&g_lifecycle_mutex);
  if (g_sampler != nullptr && g_sampler->running()) {
    if (!g_sampler->RestartAfterFork()) {
      LogOneLine("cannot restart host sampling in the forked child",
                 g_sampler->error());
      g_sampler->Release();
    }
  }
  pthread_mutex_unlock(&g_lifecycle_mutex);
}

}  // namespace feedprof::preload::host
