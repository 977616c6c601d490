// The activity buffers CUPTI fills: pooled, with a cap on their total size.
//
// CUPTI asks for a buffer whenever it needs room for records and hands it
// back, full or flushed, on the buffer-completed callback. Allocating a
// fresh buffer each time would put malloc of megabytes on CUPTI's hot path
// and let a process that produces records faster than we drain them grow
// without bound. The pool reuses returned buffers and stops at a cap: past
// it, CUPTI gets no buffer (it then drops records and counts them) and the
// pool counts the refused request. A buffer is reused only after the
// completion path is done with it, so nothing CUPTI still reads is touched.
//
// Lock: `mutex_` is taken by whatever thread CUPTI requests or returns a
// buffer on; nothing is called while it is held.
#ifndef FEEDPROF_CUPTI_HOOKS_ACTIVITY_BUFFER_POOL_H_
#define FEEDPROF_CUPTI_HOOKS_ACTIVITY_BUFFER_POOL_H_

#include <pthread.h>

#include <cstddef>
#include <cstdint>

namespace feedprof::cupti {

class ActivityBufferPool {
 public:
  static constexpr size_t kDefaultBufferBytes = size_t{8} << 20;
  static constexpr size_t kDefaultCapBytes = size_t{64} << 20;
  static constexpr size_t kMaxBuffers = 256;
  // CUPTI requires 8-byte alignment of activity buffers.
  static constexpr size_t kAlignment = 8;

  ActivityBufferPool() = default;
  ~ActivityBufferPool();
  ActivityBufferPool(const ActivityBufferPool&) = delete;
  ActivityBufferPool& operator=(const ActivityBufferPool&) = delete;

  // Buffer size and total cap; call before the first Acquire. The cap is
  // rounded down to whole buffers, at least one.
  void Configure(size_t buffer_bytes, size_t cap_bytes);

  // A buffer of buffer_bytes(), or null when the cap is reached (counted).
  uint8_t* Acquire();
  // Returns a buffer obtained from Acquire.
  void Release(uint8_t* buffer);

  // Refused requests since the last call.
  uint64_t TakeRefusedCount();

  size_t buffer_bytes() const { return buffer_bytes_; }
  size_t max_buffers() const { return max_buffers_; }
  // Buffers allocated so far (in use or free).
  size_t allocated_buffers();

 private:
  pthread_mutex_t mutex_ = PTHREAD_MUTEX_INITIALIZER;
  size_t buffer_bytes_ = kDefaultBufferBytes;
  size_t max_buffers_ = kDefaultCapBytes / kDefaultBufferBytes;
  size_t allocated_ = 0;
  size_t free_count_ = 0;
  uint64_t refused_ = 0;
  uint8_t* free_[kMaxBuffers] = {};
};

}  // namespace feedprof::cupti

#endif  // FEEDPROF_CUPTI_HOOKS_ACTIVITY_BUFFER_POOL_H_
