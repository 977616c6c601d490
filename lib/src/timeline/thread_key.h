// One 64-bit key for a (pid, tid) pair, or a (pid, device) pair.
//
// Readers and passes index per-thread state in hash maps and sorted
// vectors; packing the two ids into one integer keeps those keys cheap to
// hash and compare, and one definition keeps every such key the same.
#ifndef FEEDPROF_TIMELINE_THREAD_KEY_H_
#define FEEDPROF_TIMELINE_THREAD_KEY_H_

#include <cstdint>

namespace feedprof::timeline {

inline uint64_t ThreadKey(int32_t pid, int32_t tid) {
  return (static_cast<uint64_t>(static_cast<uint32_t>(pid)) << 32) |
         static_cast<uint32_t>(tid);
}

}  // namespace feedprof::timeline

#endif  // FEEDPROF_TIMELINE_THREAD_KEY_H_
