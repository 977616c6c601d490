// The state of the stand-in libcupti (fake_cupti.cc): what the collector
// asked of CUPTI, and the results CUPTI should give. Lets the tests run
// the collector's start, callbacks, buffers and flushes as a driver-backed
// CUPTI would drive them, on a machine without a GPU.
#ifndef FEEDPROF_TESTS_CUPTI_HOOKS_FAKE_CUPTI_H_
#define FEEDPROF_TESTS_CUPTI_HOOKS_FAKE_CUPTI_H_

#include <cupti.h>

#include <cstdint>

namespace feedprof::cupti::test {

struct FakeCuptiState {
  // Results to give.
  uint32_t version = CUPTI_API_VERSION;
  CUptiResult subscribe_result = CUPTI_SUCCESS;
  CUptiResult kernel_enable_result = CUPTI_SUCCESS;
  CUptiResult timestamp_callback_result = CUPTI_SUCCESS;
  uint64_t cupti_timestamp = 0;  // cuptiGetTimestamp
  size_t dropped_per_completion = 0;

  // What the collector did.
  CUpti_BuffersCallbackRequestFunc request = nullptr;
  CUpti_BuffersCallbackCompleteFunc complete = nullptr;
  CUpti_CallbackFunc callback = nullptr;
  CUpti_TimestampCallbackFunc timestamp_callback = nullptr;
  int thread_id_type = -1;
  bool subscribed = false;
  int unsubscribes = 0;
  bool kinds_enabled[CUPTI_ACTIVITY_KIND_COUNT] = {};
  // Enabled through cuptiActivityEnableAndDump (records of resources that
  // already exist are delivered too).
  bool kinds_dumped[CUPTI_ACTIVITY_KIND_COUNT] = {};
  // [domain][cbid]: callbacks enabled; activity records turned off.
  bool callback_enabled[5][2048] = {};
  bool runtime_activity_off[1024] = {};
  bool driver_activity_off[2048] = {};
  int flushes = 0;
  uint32_t last_flush_flag = 0;
};

}  // namespace feedprof::cupti::test

// Exported by the stand-in library.
extern "C" feedprof::cupti::test::FakeCuptiState* fake_cupti_state();
extern "C" void fake_cupti_reset();

#endif  // FEEDPROF_TESTS_CUPTI_HOOKS_FAKE_CUPTI_H_
