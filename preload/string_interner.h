// Interned strings: text -> small id, written to the trace once per file.
//
// Names (NVTX messages, API and kernel names, thread names) repeat millions
// of times; events carry a 4-byte id instead and the writer emits an
// `InternedStrings` packet for each id before the first event that uses it.
// Lookups of known strings are lock-free (an open-addressing table of ids
// published with release stores); the first sight of a string takes `mutex_`
// (any producer thread, and the fork handlers) and copies the text into a
// fixed arena. Everything is bounded: a full table returns id 0 and counts a
// dropped string. Ids are dense and published in order, so the writer only
// needs to remember how many it has emitted.
#ifndef FEEDPROF_PRELOAD_STRING_INTERNER_H_
#define FEEDPROF_PRELOAD_STRING_INTERNER_H_

#include <pthread.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace feedprof::preload {

class StringInterner {
 public:
  // Longer strings are cut to this many bytes (mangled template names).
  static constexpr size_t kMaxStringBytes = 4096;

  // Maps memory for `max_strings` strings and `arena_bytes` of text. Returns
  // false when the memory cannot be mapped. Not thread-safe; call before
  // any Intern. Later calls keep the table (ids stay valid for the process).
  bool Init(uint32_t max_strings, size_t arena_bytes);

  // Returns the id of `text` (1..max), interning it on first sight; 0 for
  // empty text or when the table is full (counted in dropped()).
  uint32_t Intern(std::string_view text);

  // Number of ids published so far: ids 1..count() are readable.
  uint32_t count() const { return count_.load(std::memory_order_acquire); }

  // Text of a published id (1..count()).
  std::string_view Get(uint32_t id) const;

  uint64_t dropped() const { return dropped_.load(std::memory_order_relaxed); }

  // Fork support: the prepare handler locks, parent and child unlock (the
  // child re-initialises the mutex: its owner thread does not exist there).
  void LockForFork() { pthread_mutex_lock(&mutex_); }
  void UnlockAfterFork() { pthread_mutex_unlock(&mutex_); }
  void ResetMutexInChild() { pthread_mutex_init(&mutex_, nullptr); }

 private:
  struct Entry {
    uint64_t hash;
    uint32_t offset;
    uint32_t length;
  };

  uint32_t Find(std::string_view text, uint64_t hash) const;
  uint32_t InsertSlow(std::string_view text, uint64_t hash);

  pthread_mutex_t mutex_ = PTHREAD_MUTEX_INITIALIZER;
  std::atomic<uint32_t>* slots_ = nullptr;  // id per slot, 0 = empty
  uint32_t slot_mask_ = 0;
  Entry* entries_ = nullptr;  // indexed by id
  uint32_t max_strings_ = 0;
  char* arena_ = nullptr;
  size_t arena_bytes_ = 0;
  size_t arena_used_ = 0;  // guarded by mutex_
  std::atomic<uint32_t> count_{0};
  std::atomic<uint64_t> dropped_{0};
};

}  // namespace feedprof::preload

#endif  // FEEDPROF_PRELOAD_STRING_INTERNER_H_
