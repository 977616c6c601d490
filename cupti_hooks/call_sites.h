// Where blocking CUDA calls come from: capture, interning, CallSites packets.
//
// A sync point is only actionable with the line that caused it. At the
// entry of a blocking call the recorder captures the caller's stack: the
// innermost Python frames when the thread runs Python code (python_frames.h),
// else native return addresses (_Unwind_Backtrace, which needs no frame
// pointers). The raw frames are hashed; a call site seen before costs that
// capture, the hash and one lock-free probe of a fixed table, and yields its
// id. A new one is resolved once (Python file/function names, or module and
// symbol via dladdr, skipping frames inside CUDA, CUPTI and this library),
// interned, and announced in a CallSites packet before its id is used.
// Each native module a frame points into is announced once, in the packet
// of its first frame, with its GNU build id read from memory
// (module_build_id.h), so the analysis can symbolize against the same file.
//
// Lock: `mutex_` serializes registration of new call sites (any thread that
// makes a blocking CUDA call); lookups never take it.
#ifndef FEEDPROF_CUPTI_HOOKS_CALL_SITES_H_
#define FEEDPROF_CUPTI_HOOKS_CALL_SITES_H_

#include <pthread.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "cupti_hooks/python_frames.h"
#include "cupti_hooks/recorder_sink.h"

namespace feedprof::cupti {

struct RawCallSite {
  static constexpr uint32_t kMaxFrames = 24;
  bool python = false;
  uint32_t count = 0;
  uint64_t address[kMaxFrames];   // return address, or Python code object
  uint32_t offset[kMaxFrames];    // Python: bytecode offset of the frame
  uint64_t identity[kMaxFrames];  // Python: tells reused addresses apart
};

class CallSiteRecorder {
 public:
  static constexpr size_t kTableSlots = 8192;  // power of two
  // Native frames written per call site (Python ones: all captured).
  static constexpr uint32_t kMaxReportedFrames = 8;
  static constexpr size_t kMaxModules = 512;  // announced with a build id

  explicit CallSiteRecorder(const RecorderSink& sink) : sink_(sink) {}
  CallSiteRecorder(const CallSiteRecorder&) = delete;
  CallSiteRecorder& operator=(const CallSiteRecorder&) = delete;

  // Python frames are used only when this is on (and Python is running).
  void set_python_enabled(bool enabled) { python_enabled_ = enabled; }

  // Captures the calling thread's call site and returns its id (0 when no
  // frame could be taken or the table is full).
  uint32_t CaptureAndIntern();

  // The steps of CaptureAndIntern, for tests and benchmarks.
  void Capture(RawCallSite* site);
  uint32_t Intern(const RawCallSite& site);
  static uint64_t Hash(const RawCallSite& site);

  uint32_t call_sites() const {
    return next_id_.load(std::memory_order_relaxed) - 1;
  }
  uint64_t table_full_count() const {
    return table_full_.load(std::memory_order_relaxed);
  }

 private:
  struct Slot {
    std::atomic<uint64_t> hash{0};  // 0: empty; published last
    uint32_t id = 0;
  };

  uint32_t Register(const RawCallSite& site, uint64_t hash);
  bool EmitPacket(const RawCallSite& site, uint32_t id);
  bool ModuleAnnounced(uintptr_t base) const;

  const RecorderSink& sink_;
  PythonFrames python_;
  bool python_enabled_ = true;
  pthread_mutex_t mutex_ = PTHREAD_MUTEX_INITIALIZER;
  std::atomic<uint32_t> next_id_{1};
  std::atomic<uint64_t> table_full_{0};
  Slot table_[kTableSlots];
  // Load bases (dli_fbase) of the modules announced so far, under mutex_.
  // Past kMaxModules, further modules go unannounced (their frames are
  // still written; the analysis then cannot check their build id).
  uintptr_t modules_[kMaxModules] = {};
  uint32_t module_count_ = 0;
};

}  // namespace feedprof::cupti

#endif  // FEEDPROF_CUPTI_HOOKS_CALL_SITES_H_
