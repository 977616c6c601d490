// Per-thread event buffers: fixed-size chunks of EventRecord from one
// bounded pool.
//
// Each recording thread owns one active chunk and appends to it without
// locks: it writes the slot, then publishes it with a release store of
// `committed`. The writer thread reads up to `committed` and remembers how
// far it got in `drained`. A full chunk is retired and the thread takes a
// free one from the pool (out of line, a scan with compare-and-swap); when
// the pool is exhausted (the buffer cap, FEEDPROF_BUFFER_MB) the event is
// dropped and counted. The writer frees a retired chunk once it has drained
// it. Chunks live in one anonymous mapping: untouched chunks cost no memory,
// and the mapping is never unmapped while the process runs, so a late
// append after shutdown writes into valid memory.
#ifndef FEEDPROF_PRELOAD_THREAD_BUFFER_H_
#define FEEDPROF_PRELOAD_THREAD_BUFFER_H_

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "preload/event_records.h"

namespace feedprof::preload {

inline constexpr uint32_t kChunkRecords = 511;

enum class ChunkState : uint32_t {
  kFree = 0,
  kActive = 1,   // owned by a recording thread
  kRetired = 2,  // full or its thread exited; waits for the writer
};

struct alignas(64) EventChunk {
  std::atomic<uint32_t> state{0};
  std::atomic<uint32_t> committed{0};  // written by the owning thread only
  uint32_t drained = 0;                // written by the writer only
  uint32_t tid = 0;
  // The owner's name when it took the chunk (prctl PR_GET_NAME): the writer
  // must not open /proc files at run time (see private_fd.h).
  char thread_name[16] = {};
  EventRecord records[kChunkRecords];
};

class ChunkPool {
 public:
  // Maps room for as many chunks as fit in `bytes` (at least 2). Returns
  // false when the mapping fails.
  bool Init(size_t bytes);

  // Takes a free chunk for thread `tid` named `thread_name` (up to 15
  // characters); nullptr when none is free.
  EventChunk* Acquire(uint32_t tid, const char* thread_name);

  // The owning thread is done with `chunk` (full, or the thread exits).
  static void Retire(EventChunk* chunk) {
    chunk->state.store(static_cast<uint32_t>(ChunkState::kRetired),
                       std::memory_order_release);
  }

  // Writer only: returns a drained retired chunk to the pool.
  void Release(EventChunk* chunk);

  // Frees every chunk (fork child: the inherited buffers belong to the
  // parent's trace; no other thread exists).
  void ResetAll();

  size_t chunk_count() const { return chunk_count_; }
  EventChunk* chunk(size_t i) const { return chunks_ + i; }
  // Chunks [0, touched()) may have been handed out; the others never were
  // (Acquire takes them in index order) and are free. Walking only these
  // keeps a process that records little from faulting in every chunk's
  // page: thousands of page faults at its first drain, and in a fork child
  // a private copy of each (ResetAll).
  size_t touched() const { return touched_.load(std::memory_order_acquire); }
  size_t free_chunks() const {
    return static_cast<size_t>(free_count_.load(std::memory_order_relaxed));
  }

 private:
  EventChunk* chunks_ = nullptr;
  size_t chunk_count_ = 0;
  size_t mapped_bytes_ = 0;
  std::atomic<int64_t> free_count_{0};
  std::atomic<size_t> next_hint_{0};
  std::atomic<size_t> touched_{0};
};

}  // namespace feedprof::preload

#endif  // FEEDPROF_PRELOAD_THREAD_BUFFER_H_
