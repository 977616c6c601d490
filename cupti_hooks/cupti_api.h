// The table of libcupti functions the collector calls.
//
// libcupti is dlopen'ed, never linked: a process without CUDA must not pay
// for it, the copy to use is chosen at run time (the one a framework already
// loaded, the toolkit's, a Python wheel's), and a missing or mismatched
// library must turn GPU collection off instead of failing to start the
// process. Every CUPTI call therefore goes through this table of pointers
// resolved with dlsym. The types come from the CUPTI headers (decltype of
// the declarations), so a signature change is a compile error, not a crash.
#ifndef FEEDPROF_CUPTI_HOOKS_CUPTI_API_H_
#define FEEDPROF_CUPTI_HOOKS_CUPTI_API_H_

#include <cupti.h>

#include <cstdint>

namespace feedprof::cupti {

struct CuptiApi {
  void* handle = nullptr;  // dlopen handle; null until loaded
  uint32_t version = 0;    // cuptiGetVersion of the loaded library
  char path[512] = {};     // file the library was loaded from

  // Required: loading fails when one of these is missing.
  decltype(&::cuptiGetVersion) GetVersion = nullptr;
  decltype(&::cuptiGetResultString) GetResultString = nullptr;
  decltype(&::cuptiGetCallbackName) GetCallbackName = nullptr;
  decltype(&::cuptiActivityRegisterCallbacks) ActivityRegisterCallbacks =
      nullptr;
  decltype(&::cuptiActivityEnable) ActivityEnable = nullptr;
  decltype(&::cuptiActivityDisable) ActivityDisable = nullptr;
  decltype(&::cuptiActivityFlushAll) ActivityFlushAll = nullptr;
  decltype(&::cuptiActivityGetNextRecord) ActivityGetNextRecord = nullptr;
  decltype(&::cuptiActivityGetNumDroppedRecords) ActivityGetNumDroppedRecords =
      nullptr;
  decltype(&::cuptiSubscribe) Subscribe = nullptr;
  decltype(&::cuptiUnsubscribe) Unsubscribe = nullptr;
  decltype(&::cuptiEnableCallback) EnableCallback = nullptr;
  decltype(&::cuptiGetTimestamp) GetTimestamp = nullptr;

  // Optional: used when present, worked around when absent.
  decltype(&::cuptiSetThreadIdType) SetThreadIdType = nullptr;
  decltype(&::cuptiActivityRegisterTimestampCallback)
      ActivityRegisterTimestampCallback = nullptr;
  decltype(&::cuptiActivityEnableRuntimeApi) ActivityEnableRuntimeApi = nullptr;
  decltype(&::cuptiActivityEnableDriverApi) ActivityEnableDriverApi = nullptr;
  decltype(&::cuptiGetDeviceId) GetDeviceId = nullptr;
  decltype(&::cuptiActivityEnableAndDump) ActivityEnableAndDump = nullptr;

  bool loaded() const { return handle != nullptr; }

  // CUPTI's name of `result` ("CUPTI_ERROR_UNKNOWN"), never null.
  const char* ResultName(CUptiResult result) const;
};

}  // namespace feedprof::cupti

#endif  // FEEDPROF_CUPTI_HOOKS_CUPTI_API_H_
