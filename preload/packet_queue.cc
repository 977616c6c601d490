#include "preload/packet_queue.h"

#include <sys/mman.h>

#include <cstring>

namespace feedprof::preload {
namespace {

constexpr size_t kLengthBytes = sizeof(uint32_t);

}  // namespace

bool PacketQueue::Init(size_t bytes_per_arena) {
  if (arenas_[0] != nullptr && capacity_ == bytes_per_arena) {
    Clear();
    return true;
  }
  void* p = mmap(nullptr, 2 * bytes_per_arena, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return false;
  pthread_mutex_lock(&mutex_);
  arenas_[0] = static_cast<uint8_t*>(p);
  arenas_[1] = arenas_[0] + bytes_per_arena;
  capacity_ = bytes_per_arena;
  front_ = 0;
  front_used_ = 0;
  pthread_mutex_unlock(&mutex_);
  dropped_.store(0, std::memory_order_relaxed);
  return true;
}

bool PacketQueue::Push(const uint8_t* packet, size_t size) {
  bool ok = false;
  pthread_mutex_lock(&mutex_);
  if (arenas_[0] != nullptr && size <= UINT32_MAX &&
      front_used_ + kLengthBytes + size <= capacity_) {
    uint8_t* dst = arenas_[front_] + front_used_;
    const uint32_t len = static_cast<uint32_t>(size);
    std::memcpy(dst, &len, kLengthBytes);
    std::memcpy(dst + kLengthBytes, packet, size);
    front_used_ += kLengthBytes + size;
    ok = true;
  }
  pthread_mutex_unlock(&mutex_);
  if (!ok) dropped_.fetch_add(1, std::memory_order_relaxed);
  return ok;
}

size_t PacketQueue::Drain(Visitor fn, void* context) {
  pthread_mutex_lock(&mutex_);
  const uint8_t* arena = arenas_[front_];
  const size_t used = front_used_;
  front_ ^= 1;
  front_used_ = 0;
  pthread_mutex_unlock(&mutex_);
  size_t packets = 0;
  for (size_t off = 0; off + kLengthBytes <= used;) {
    uint32_t len;
    std::memcpy(&len, arena + off, kLengthBytes);
    fn(context, arena + off + kLengthBytes, len);
    off += kLengthBytes + len;
    ++packets;
  }
  return packets;
}

void PacketQueue::Clear() {
  pthread_mutex_lock(&mutex_);
  front_used_ = 0;
  pthread_mutex_unlock(&mutex_);
}

}  // namespace feedprof::preload
