// Runs another ByteSource (gzip inflation, in practice) on a background
// thread, a few chunks ahead of the consumer.
//
// Why: inflating and tokenizing a large trace take similar time; doing them
// on two cores makes reading cost little more than inflating alone. Memory is
// bounded: a fixed ring of chunks is allocated once and reused.
//
// Threads: the producer thread calls `inner->Read`; the consumer calls
// `Read`. `mutex_` guards the chunk queues and flags and is taken by both.
// The inner source is touched only by the producer after construction (its
// atomic counters may be polled by anyone).
#ifndef FEEDPROF_LIB_SRC_KINETO_PREFETCHING_BYTE_SOURCE_H_
#define FEEDPROF_LIB_SRC_KINETO_PREFETCHING_BYTE_SOURCE_H_

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "kineto/byte_source.h"

namespace feedprof::kineto {

class PrefetchingByteSource : public ByteSource {
 public:
  // `inner` must outlive this object.
  explicit PrefetchingByteSource(ByteSource* inner,
                                 size_t chunk_bytes = 1 << 20,
                                 size_t chunks = 4);
  ~PrefetchingByteSource() override;
  PrefetchingByteSource(const PrefetchingByteSource&) = delete;
  PrefetchingByteSource& operator=(const PrefetchingByteSource&) = delete;

  size_t Read(char* out, size_t capacity) override;

 private:
  struct Chunk {
    std::vector<char> data;
    size_t size = 0;
  };
  void Produce();

  ByteSource* inner_;
  std::vector<Chunk> chunks_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<size_t> free_;     // guarded by mutex_
  std::deque<size_t> filled_;   // guarded by mutex_
  bool producer_done_ = false;  // guarded by mutex_
  bool stop_ = false;           // guarded by mutex_
  // Consumer-side only: the chunk being drained.
  size_t current_ = 0;
  size_t current_pos_ = 0;
  bool has_current_ = false;
  std::thread producer_;
};

}  // namespace feedprof::kineto

#endif  // FEEDPROF_LIB_SRC_KINETO_PREFETCHING_BYTE_SOURCE_H_
