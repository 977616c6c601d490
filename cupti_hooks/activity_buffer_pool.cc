#include "cupti_hooks/activity_buffer_pool.h"

#include <cstdlib>

namespace feedprof::cupti {

ActivityBufferPool::~ActivityBufferPool() {
  // Only buffers CUPTI gave back are freed; ones still out are leaked on
  // purpose (the pool normally lives until process exit).
  for (size_t i = 0; i < free_count_; ++i) std::free(free_[i]);
}

void ActivityBufferPool::Configure(size_t buffer_bytes, size_t cap_bytes) {
  pthread_mutex_lock(&mutex_);
  if (buffer_bytes < 4096) buffer_bytes = 4096;
  buffer_bytes_ = (buffer_bytes + kAlignment - 1) / kAlignment * kAlignment;
  size_t buffers = cap_bytes / buffer_bytes_;
  if (buffers == 0) buffers = 1;
  if (buffers > kMaxBuffers) buffers = kMaxBuffers;
  max_buffers_ = buffers;
  pthread_mutex_unlock(&mutex_);
}

uint8_t* ActivityBufferPool::Acquire() {
  pthread_mutex_lock(&mutex_);
  uint8_t* buffer = nullptr;
  if (free_count_ > 0) {
    buffer = free_[--free_count_];
  } else if (allocated_ < max_buffers_) {
    buffer =
        static_cast<uint8_t*>(std::aligned_alloc(kAlignment, buffer_bytes_));
    if (buffer != nullptr) ++allocated_;
  }
  if (buffer == nullptr) ++refused_;
  pthread_mutex_unlock(&mutex_);
  return buffer;
}

void ActivityBufferPool::Release(uint8_t* buffer) {
  if (buffer == nullptr) return;
  pthread_mutex_lock(&mutex_);
  if (free_count_ < kMaxBuffers) {
    free_[free_count_++] = buffer;
    buffer = nullptr;
  }
  pthread_mutex_unlock(&mutex_);
  std::free(buffer);  // only when the free list is somehow full
}

uint64_t ActivityBufferPool::TakeRefusedCount() {
  pthread_mutex_lock(&mutex_);
  const uint64_t n = refused_;
  refused_ = 0;
  pthread_mutex_unlock(&mutex_);
  return n;
}

size_t ActivityBufferPool::allocated_buffers() {
  pthread_mutex_lock(&mutex_);
  const size_t n = allocated_;
  pthread_mutex_unlock(&mutex_);
  return n;
}

}  // namespace feedprof::cupti
