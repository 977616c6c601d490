// The background thread that samples the host at a fixed rate.
//
// CPU-feeding problems show up in the host as threads busy in user code
// (preprocessing), threads blocked on disk (I/O), the whole machine short
// of CPU, or memory pressure. This thread records that evidence: every
// interval (default 10 ms) it collects one round (SampleCollector), appends
// it to the current HostSampleBatch packet, and hands the packet to a sink
// every flush interval (default 0.5 s) or when the packet buffer is full.
// A thread seen for the first time, or renamed, is also announced with a
// ThreadInfo packet.
//
// Sinks are function pointers so tests and benchmarks can capture packets
// without the recorder; host_sampler.cc wires them to SubmitPacket,
// InternString and CountDroppedSamples. All memory is allocated in Init();
// the thread allocates nothing afterwards. The thread blocks every signal
// (signals belong to the host's threads) and is named "feedprof-sample"
// ("feedprof-sampler" cut to the kernel's 15 bytes).
//
// Waking: the thread sleeps between rounds in ppoll on an eventfd, so that
// Stop() and RequestFlush() (which a signal handler may call: no locks)
// reach it at once. Start, Stop and RestartAfterFork must not race each
// other (the caller serializes).
//
// Descriptors: the thread opens /proc files while the program runs, so it
// first takes a descriptor table of its own (private_fd_table.h) holding
// only its eventfds and the collector's kept files; under a seccomp filter
// (which might kill the process for unshare) or where unshare is refused,
// it shares the program's table, opening only the stat files of new
// threads there.
#ifndef FEEDPROF_PRELOAD_HOST_HOST_SAMPLER_THREAD_H_
#define FEEDPROF_PRELOAD_HOST_HOST_SAMPLER_THREAD_H_

#include <pthread.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "preload/host/host_sample_batch_encoder.h"
#include "preload/host/sample_collector.h"
#include "preload/python/python_stack_sampler.h"
#include "preload/signal_safe_request.h"

namespace feedprof::preload::host {

// What the kernel keeps of the sampler thread's name.
inline constexpr char kSamplerThreadComm[] = "feedprof-sample";

struct SamplerSinks {
  // Receives one encoded Packet; false when it was not accepted (counted
  // as dropped samples).
  bool (*submit_packet)(const uint8_t* data, size_t size,
                        void* context) = nullptr;
  InternStringFn intern_string = nullptr;
  void (*count_dropped_samples)(uint64_t n, void* context) = nullptr;
  void* context = nullptr;
};

struct SamplerOptions {
  uint64_t interval_ns = 10000000;         // 100 Hz
  uint64_t flush_interval_ns = 500000000;  // a packet every 0.5 s
  size_t packet_bytes = 64 * 1024;
  CollectorOptions collector;
  // Python stacks are taken every this many rounds; 0: never.
  uint32_t python_stack_every_rounds = 1;
};

class HostSamplerThread {
 public:
  // Shortest interval accepted; shorter ones are raised to it.
  static constexpr uint64_t kMinIntervalNs = 1000000;

  HostSamplerThread();
  ~HostSamplerThread();
  HostSamplerThread(const HostSamplerThread&) = delete;
  HostSamplerThread& operator=(const HostSamplerThread&) = delete;

  // Allocates buffers and opens /proc. False with error() on failure.
  bool Init(const SamplerOptions& options, const SamplerSinks& sinks);
  const char* error() const { return error_; }

  // Starts the thread (Init first). False with error() on failure.
  bool Start();
  // Stops the thread: it takes a last round, submits the open batch and
  // exits. Idempotent.
  void Stop();
  bool running() const { return running_.load(std::memory_order_acquire); }

  // Async-signal-safe: asks the running thread to submit its open batch
  // now (after the round it may be in) and waits up to `timeout_ms`.
  // True when the batch was submitted in time; false when the thread is
  // not running or did not answer.
  bool RequestFlush(int timeout_ms);

  // In the child of a fork, where the thread no longer exists: forgets
  // the parent's threads and unsent samples and starts again if the
  // sampler was running at the fork. Returns whether it runs.
  bool RestartAfterFork();

  // Frees everything (Stop first).
  void Release();

  // One round, and the flush that may follow. Called by the thread; tests
  // and benchmarks call it directly on a sampler that is not started.
  void SampleRound();
  // Submits the open batch, if any.
  void FlushBatch();

  // Rounds taken since Init (readable from any thread).
  uint64_t rounds() const { return rounds_.load(std::memory_order_relaxed); }
  const SampleCollector& collector() const { return collector_; }
  const python::PythonStackSampler& python_stacks() const {
    return python_stacks_;
  }

 private:
  static void* ThreadMain(void* self);
  // Moves the thread to a descriptor table of its own, keeping the
  // eventfds and proc directories it uses (private_fd_table.h).
  void UsePrivateDescriptors();
  void Loop();
  template <typename Record, typename AddFn>
  void Append(const Record& record, AddFn add);
  void Drop(uint64_t n);

  SamplerOptions options_;
  SamplerSinks sinks_;
  const char* error_ = "";
  SampleCollector collector_;
  python::PythonStackSampler python_stacks_;
  python::ThreadStack* thread_stacks_ = nullptr;  // kMaxThreads
  bool python_stacks_on_ = false;
  uint8_t* packet_buf_ = nullptr;
  HostSampleBatchEncoder encoder_{nullptr, 0};
  uint64_t batch_start_ns_ = 0;
  std::atomic<uint64_t> rounds_{0};
  uint64_t skipped_reported_ = 0;

  // Sleeps until `deadline_ns` (CLOCK_MONOTONIC), serving flush requests
  // meanwhile; false when asked to stop.
  bool WaitUntil(uint64_t deadline_ns);
  void ServeFlushRequest();

  pthread_t thread_{};
  SignalSafeRequest flush_request_;  // its wake_fd also carries Stop()
  std::atomic<bool> stop_requested_{false};
  std::atomic<bool> running_{false};
  bool initialized_ = false;
  // The running thread opens files in a table of its own.
  std::atomic<bool> private_table_{false};
  // No seccomp filter: unshare cannot get the process killed.
  bool may_unshare_ = false;
};

}  // namespace feedprof::preload::host

#endif  // FEEDPROF_PRELOAD_HOST_HOST_SAMPLER_THREAD_H_
