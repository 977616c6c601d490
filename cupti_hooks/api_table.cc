#include "cupti_hooks/api_table.h"

#include <cstring>

namespace feedprof::cupti {
namespace {

// Queries that never block, launch or allocate and that frameworks call
// constantly; recording them would bloat the trace and cost overhead.
constexpr std::string_view kRuntimeNoise[] = {
    "cudaGetDevice",
    "cudaSetDevice",
    "cudaGetDeviceCount",
    "cudaGetDeviceFlags",
    "cudaGetDeviceProperties",
    "cudaDeviceGetAttribute",
    "cudaDeviceGetStreamPriorityRange",
    "cudaDeviceCanAccessPeer",
    "cudaGetLastError",
    "cudaPeekAtLastError",
    "cudaGetErrorString",
    "cudaGetErrorName",
    "cudaPointerGetAttributes",
    "cudaFuncGetAttributes",
    "cudaStreamIsCapturing",
    "cudaStreamGetCaptureInfo",
    "cudaStreamGetPriority",
    "cudaStreamGetFlags",
    "cudaStreamGetId",
    "cudaStreamGetDevice",
    "cudaThreadExchangeStreamCaptureMode",
    "cudaDriverGetVersion",
    "cudaRuntimeGetVersion",
    "cudaGetDriverEntryPoint",
    "cudaGetDriverEntryPointByVersion",
    "cudaGetExportTable",
    "cudaGetFuncBySymbol",
};
constexpr std::string_view kDriverNoise[] = {
    "cuCtxGetCurrent",
    "cuCtxSetCurrent",
    "cuCtxGetDevice",
    "cuCtxPushCurrent",
    "cuCtxPopCurrent",
    "cuCtxGetId",
    "cuCtxGetFlags",
    "cuCtxGetApiVersion",
    "cuCtxGetStreamPriorityRange",
    "cuDeviceGet",
    "cuDeviceGetCount",
    "cuDeviceGetAttribute",
    "cuDeviceGetName",
    "cuDeviceGetUuid",
    "cuDeviceGetPCIBusId",
    "cuDeviceTotalMem",
    "cuDevicePrimaryCtxGetState",
    "cuDriverGetVersion",
    "cuGetProcAddress",
    "cuGetExportTable",
    "cuGetErrorString",
    "cuGetErrorName",
    "cuPointerGetAttribute",
    "cuPointerGetAttributes",
    "cuStreamIsCapturing",
    "cuStreamGetCaptureInfo",
    "cuStreamGetCtx",
    "cuStreamGetId",
    "cuStreamGetFlags",
    "cuStreamGetPriority",
    "cuStreamGetDevice",
    "cuFuncGetAttribute",
    "cuFuncGetName",
    // The CUDA 13 runtime asks it before every kernel launch.
    "cuKernelGetName",
    "cuKernelGetAttribute",
    "cuKernelGetFunction",
};
constexpr std::string_view kNoisePrefixes[] = {"cudaOccupancy", "cuOccupancy"};

// Calls that can block the calling host thread until the GPU catches up,
// besides every copy (prefix cudaMemcpy / cuMemcpy) and every synchronous
// memset (prefix cudaMemset / cuMemsetD without "Async").
constexpr std::string_view kRuntimeBlocking[] = {
    "cudaDeviceSynchronize",
    "cudaThreadSynchronize",
    "cudaStreamSynchronize",
    "cudaEventSynchronize",
    "cudaMalloc",
    "cudaMallocHost",
    "cudaMallocManaged",
    "cudaMallocPitch",
    "cudaMalloc3D",
    "cudaMallocArray",
    "cudaMalloc3DArray",
    "cudaFree",
    "cudaFreeHost",
    "cudaFreeArray",
    "cudaHostAlloc",
    "cudaHostRegister",
    "cudaHostUnregister",
    "cudaDeviceSetLimit",
};
constexpr std::string_view kDriverBlocking[] = {
    "cuCtxSynchronize", "cuStreamSynchronize", "cuEventSynchronize",
    "cuMemAlloc",       "cuMemAllocPitch",     "cuMemAllocManaged",
    "cuMemAllocHost",   "cuMemHostAlloc",      "cuMemFree",
    "cuMemFreeHost",    "cuMemHostRegister",   "cuMemHostUnregister",
    "cuCtxSetLimit",
};
// Calls that tear a context down: its records are flushed first.
constexpr std::string_view kFlushBefore[] = {"cudaDeviceReset",
                                             "cudaThreadExit", "cuCtxDestroy",
                                             "cuDevicePrimaryCtxReset"};

template <size_t N>
bool Contains(const std::string_view (&list)[N], std::string_view name) {
  for (std::string_view item : list) {
    if (item == name) return true;
  }
  return false;
}

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.substr(s.size() - suffix.size()) == suffix;
}

}  // namespace

std::string_view NormalizeApiName(std::string_view name) {
  // Cut at the first "_v<digit>" or "_pt" (per-thread stream variants).
  for (size_t i = 0; i + 2 < name.size(); ++i) {
    if (name[i] != '_') continue;
    const char next = name[i + 1];
    const char after = name[i + 2];
    if ((next == 'v' && after >= '0' && after <= '9') ||
        (next == 'p' && after == 't')) {
      return name.substr(0, i);
    }
  }
  return name;
}

ApiClass ClassifyApi(ApiDomain domain, std::string_view name) {
  if (name.empty()) return ApiClass::kOrdinary;
  if (Contains(kFlushBefore, name)) return ApiClass::kFlushBefore;
  for (std::string_view prefix : kNoisePrefixes) {
    if (name.starts_with(prefix)) return ApiClass::kNoise;
  }
  if (domain == ApiDomain::kRuntime) {
    if (Contains(kRuntimeNoise, name)) return ApiClass::kNoise;
    if (Contains(kRuntimeBlocking, name)) return ApiClass::kBlocking;
    if (name.starts_with("cudaMemcpy")) return ApiClass::kBlocking;
    if (name.starts_with("cudaMemset") && !EndsWith(name, "Async")) {
      return ApiClass::kBlocking;
    }
    return ApiClass::kOrdinary;
  }
  if (Contains(kDriverNoise, name)) return ApiClass::kNoise;
  if (Contains(kDriverBlocking, name)) return ApiClass::kBlocking;
  if (name.starts_with("cuMemcpy")) return ApiClass::kBlocking;
  if (name.starts_with("cuMemsetD") && !EndsWith(name, "Async")) {
    return ApiClass::kBlocking;
  }
  return ApiClass::kOrdinary;
}

void ApiTable::Build(const CuptiApi& api) {
  constexpr auto kRuntimeIds =
      static_cast<uint32_t>(CUPTI_RUNTIME_TRACE_CBID_SIZE);
  constexpr auto kDriverIds =
      static_cast<uint32_t>(CUPTI_DRIVER_TRACE_CBID_SIZE);
  runtime_size_ = kRuntimeIds < kMaxRuntimeIds
                      ? kRuntimeIds
                      : static_cast<uint32_t>(kMaxRuntimeIds);
  driver_size_ = kDriverIds < kMaxDriverIds
                     ? kDriverIds
                     : static_cast<uint32_t>(kMaxDriverIds);
  const struct {
    ApiDomain domain;
    CUpti_CallbackDomain cupti_domain;
    Entry* entries;
    uint32_t size;
  } domains[] = {
      {ApiDomain::kRuntime, CUPTI_CB_DOMAIN_RUNTIME_API, runtime_,
       runtime_size_},
      {ApiDomain::kDriver, CUPTI_CB_DOMAIN_DRIVER_API, driver_, driver_size_},
  };
  for (const auto& d : domains) {
    for (uint32_t cbid = 0; cbid < d.size; ++cbid) {
      Entry& e = d.entries[cbid];
      e.name_length = 0;
      e.api_class = ApiClass::kOrdinary;
      e.name_id.store(0, std::memory_order_relaxed);
      const char* cupti_name = nullptr;
      if (api.GetCallbackName == nullptr ||
          api.GetCallbackName(d.cupti_domain, cbid, &cupti_name) !=
              CUPTI_SUCCESS ||
          cupti_name == nullptr) {
        continue;
      }
      std::string_view name = NormalizeApiName(cupti_name);
      if (name.size() >= kNameCapacity)
        name = name.substr(0, kNameCapacity - 1);
      std::memcpy(e.name, name.data(), name.size());
      e.name[name.size()] = '\0';
      e.name_length = static_cast<uint8_t>(name.size());
      e.api_class = ClassifyApi(d.domain, name);
    }
  }
}

std::string_view ApiTable::Name(ApiDomain domain, uint32_t cbid) const {
  const Entry* e = Find(domain, cbid);
  if (e == nullptr) return {};
  return std::string_view(e->name, e->name_length);
}

uint32_t ApiTable::NameId(ApiDomain domain, uint32_t cbid,
                          const RecorderSink& sink) const {
  const Entry* e = Find(domain, cbid);
  if (e == nullptr || e->name_length == 0) return 0;
  uint32_t id = e->name_id.load(std::memory_order_relaxed);
  if (id != 0) return id;
  id = sink.intern_string(std::string_view(e->name, e->name_length));
  e->name_id.store(id, std::memory_order_relaxed);
  return id;
}

}  // namespace feedprof::cupti
