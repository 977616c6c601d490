// Bounded queue of pre-encoded packets on their way to the writer thread.
//
// Producers that batch on their own (the host sampler, CUPTI buffer
// completion) encode whole `Packet` messages and hand them over here. Two
// fixed arenas alternate: producers append to the front one under `mutex_`
// (producer threads, the writer when it swaps, the fork handlers), the
// writer swaps them and reads the back one without the lock. A packet that
// does not fit is dropped and counted; memory never grows.
#ifndef FEEDPROF_PRELOAD_PACKET_QUEUE_H_
#define FEEDPROF_PRELOAD_PACKET_QUEUE_H_

#include <pthread.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace feedprof::preload {

class PacketQueue {
 public:
  // Maps two arenas of `bytes_per_arena` each. False when that fails.
  bool Init(size_t bytes_per_arena);

  // Copies one packet in. False (and a drop counted) when it does not fit.
  bool Push(const uint8_t* packet, size_t size);

  // Writer only: takes everything queued so far and calls
  // `fn(context, packet, size)` for each packet, oldest first.
  using Visitor = void (*)(void* context, const uint8_t* packet, size_t size);
  size_t Drain(Visitor fn, void* context);

  // Forgets queued packets (fork child).
  void Clear();

  uint64_t dropped() const { return dropped_.load(std::memory_order_relaxed); }
  void ResetDropped() { dropped_.store(0, std::memory_order_relaxed); }

  void LockForFork() { pthread_mutex_lock(&mutex_); }
  void UnlockAfterFork() { pthread_mutex_unlock(&mutex_); }
  void ResetMutexInChild() { pthread_mutex_init(&mutex_, nullptr); }

 private:
  pthread_mutex_t mutex_ = PTHREAD_MUTEX_INITIALIZER;
  uint8_t* arenas_[2] = {nullptr, nullptr};
  size_t capacity_ = 0;
  int front_ = 0;          // guarded by mutex_
  size_t front_used_ = 0;  // guarded by mutex_
  std::atomic<uint64_t> dropped_{0};
};

}  // namespace feedprof::preload

#endif  // FEEDPROF_PRELOAD_PACKET_QUEUE_H_
