#include "preload/string_interner.h"

#include <sys/mman.h>

#include <cstring>

namespace feedprof::preload {
namespace {

uint64_t HashText(std::string_view text) {
  // FNV-1a, finished with a murmur mix so nearby names spread over slots.
  uint64_t h = 1469598103934665603ull;
  for (char c : text) {
    h ^= static_cast<uint8_t>(c);
    h *= 1099511628211ull;
  }
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  return h;
}

void* MapZeroed(size_t bytes) {
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return p == MAP_FAILED ? nullptr : p;
}

}  // namespace

bool StringInterner::Init(uint32_t max_strings, size_t arena_bytes) {
  if (slots_ != nullptr) return true;  // ids stay valid across restarts
  uint32_t slots = 1;
  while (slots < max_strings * 2) slots <<= 1;
  slots_ = static_cast<std::atomic<uint32_t>*>(
      MapZeroed(sizeof(std::atomic<uint32_t>) * slots));
  entries_ = static_cast<Entry*>(
      MapZeroed(sizeof(Entry) * (static_cast<size_t>(max_strings) + 1)));
  arena_ = static_cast<char*>(MapZeroed(arena_bytes));
  if (slots_ == nullptr || entries_ == nullptr || arena_ == nullptr) {
    return false;
  }
  slot_mask_ = slots - 1;
  max_strings_ = max_strings;
  arena_bytes_ = arena_bytes;
  arena_used_ = 0;
  count_.store(0, std::memory_order_relaxed);
  dropped_.store(0, std::memory_order_relaxed);
  return true;
}

uint32_t StringInterner::Find(std::string_view text, uint64_t hash) const {
  for (uint32_t i = static_cast<uint32_t>(hash) & slot_mask_;;
       i = (i + 1) & slot_mask_) {
    const uint32_t id = slots_[i].load(std::memory_order_acquire);
    if (id == 0) return 0;
    const Entry& e = entries_[id];
    if (e.hash == hash && e.length == text.size() &&
        std::memcmp(arena_ + e.offset, text.data(), text.size()) == 0) {
      return id;
    }
  }
}

uint32_t StringInterner::Intern(std::string_view text) {
  if (text.empty() || slots_ == nullptr) return 0;
  if (text.size() > kMaxStringBytes) text = text.substr(0, kMaxStringBytes);
  const uint64_t hash = HashText(text);
  if (const uint32_t id = Find(text, hash); id != 0) return id;
  return InsertSlow(text, hash);
}

__attribute__((noinline)) uint32_t StringInterner::InsertSlow(
    std::string_view text, uint64_t hash) {
  pthread_mutex_lock(&mutex_);
  uint32_t id = Find(text, hash);  // another thread may have added it
  if (id == 0) {
    const uint32_t next = count_.load(std::memory_order_relaxed) + 1;
    if (next > max_strings_ || arena_used_ + text.size() > arena_bytes_) {
      dropped_.fetch_add(1, std::memory_order_relaxed);
    } else {
      std::memcpy(arena_ + arena_used_, text.data(), text.size());
      entries_[next] = Entry{hash, static_cast<uint32_t>(arena_used_),
                             static_cast<uint32_t>(text.size())};
      arena_used_ += text.size();
      uint32_t i = static_cast<uint32_t>(hash) & slot_mask_;
      while (slots_[i].load(std::memory_order_relaxed) != 0) {
        i = (i + 1) & slot_mask_;
      }
      // Entry and text first, then the count (the writer reads ids up to
      // it), then the slot (lookups find the id through it).
      count_.store(next, std::memory_order_release);
      slots_[i].store(next, std::memory_order_release);
      id = next;
    }
  }
  pthread_mutex_unlock(&mutex_);
  return id;
}

std::string_view StringInterner::Get(uint32_t id) const {
  if (id == 0 || id > count()) return {};
  const Entry& e = entries_[id];
  return std::string_view(arena_ + e.offset, e.length);
}

}  // namespace feedprof::preload
