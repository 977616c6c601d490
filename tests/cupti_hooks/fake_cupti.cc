// A stand-in libcupti for tests: records what the collector asks of CUPTI
// and answers as the test configures (fake_cupti.h). Parsing of record
// buffers, callback names and result names is forwarded to the real
// libcupti, so records are read exactly as in production.
#include "tests/cupti_hooks/fake_cupti.h"

#include <dlfcn.h>

using feedprof::cupti::test::FakeCuptiState;

namespace {

FakeCuptiState g_state;

void* Real() {
  static void* real = dlopen(FEEDPROF_REAL_CUPTI, RTLD_NOW | RTLD_LOCAL);
  return real;
}

template <typename Fn>
Fn RealFunction(const char* name) {
  return reinterpret_cast<Fn>(dlsym(Real(), name));
}

}  // namespace

#define FAKE extern "C" __attribute__((visibility("default")))

FAKE FakeCuptiState* fake_cupti_state() { return &g_state; }
FAKE void fake_cupti_reset() { g_state = FakeCuptiState{}; }

FAKE CUptiResult cuptiGetVersion(uint32_t* version) {
  *version = g_state.version;
  return CUPTI_SUCCESS;
}
FAKE CUptiResult cuptiGetResultString(CUptiResult result, const char** text) {
  return RealFunction<decltype(&cuptiGetResultString)>("cuptiGetResultString")(
      result, text);
}
FAKE CUptiResult cuptiGetCallbackName(CUpti_CallbackDomain domain,
                                      uint32_t cbid, const char** name) {
  return RealFunction<decltype(&cuptiGetCallbackName)>("cuptiGetCallbackName")(
      domain, cbid, name);
}
FAKE CUptiResult cuptiActivityGetNextRecord(uint8_t* buffer, size_t valid,
                                            CUpti_Activity** record) {
  return RealFunction<decltype(&cuptiActivityGetNextRecord)>(
      "cuptiActivityGetNextRecord")(buffer, valid, record);
}
FAKE CUptiResult
cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc request,
                               CUpti_BuffersCallbackCompleteFunc complete) {
  g_state.request = request;
  g_state.complete = complete;
  return CUPTI_SUCCESS;
}
FAKE CUptiResult cuptiActivityEnable(CUpti_ActivityKind kind) {
  if (kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL &&
      g_state.kernel_enable_result != CUPTI_SUCCESS) {
    return g_state.kernel_enable_result;
  }
  if (kind < CUPTI_ACTIVITY_KIND_COUNT) g_state.kinds_enabled[kind] = true;
  return CUPTI_SUCCESS;
}
FAKE CUptiResult cuptiActivityEnableAndDump(CUpti_ActivityKind kind) {
  if (kind >= CUPTI_ACTIVITY_KIND_COUNT) return CUPTI_ERROR_INVALID_KIND;
  g_state.kinds_enabled[kind] = true;
  g_state.kinds_dumped[kind] = true;
  return CUPTI_SUCCESS;
}
FAKE CUptiResult cuptiActivityDisable(CUpti_ActivityKind kind) {
  if (kind < CUPTI_ACTIVITY_KIND_COUNT) g_state.kinds_enabled[kind] = false;
  return CUPTI_SUCCESS;
}
FAKE CUptiResult cuptiActivityFlushAll(uint32_t flag) {
  ++g_state.flushes;
  g_state.last_flush_flag = flag;
  return CUPTI_SUCCESS;
}
FAKE CUptiResult cuptiActivityGetNumDroppedRecords(CUcontext, uint32_t,
                                                   size_t* dropped) {
  *dropped = g_state.dropped_per_completion;
  return CUPTI_SUCCESS;
}
FAKE CUptiResult cuptiSubscribe(CUpti_SubscriberHandle* subscriber,
                                CUpti_CallbackFunc callback, void*) {
  if (g_state.subscribe_result != CUPTI_SUCCESS) {
    return g_state.subscribe_result;
  }
  g_state.callback = callback;
  g_state.subscribed = true;
  *subscriber = reinterpret_cast<CUpti_SubscriberHandle>(&g_state);
  return CUPTI_SUCCESS;
}
FAKE CUptiResult cuptiUnsubscribe(CUpti_SubscriberHandle) {
  g_state.subscribed = false;
  ++g_state.unsubscribes;
  return CUPTI_SUCCESS;
}
FAKE CUptiResult cuptiEnableCallback(uint32_t enable, CUpti_SubscriberHandle,
                                     CUpti_CallbackDomain domain,
                                     CUpti_CallbackId cbid) {
  if (domain < 5 && cbid < 2048) {
    g_state.callback_enabled[domain][cbid] = enable != 0;
  }
  return CUPTI_SUCCESS;
}
FAKE CUptiResult cuptiGetTimestamp(uint64_t* timestamp) {
  *timestamp = g_state.cupti_timestamp;
  return CUPTI_SUCCESS;
}
FAKE CUptiResult cuptiSetThreadIdType(CUpti_ActivityThreadIdType type) {
  g_state.thread_id_type = static_cast<int>(type);
  return CUPTI_SUCCESS;
}
FAKE CUptiResult
cuptiActivityRegisterTimestampCallback(CUpti_TimestampCallbackFunc callback) {
  if (g_state.timestamp_callback_result != CUPTI_SUCCESS) {
    return g_state.timestamp_callback_result;
  }
  g_state.timestamp_callback = callback;
  return CUPTI_SUCCESS;
}
FAKE CUptiResult cuptiActivityEnableRuntimeApi(CUpti_CallbackId cbid,
                                               uint8_t enable) {
  if (cbid < 1024) g_state.runtime_activity_off[cbid] = enable == 0;
  return CUPTI_SUCCESS;
}
FAKE CUptiResult cuptiActivityEnableDriverApi(CUpti_CallbackId cbid,
                                              uint8_t enable) {
  if (cbid < 2048) g_state.driver_activity_off[cbid] = enable == 0;
  return CUPTI_SUCCESS;
}
FAKE CUptiResult cuptiGetDeviceId(CUcontext, uint32_t* device) {
  *device = 0;
  return CUPTI_SUCCESS;
}
