#include "preload/thread_buffer.h"

#include <sys/mman.h>

#include <cstring>

namespace feedprof::preload {

bool ChunkPool::Init(size_t bytes) {
  size_t count = bytes / sizeof(EventChunk);
  if (count < 2) count = 2;
  const size_t needed = count * sizeof(EventChunk);
  if (chunks_ != nullptr && mapped_bytes_ == needed) {
    ResetAll();
    return true;
  }
  // An earlier mapping of another size stays mapped: a thread of an earlier
  // recording may still hold a pointer into it.
  void* p = mmap(nullptr, needed, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return false;
  chunks_ = static_cast<EventChunk*>(p);
  chunk_count_ = count;
  mapped_bytes_ = needed;
  free_count_.store(static_cast<int64_t>(count), std::memory_order_relaxed);
  next_hint_.store(0, std::memory_order_relaxed);
  touched_.store(0, std::memory_order_relaxed);
  return true;
}

EventChunk* ChunkPool::Acquire(uint32_t tid, const char* thread_name) {
  if (free_count_.load(std::memory_order_relaxed) <= 0) return nullptr;
  const size_t start = next_hint_.load(std::memory_order_relaxed);
  for (size_t n = 0; n < chunk_count_; ++n) {
    EventChunk* c = chunks_ + (start + n) % chunk_count_;
    uint32_t expected = static_cast<uint32_t>(ChunkState::kFree);
    if (c->state.load(std::memory_order_relaxed) != expected) continue;
    // Claim it in a state the writer skips, fill it in, then activate.
    if (!c->state.compare_exchange_strong(
            expected, static_cast<uint32_t>(ChunkState::kRetired) + 1,
            std::memory_order_acquire)) {
      continue;
    }
    free_count_.fetch_sub(1, std::memory_order_relaxed);
    const size_t index = (start + n) % chunk_count_;
    next_hint_.store((index + 1) % chunk_count_, std::memory_order_relaxed);
    // Published before the chunk is active, so a drain that sees it active
    // also walks it.
    size_t seen = touched_.load(std::memory_order_relaxed);
    while (seen < index + 1 && !touched_.compare_exchange_weak(
                                   seen, index + 1, std::memory_order_release,
                                   std::memory_order_relaxed)) {
    }
    c->tid = tid;
    std::strncpy(c->thread_name, thread_name, sizeof c->thread_name - 1);
    c->thread_name[sizeof c->thread_name - 1] = '\0';
    c->drained = 0;
    c->committed.store(0, std::memory_order_relaxed);
    c->state.store(static_cast<uint32_t>(ChunkState::kActive),
                   std::memory_order_release);
    return c;
  }
  return nullptr;
}

void ChunkPool::Release(EventChunk* chunk) {
  chunk->committed.store(0, std::memory_order_relaxed);
  chunk->drained = 0;
  chunk->state.store(static_cast<uint32_t>(ChunkState::kFree),
                     std::memory_order_release);
  free_count_.fetch_add(1, std::memory_order_relaxed);
}

void ChunkPool::ResetAll() {
  const size_t touched = touched_.load(std::memory_order_relaxed);
  for (size_t i = 0; i < touched; ++i) {
    chunks_[i].committed.store(0, std::memory_order_relaxed);
    chunks_[i].drained = 0;
    chunks_[i].state.store(static_cast<uint32_t>(ChunkState::kFree),
                           std::memory_order_relaxed);
  }
  free_count_.store(static_cast<int64_t>(chunk_count_),
                    std::memory_order_relaxed);
  next_hint_.store(0, std::memory_order_relaxed);
  touched_.store(0, std::memory_order_relaxed);
}

}  // namespace feedprof::preload
