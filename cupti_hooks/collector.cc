// Implements cupti_entry.h: the process-wide CUPTI collector.
#include "cupti_hooks/collector.h"

#include <dlfcn.h>
#include <pthread.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "cupti_hooks/activity_buffer_pool.h"
#include "cupti_hooks/activity_converter.h"
#include "cupti_hooks/api_callbacks.h"
#include "cupti_hooks/api_table.h"
#include "cupti_hooks/call_sites.h"
#include "cupti_hooks/cupti_entry.h"
#include "cupti_hooks/cupti_loader.h"
#include "cupti_hooks/nvml_sampler.h"
#include "cupti_hooks/recorder_sink.h"
#include "preload/log.h"
#include "preload/reentrancy_guard.h"

namespace feedprof::cupti {
namespace {

// Activity kinds beyond the concurrent kernels (which decide whether
// activities work at all). A kind the loaded CUPTI or device cannot enable
// is simply not recorded.
constexpr CUpti_ActivityKind kOptionalKinds[] = {
    CUPTI_ACTIVITY_KIND_MEMCPY,
    CUPTI_ACTIVITY_KIND_MEMCPY2,
    CUPTI_ACTIVITY_KIND_MEMSET,
    CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,
    CUPTI_ACTIVITY_KIND_RUNTIME,
    CUPTI_ACTIVITY_KIND_DRIVER,
    CUPTI_ACTIVITY_KIND_OVERHEAD,
    CUPTI_ACTIVITY_KIND_MEMORY2,
    CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION,
};

// Resource kinds: CUPTI emits their records when the resource is created
// (devices at driver initialization), so a collector that starts late must
// ask for the records of resources that already exist.
constexpr CUpti_ActivityKind kResourceKinds[] = {
    CUPTI_ACTIVITY_KIND_DEVICE,
    CUPTI_ACTIVITY_KIND_CONTEXT,
    CUPTI_ACTIVITY_KIND_STREAM,
};

// Everything lives in one heap object created at the first start and
// never destroyed: CUPTI may call back during process teardown, after
// static destructors ran.
struct Collector {
  CuptiApi api;
  ApiTable table;
  ActivityBufferPool pool;
  ActivityConverter* converter = nullptr;
  CallSiteRecorder* call_sites = nullptr;
  ApiCallbackHandler* handler = nullptr;
  CUpti_SubscriberHandle subscriber = nullptr;
  const RecorderSink* sink = nullptr;
  CollectionMode mode = CollectionMode::kHostOnly;
  NvmlSampler* nvml = nullptr;
  // Collectors the tests retired (see ResetCollectionForTest), newest first.
  Collector* retired_next = nullptr;
};

Collector* g_collector = nullptr;
Collector* g_retired_collectors = nullptr;
std::atomic<bool> g_started{false};
std::atomic<bool> g_active{false};  // CUPTI collects for us right now
std::atomic<bool> g_forked{false};
CollectionMode g_last_mode = CollectionMode::kHostOnly;
const RecorderSink* g_test_sink = nullptr;

// The one line a degraded start prints (single write, "feedprof: " prefix).
void PrintLine(const char* message) {
  if (message[0] != '\0') preload::LogWarning("%s", message);
}

// Writes the outcome of a start into the trace, with the line printed.
void RecordOutcome(const Collector& c, CollectionMode mode,
                   const char* message) {
  if (c.sink->record_collection_status == nullptr) return;
  using preload::GpuCollectionState;
  c.sink->record_collection_status(mode == CollectionMode::kFull
                                       ? GpuCollectionState::kFull
                                   : mode == CollectionMode::kActivityOnly
                                       ? GpuCollectionState::kActivityOnly
                                       : GpuCollectionState::kOff,
                                   message);
}

size_t EnvMegabytes(const char* name, size_t fallback) {
  const char* value = std::getenv(name);
  if (value == nullptr || value[0] == '\0') return fallback;
  char* end = nullptr;
  const unsigned long long mb = std::strtoull(value, &end, 10);
  if (end == value || mb == 0) return fallback;
  return static_cast<size_t>(mb) << 20;
}

bool EnvOff(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr &&
         (std::strcmp(value, "0") == 0 || std::strcmp(value, "off") == 0 ||
          std::strcmp(value, "false") == 0);
}

void CUPTIAPI OnBufferRequested(uint8_t** buffer, size_t* size,
                                size_t* max_records) {
  *max_records = 0;  // as many as fit
  *buffer = g_collector != nullptr ? g_collector->pool.Acquire() : nullptr;
  *size = *buffer != nullptr ? g_collector->pool.buffer_bytes() : 0;
}

void CUPTIAPI OnBufferCompleted(CUcontext context, uint32_t stream_id,
                                uint8_t* buffer, size_t, size_t valid_size) {
  Collector* c = g_collector;
  if (c == nullptr) return;
  uint64_t zero_timestamps = 0;
  size_t dropped = 0;
  if (!g_forked.load(std::memory_order_relaxed)) {
    if (buffer != nullptr && valid_size > 0 && c->converter != nullptr) {
      zero_timestamps = c->converter->ConvertBuffer(buffer, valid_size);
    }
    if (c->api.ActivityGetNumDroppedRecords(context, stream_id, &dropped) !=
        CUPTI_SUCCESS) {
      dropped = 0;
    }
  }
  const uint64_t refused = c->pool.TakeRefusedCount();
  if (dropped != 0 || zero_timestamps != 0 || refused != 0) {
    c->sink->count_cupti_drops(dropped, zero_timestamps, refused);
  }
  // Only now, with every record read, may the buffer be reused.
  c->pool.Release(buffer);
}

void CUPTIAPI OnCallback(void*, CUpti_CallbackDomain domain,
                         CUpti_CallbackId cbid, const void* data) {
  Collector* c = g_collector;
  if (c == nullptr || c->handler == nullptr ||
      !g_active.load(std::memory_order_relaxed) ||
      g_forked.load(std::memory_order_relaxed)) {
    return;
  }
  c->handler->OnCallback(domain, cbid, data);
}

void ForcedFlush() { FlushCollection(true); }

struct FlushRequest {
  const CuptiApi* api;
  uint32_t flag;
};

void* FlushThreadMain(void* arg) {
  const auto* request = static_cast<const FlushRequest*>(arg);
  request->api->ActivityFlushAll(request->flag);
  return nullptr;
}

// cuptiActivityFlushAll may deliver the buffers on the calling thread, and
// the recorder refuses packets from a thread inside one of its own entry
// points. The lifecycle calls every flush outside the recorder's guard (the
// exit handler stops collection before taking it; the writer thread drops
// it around its periodic flush). A caller still inside the guard gets a
// short-lived thread of its own for the flush, so nothing is lost.
void FlushAll(const CuptiApi& api, uint32_t flag) {
  if (preload::t_recorder.in_call == 0) {
    api.ActivityFlushAll(flag);
    return;
  }
  FlushRequest request{&api, flag};
  pthread_t thread;
  if (pthread_create(&thread, nullptr, &FlushThreadMain, &request) != 0) {
    api.ActivityFlushAll(flag);
    return;
  }
  pthread_join(thread, nullptr);
}

// At context creation the driver can be asked for the device's PCI bus id
// (activity device records do not carry it).
void NoteContextDevice(CUcontext context) {
  Collector* c = g_collector;
  if (c == nullptr || c->api.GetDeviceId == nullptr ||
      c->converter == nullptr) {
    return;
  }
  uint32_t device_id = 0;
  if (c->api.GetDeviceId(context, &device_id) != CUPTI_SUCCESS) return;
  void* cuda = dlopen("libcuda.so.1", RTLD_NOLOAD | RTLD_LAZY);
  if (cuda == nullptr) return;
  using DeviceGet = int (*)(int*, int);
  using GetPciBusId = int (*)(char*, int, int);
  auto device_get = reinterpret_cast<DeviceGet>(dlsym(cuda, "cuDeviceGet"));
  auto get_bus_id =
      reinterpret_cast<GetPciBusId>(dlsym(cuda, "cuDeviceGetPCIBusId"));
  int device = 0;
  char bus_id[32] = {};
  if (device_get != nullptr && get_bus_id != nullptr &&
      device_get(&device, static_cast<int>(device_id)) == 0 &&
      get_bus_id(bus_id, sizeof bus_id, device) == 0) {
    c->converter->NotePciBusId(device_id, bus_id);
  }
  dlclose(cuda);
}

// Subscribes and enables the callbacks of blocking and flush-before calls.
CUptiResult SetUpCallbacks(Collector* c) {
  CUptiResult rc = c->api.Subscribe(&c->subscriber, &OnCallback, nullptr);
  if (rc != CUPTI_SUCCESS) {
    c->subscriber = nullptr;
    return rc;
  }
  const struct {
    ApiDomain domain;
    CUpti_CallbackDomain cupti_domain;
  } domains[] = {{ApiDomain::kRuntime, CUPTI_CB_DOMAIN_RUNTIME_API},
                 {ApiDomain::kDriver, CUPTI_CB_DOMAIN_DRIVER_API}};
  for (const auto& d : domains) {
    for (uint32_t cbid = 0; cbid < c->table.Size(d.domain); ++cbid) {
      if (!IsCallbackOwned(c->table.Class(d.domain, cbid))) continue;
      rc = c->api.EnableCallback(1, c->subscriber, d.cupti_domain, cbid);
      if (rc != CUPTI_SUCCESS) break;
    }
    if (rc != CUPTI_SUCCESS) break;
  }
  if (rc == CUPTI_SUCCESS) {
    rc = c->api.EnableCallback(1, c->subscriber, CUPTI_CB_DOMAIN_RESOURCE,
                               CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING);
  }
  if (rc == CUPTI_SUCCESS) {
    // Optional: only feeds the PCI bus id.
    c->api.EnableCallback(1, c->subscriber, CUPTI_CB_DOMAIN_RESOURCE,
                          CUPTI_CBID_RESOURCE_CONTEXT_CREATED);
  }
  if (rc != CUPTI_SUCCESS) {
    c->api.Unsubscribe(c->subscriber);
    c->subscriber = nullptr;
  }
  return rc;
}

// Per-call control of API activity records: noise is never recorded, and
// with callbacks active the blocking calls come from the callbacks.
void FilterApiRecords(Collector* c, bool callbacks_own_blocking) {
  const struct {
    ApiDomain domain;
    decltype(CuptiApi::ActivityEnableRuntimeApi) enable;
  } domains[] = {{ApiDomain::kRuntime, c->api.ActivityEnableRuntimeApi},
                 {ApiDomain::kDriver, c->api.ActivityEnableDriverApi}};
  for (const auto& d : domains) {
    if (d.enable == nullptr) continue;  // the converter filters instead
    for (uint32_t cbid = 0; cbid < c->table.Size(d.domain); ++cbid) {
      const ApiClass api_class = c->table.Class(d.domain, cbid);
      const bool off = api_class == ApiClass::kNoise ||
                       (callbacks_own_blocking && IsCallbackOwned(api_class));
      if (off) d.enable(cbid, 0);
    }
  }
}

bool DriverLoaded() {
  void* cuda = dlopen("libcuda.so.1", RTLD_NOLOAD | RTLD_LAZY);
  if (cuda == nullptr) return false;
  dlclose(cuda);
  return true;
}

}  // namespace

CollectionMode PlanCollection(const CuptiApi& api, CUptiResult subscribe,
                              CUptiResult enable_activity, char* message,
                              size_t message_size) {
  message[0] = '\0';
  if (enable_activity != CUPTI_SUCCESS) {
    const bool no_driver = !DriverLoaded();
    std::snprintf(
        message, message_size,
        "CUPTI cannot record GPU activity (%s%s%s); recording host-only. %s",
        api.ResultName(enable_activity),
        subscribe != CUPTI_SUCCESS ? ", subscribe: " : "",
        subscribe != CUPTI_SUCCESS ? api.ResultName(subscribe) : "",
        no_driver ? "No CUDA driver is loaded in this process: run on a "
                    "machine with an NVIDIA driver to record the GPU."
                  : "Check that the NVIDIA driver supports this CUDA "
                    "version and that GPU profiling is permitted "
                    "(NVreg_RestrictProfilingToAdminUsers).");
    return CollectionMode::kHostOnly;
  }
  if (subscribe == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
    std::snprintf(message, message_size,
                  "another tool already holds the CUPTI subscriber (%s); GPU "
                  "activity is recorded, call sites of blocking calls are "
                  "not. Run without the other profiler to get them.",
                  api.ResultName(subscribe));
    return CollectionMode::kActivityOnly;
  }
  if (subscribe != CUPTI_SUCCESS) {
    std::snprintf(message, message_size,
                  "CUPTI callbacks are unavailable (%s); GPU activity is "
                  "recorded, call sites of blocking calls are not.",
                  api.ResultName(subscribe));
    return CollectionMode::kActivityOnly;
  }
  return CollectionMode::kFull;
}

namespace {

uint32_t EnvUint(const char* name, uint32_t fallback) {
  const char* value = std::getenv(name);
  if (value == nullptr || value[0] == '\0') return fallback;
  char* end = nullptr;
  const unsigned long v = std::strtoul(value, &end, 10);
  return end == value || v == 0 || v > 3'600'000 ? fallback
                                                 : static_cast<uint32_t>(v);
}

int ResolveCudaOrdinal(const char* bus_id) {
  Collector* c = g_collector;
  if (c == nullptr || c->converter == nullptr) return -1;
  return c->converter->CudaOrdinalForPciBus(bus_id);
}

// GPU counters, whatever CUPTI could do: NVML needs only the driver.
void StartNvml(Collector* c) {
  if (EnvOff("FEEDPROF_NVML") || c->nvml != nullptr) return;
  c->nvml = new NvmlSampler(*c->sink);
  c->nvml->set_device_resolver(&ResolveCudaOrdinal);
  if (c->nvml->Load()) {
    c->nvml->Start(EnvUint("FEEDPROF_NVML_INTERVAL_MS", 100));
  }
}

bool StartCupti(Collector* c);

}  // namespace

bool StartCollection() {
  if (g_forked.load() || g_started.exchange(true)) {
    return g_active.load();
  }
  if (g_collector == nullptr) g_collector = new Collector();
  Collector* c = g_collector;
  c->sink = g_test_sink != nullptr ? g_test_sink : &ProcessRecorderSink();
  const bool started = StartCupti(c);
  StartNvml(c);
  return started;
}

namespace {

bool StartCupti(Collector* c) {
  char message[1024];
  if (LoadCupti(&c->api, message, sizeof message) != LoadStatus::kLoaded) {
    PrintLine(message);
    g_last_mode = CollectionMode::kHostOnly;
    RecordOutcome(*c, g_last_mode, message);
    return false;
  }
  c->table.Build(c->api);
  const size_t cap = EnvMegabytes("FEEDPROF_CUPTI_BUFFER_MB",
                                  ActivityBufferPool::kDefaultCapBytes);
  c->pool.Configure(cap < ActivityBufferPool::kDefaultBufferBytes
                        ? cap
                        : ActivityBufferPool::kDefaultBufferBytes,
                    cap);
  if (c->converter == nullptr) {
    c->converter = new ActivityConverter(c->api, c->table, *c->sink);
  }
  if (c->api.SetThreadIdType != nullptr) {
    // API records then carry gettid() ids, the ones host samples use.
    c->api.SetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);
  }

  // 1. Callbacks (call sites), unless turned off.
  const bool want_call_sites = !EnvOff("FEEDPROF_CALL_SITES");
  if (want_call_sites && c->call_sites == nullptr) {
    c->call_sites = new CallSiteRecorder(*c->sink);
  }
  if (c->handler == nullptr) {
    c->handler = new ApiCallbackHandler(c->table, *c->sink, c->call_sites);
    c->handler->set_flush_hook(&ForcedFlush);
    c->handler->set_context_created_hook(&NoteContextDevice);
  }
  const CUptiResult subscribe = SetUpCallbacks(c);

  // 2. One clock: CUPTI timestamps come from the recorder's clock. Must
  // precede enabling any activity. Without it, measure the offset.
  const bool one_clock = c->api.ActivityRegisterTimestampCallback != nullptr &&
                         c->api.ActivityRegisterTimestampCallback(
                             c->sink->now_ns) == CUPTI_SUCCESS;
  c->converter->set_clock_offset_ns(0);

  // 3. Activities.
  CUptiResult enable =
      c->api.ActivityRegisterCallbacks(&OnBufferRequested, &OnBufferCompleted);
  if (enable == CUPTI_SUCCESS) {
    enable = c->api.ActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  }
  c->mode = PlanCollection(c->api, subscribe, enable, message, sizeof message);
  g_last_mode = c->mode;
  PrintLine(message);
  RecordOutcome(*c, c->mode, message);
  if (c->mode == CollectionMode::kHostOnly) {
    if (c->subscriber != nullptr) c->api.Unsubscribe(c->subscriber);
    c->subscriber = nullptr;
    return false;
  }
  if (!one_clock) {
    uint64_t cupti_now = 0;
    if (c->api.GetTimestamp(&cupti_now) == CUPTI_SUCCESS && cupti_now != 0) {
      c->converter->set_clock_offset_ns(
          static_cast<int64_t>(c->sink->now_ns()) -
          static_cast<int64_t>(cupti_now));
    }
  }
  for (CUpti_ActivityKind kind : kOptionalKinds) c->api.ActivityEnable(kind);
  for (CUpti_ActivityKind kind : kResourceKinds) {
    if (c->api.ActivityEnableAndDump == nullptr ||
        c->api.ActivityEnableAndDump(kind) != CUPTI_SUCCESS) {
      c->api.ActivityEnable(kind);
    }
  }
  const bool callbacks_own = c->mode == CollectionMode::kFull;
  c->converter->set_callbacks_own_blocking_calls(callbacks_own);
  FilterApiRecords(c, callbacks_own);
  g_active.store(true);
  return true;
}

}  // namespace

void FlushCollection(bool force) {
  Collector* c = g_collector;
  if (c == nullptr || !g_active.load() || g_forked.load()) return;
  FlushAll(c->api, force ? CUPTI_ACTIVITY_FLAG_FLUSH_FORCED : 0);
}

void StopCollection() {
  Collector* c = g_collector;
  if (c == nullptr || g_forked.load()) return;
  if (c->nvml != nullptr) c->nvml->Stop();
  if (!g_active.load()) return;
  FlushAll(c->api, CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  g_active.store(false);
  if (c->subscriber != nullptr) {
    c->api.Unsubscribe(c->subscriber);
    c->subscriber = nullptr;
  }
}

void OnForkChild() {
  // CUDA is unusable in the child: never call CUPTI again here.
  g_forked.store(true);
  g_active.store(false);
  if (g_collector != nullptr && g_collector->nvml != nullptr) {
    g_collector->nvml->ForgetAfterFork();
  }
}

namespace testing {

void ResetCollectionForTest() {
  g_started.store(false);
  g_active.store(false);
  g_forked.store(false);
  // Never freed, like in production: CUPTI may still hold pointers. Kept
  // on a list so that leak checkers see it as held, not lost.
  if (g_collector != nullptr) {
    g_collector->retired_next = g_retired_collectors;
    g_retired_collectors = g_collector;
  }
  g_collector = nullptr;
}

CollectionMode LastCollectionMode() { return g_last_mode; }

void SetRecorderSinkForTest(const RecorderSink* sink) { g_test_sink = sink; }

void RequestBufferForTest(uint8_t** buffer, size_t* size, size_t* max_records) {
  OnBufferRequested(buffer, size, max_records);
}

void CompleteBufferForTest(uint8_t* buffer, size_t size, size_t valid_size) {
  OnBufferCompleted(nullptr, 0, buffer, size, valid_size);
}

void FlushAllForTest(const CuptiApi& api, uint32_t flag) {
  FlushAll(api, flag);
}

}  // namespace testing

}  // namespace feedprof::cupti
