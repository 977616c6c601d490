// The CUPTI callback path: blocking CUDA calls with the call site that
// issued them.
//
// Activity records say how long a cudaStreamSynchronize took, not which
// line of the program asked for it. For the calls that can block the host
// (api_table.h "blocking"), CUPTI's callback API calls us at entry and exit
// on the calling thread. At entry the call site is captured and interned
// (call_sites.h) and the start time taken; at exit the call is recorded as
// an ApiCallRecord on the thread's own buffer, with name, correlation id,
// bytes requested and return code, through the recorder's hot path. A call
// made inside another recorded call (the driver copy a cudaMemcpy makes)
// reuses the outer call's site instead of capturing again. Calls that tear
// a context down first flush the activity buffers. Only the cbids enabled
// by the collector reach this code; launches never do, so they cost nothing
// here.
#ifndef FEEDPROF_CUPTI_HOOKS_API_CALLBACKS_H_
#define FEEDPROF_CUPTI_HOOKS_API_CALLBACKS_H_

#include <atomic>
#include <cstdint>

#include "cupti_hooks/api_table.h"
#include "cupti_hooks/call_sites.h"
#include "cupti_hooks/cupti_api.h"
#include "cupti_hooks/recorder_sink.h"

namespace feedprof::cupti {

struct CallbackStats {
  uint64_t recorded = 0;  // ApiCallRecords written
  uint64_t with_call_site = 0;
  uint64_t reentrant = 0;        // entries refused by the guard
  uint64_t unmatched_exits = 0;  // exit without a remembered entry
  uint64_t flushes = 0;          // flush-before calls and context teardowns
};

class ApiCallbackHandler {
 public:
  // At most this many recorded calls open at once on one thread.
  static constexpr uint32_t kMaxDepth = 8;

  // `call_sites` may be null: calls are then recorded without a site.
  ApiCallbackHandler(const ApiTable& table, const RecorderSink& sink,
                     CallSiteRecorder* call_sites)
      : table_(table), sink_(sink), call_sites_(call_sites) {}

  // Called (outside the reentrancy guard, so the buffers CUPTI delivers
  // on this thread are converted) before a context goes away.
  void set_flush_hook(void (*flush)()) { flush_ = flush; }
  // Called when CUPTI reports a new context (device facts can be asked).
  void set_context_created_hook(void (*hook)(CUcontext)) {
    context_created_ = hook;
  }

  // The CUPTI callback: runtime/driver API entry and exit, resources.
  void OnCallback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                  const void* data);

  CallbackStats stats() const;

  // Bytes a call moves or allocates, from its parameters (0 when the
  // call has none or is not known).
  static uint64_t BytesOf(ApiDomain domain, CUpti_CallbackId cbid,
                          const void* params);

 private:
  // Returns true when the activity buffers must be flushed now.
  bool OnApi(ApiDomain domain, CUpti_CallbackId cbid,
             const CUpti_CallbackData& data);

  const ApiTable& table_;
  const RecorderSink& sink_;
  CallSiteRecorder* call_sites_;
  void (*flush_)() = nullptr;
  void (*context_created_)(CUcontext) = nullptr;
  std::atomic<uint64_t> recorded_{0};
  std::atomic<uint64_t> with_call_site_{0};
  std::atomic<uint64_t> reentrant_{0};
  std::atomic<uint64_t> unmatched_exits_{0};
  std::atomic<uint64_t> flushes_{0};
};

}  // namespace feedprof::cupti

#endif  // FEEDPROF_CUPTI_HOOKS_API_CALLBACKS_H_
