// Names and roles of the CUDA runtime and driver API functions, by CUPTI
// callback id.
//
// CUPTI identifies an API call only by (domain, cbid). The table maps each
// id once, at start, to the name the trace uses (CUPTI's callback name
// without its "_v3020"/"_ptsz" suffixes, as Kineto and Nsight users know
// them) and to its role for feedprof:
//  * noise: queries that a framework calls thousands of times per step and
//    that never block or launch (cudaGetDevice, cudaGetLastError,
//    cuCtxGetCurrent, ...; the full list is in api_table.cc and
//    docs/cupti.md). Not recorded at all.
//  * blocking: calls that can stall the host on the GPU (explicit syncs,
//    copies, synchronous memsets, allocation and free, cudaDeviceSetLimit).
//    With a CUPTI subscriber these are recorded by the callback path, with
//    the call site they were issued from.
//  * flush-before: calls that end a context (cudaDeviceReset,
//    cuCtxDestroy, ...): activity buffers are flushed before they run.
//  * ordinary: everything else (launches, event records, ...), recorded
//    from CUPTI's activity records.
// Classifying by name, not by a hand-kept list of ids, keeps the table
// right for every versioned variant (_ptsz, _v2, new _v13000 ids).
#ifndef FEEDPROF_CUPTI_HOOKS_API_TABLE_H_
#define FEEDPROF_CUPTI_HOOKS_API_TABLE_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "cupti_hooks/cupti_api.h"
#include "cupti_hooks/recorder_sink.h"

namespace feedprof::cupti {

enum class ApiClass : uint8_t {
  kOrdinary = 0,
  kNoise = 1,
  kBlocking = 2,
  kFlushBefore = 3,
};

// The classes the callback path records, with their call sites, while a
// CUPTI subscriber is active: the callbacks are enabled for them and their
// activity records are left out.
constexpr bool IsCallbackOwned(ApiClass api_class) {
  return api_class == ApiClass::kBlocking ||
         api_class == ApiClass::kFlushBefore;
}

// Trace ApiDomain numbering (proto/feedprof.proto).
enum class ApiDomain : uint8_t { kRuntime = 1, kDriver = 2 };

// "cudaMemcpyAsync_ptsz_v7000" -> "cudaMemcpyAsync".
std::string_view NormalizeApiName(std::string_view cupti_name);

// Role of the API named `name` (already normalized).
ApiClass ClassifyApi(ApiDomain domain, std::string_view name);

class ApiTable {
 public:
  static constexpr size_t kMaxRuntimeIds = 1024;
  static constexpr size_t kMaxDriverIds = 2048;
  static constexpr size_t kNameCapacity = 64;

  // Reads every callback name from `api` and classifies it.
  void Build(const CuptiApi& api);

  ApiClass Class(ApiDomain domain, uint32_t cbid) const {
    const Entry* e = Find(domain, cbid);
    return e == nullptr ? ApiClass::kOrdinary : e->api_class;
  }
  // Normalized name; empty for an unknown id.
  std::string_view Name(ApiDomain domain, uint32_t cbid) const;

  // Interned id of the name (interned on first use; 0 for unknown ids).
  uint32_t NameId(ApiDomain domain, uint32_t cbid,
                  const RecorderSink& sink) const;

  // Number of ids known in `domain` (CUPTI's *_TRACE_CBID_SIZE).
  uint32_t Size(ApiDomain domain) const {
    return domain == ApiDomain::kRuntime ? runtime_size_ : driver_size_;
  }

 private:
  struct Entry {
    char name[kNameCapacity];
    uint8_t name_length;
    ApiClass api_class;
    mutable std::atomic<uint32_t> name_id;
  };

  const Entry* Find(ApiDomain domain, uint32_t cbid) const {
    if (domain == ApiDomain::kRuntime) {
      return cbid < runtime_size_ ? &runtime_[cbid] : nullptr;
    }
    return cbid < driver_size_ ? &driver_[cbid] : nullptr;
  }

  Entry runtime_[kMaxRuntimeIds] = {};
  Entry driver_[kMaxDriverIds] = {};
  uint32_t runtime_size_ = 0;
  uint32_t driver_size_ = 0;
};

}  // namespace feedprof::cupti

#endif  // FEEDPROF_CUPTI_HOOKS_API_TABLE_H_
