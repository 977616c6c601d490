// The writer thread: drains per-thread chunks and queued packets into the
// trace file.
//
// One background thread does all encoding and I/O, so recording threads
// never block on disk. Every tick (at most 50 ms apart) it drains what was
// recorded into a scratch buffer; it writes the buffer out when it fills, on
// every flush interval (FEEDPROF_FLUSH_INTERVAL_MS), on FlushNow, on a
// signal and at the end. Strings are emitted before the events that use
// them: a chunk's `committed` count is read before the interned-string
// count, and every id in a published record was published before it.
//
// Threads: the writer thread runs Run(); Flush and Stop are called from
// other threads; SignalFlush and ExitFlush from signal handlers and _exit
// (only atomics, write(2) and poll(2)). `mutex_` guards the flush handshake
// (flush_done_) and is taken by Flush callers and the writer.
#ifndef FEEDPROF_PRELOAD_TRACE_WRITER_H_
#define FEEDPROF_PRELOAD_TRACE_WRITER_H_

#include <pthread.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "preload/signal_safe_request.h"
#include "preload/trace_file.h"
#include "preload/trace_packets.h"
#include "preload/wire_writer.h"

namespace feedprof::preload {

struct WriterResult {
  bool file_written = false;
  bool discarded = false;
  bool failed = false;
  uint64_t events = 0;   // host events and GPU records written
  uint64_t samples = 0;  // host samples and counter samples written
  char path[PATH_MAX] = {};
};

class TraceWriter {
 public:
  // Starts the writer thread for the process described by State(). False
  // (after one message) when the thread or its buffers cannot be created.
  bool Start();

  // Writes everything recorded so far to the file (creating it) and waits
  // up to `timeout_ms`. No-op on the writer thread itself.
  void Flush(int timeout_ms);

  // Called by a recording thread that took a chunk from a pool more than
  // half used: wakes the writer to drain now rather than at its next tick.
  // One eventfd write per drain cycle at most.
  void RequestEarlyDrain() {
    if (!drain_requested_.exchange(true, std::memory_order_relaxed)) Wake();
  }

  // Async-signal-safe flush request; see RecorderSignalFlush.
  bool SignalFlush(int signal_number, bool final_flush, int timeout_ms);

  // Async-signal-safe: the process ends with _exit. The writer finishes
  // the trace as at exit (footer "exit"; a trivial process's file removed)
  // and writes nothing more; waits up to `timeout_ms`. The thread is not
  // stopped: _exit ends it. True when the writer finished in time.
  bool ExitFlush(int timeout_ms);

  // Final flush with a footer, then the thread exits; waits up to
  // `timeout_ms` for it.
  void Stop(const char* reason, int timeout_ms, WriterResult* result);

  // Fork support. The child forgets the parent's thread, file and
  // descriptors; Start() then begins the child's own file.
  void PrepareFork() { pthread_mutex_lock(&mutex_); }
  void ParentAfterFork() { pthread_mutex_unlock(&mutex_); }
  void ChildAfterFork();

  bool running() const { return running_.load(std::memory_order_acquire); }
  uint64_t events_written() const {
    return events_written_.load(std::memory_order_relaxed);
  }

 private:
  static void* ThreadMain(void* self);
  void Run();
  void Drain();
  void DrainChunks();
  void AppendPacket(const uint8_t* packet, size_t size);
  void EmitNewStrings();
  bool MarkTidSeen(uint32_t tid);  // true when `tid` was not seen before
  void EmitThreadInfo(uint32_t tid, const char* name);
  void AppendStatusPackets();
  void AppendFooter(const char* reason, int signal_number);
  void FinishTrace(const char* reason);
  void CallPeriodicFlushHook();
  bool EnsureRoom(size_t bytes);
  void WriteOut();
  void DisableAfterFailure();
  bool ProcessIsTrivial() const;
  void Wake();

  pthread_t thread_{};
  std::atomic<bool> running_{false};
  // Its wake-up eventfd also carries Wake(); signal flushes are its
  // requests.
  SignalSafeRequest signal_flush_;

  pthread_mutex_t mutex_ = PTHREAD_MUTEX_INITIALIZER;
  pthread_cond_t flushed_ = PTHREAD_COND_INITIALIZER;
  std::atomic<uint64_t> flush_requested_{0};
  uint64_t flush_done_ = 0;  // guarded by mutex_

  std::atomic<int> final_signal_{0};
  std::atomic<bool> stop_requested_{false};
  std::atomic<bool> exit_requested_{false};  // by ExitFlush
  std::atomic<bool> drain_requested_{false};
  const char* stop_reason_ = "exit";

  // Writer-thread state.
  uint8_t* scratch_ = nullptr;
  size_t scratch_size_ = 0;
  uint8_t* header_ = nullptr;
  size_t header_capacity_ = 0;
  wire::WireWriter out_{nullptr, 0};
  TraceFile file_;
  bool ended_ = false;  // a final footer was written
  uint32_t strings_emitted_ = 0;
  uint32_t* seen_tids_ = nullptr;  // open addressing, 0 = empty
  std::atomic<uint64_t> events_written_{0};
  // Items of the producers' packets (CUPTI batches; host and counter
  // samples) written, for the summary line. Writer thread only.
  uint64_t packet_events_written_ = 0;
  uint64_t samples_written_ = 0;
  DropTotals last_status_;  // bytes_written left 0
  bool has_last_status_ = false;
  WriterResult result_;
};

TraceWriter& Writer();

}  // namespace feedprof::preload

#endif  // FEEDPROF_PRELOAD_TRACE_WRITER_H_
