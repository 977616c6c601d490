// State shared by the recording threads (recorder.cc) and the writer thread
// (trace_writer.cc). One instance per process, constant-initialised so it is
// usable from the first constructor and never destroyed.
#ifndef FEEDPROF_PRELOAD_RECORDER_STATE_H_
#define FEEDPROF_PRELOAD_RECORDER_STATE_H_

#include <atomic>
#include <cstdint>

#include "preload/config.h"
#include "preload/packet_queue.h"
#include "preload/process_facts.h"
#include "preload/session_dir.h"
#include "preload/string_interner.h"
#include "preload/thread_buffer.h"

namespace feedprof::preload {

struct RecorderState {
  // Nonzero while recording: the hot path's one global load. Each start
  // (and each fork child) takes a new epoch, so chunk pointers cached in
  // thread-local state from an earlier epoch are recognised as stale.
  std::atomic<uint32_t> epoch{0};
  uint32_t last_epoch = 0;

  ChunkPool pool;
  StringInterner strings;
  PacketQueue packets;

  std::atomic<uint64_t> events_dropped{0};
  std::atomic<uint64_t> samples_dropped{0};
  std::atomic<uint64_t> cupti_records_dropped{0};
  std::atomic<uint64_t> zero_timestamp_records{0};
  std::atomic<uint64_t> cupti_buffers_dropped{0};
  std::atomic<bool> uses_gpu{false};
  // Called by the writer thread before each periodic flush; see
  // SetPeriodicFlushHook in recorder_control.h.
  std::atomic<void (*)()> periodic_flush_hook{nullptr};

  // Written before the writer starts; `session` then gains only what
  // EnsureSessionDir sets on the writer thread (exists, leaf, used_path).
  Config config;
  ProcessFacts facts;
  SessionDir session;
};

RecorderState& State();

}  // namespace feedprof::preload

#endif  // FEEDPROF_PRELOAD_RECORDER_STATE_H_
