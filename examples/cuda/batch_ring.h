// Batches prepared ahead of the loop that consumes them: the input pipeline
// of the fixed preprocessing_bound and io_bound examples (--fixed).
//
// Unfixed, those loops prepare each batch (decode it, read it from storage)
// on the launching thread's time, and the GPU waits. The fix moves the work
// off that thread: producer threads prepare batches 0, 1, 2, ... into a fixed
// set of slots (pinned buffers the caller owns), while the loop copies and
// computes the batch before. Batch b always goes to slot b % slots, which the
// batch `slots` earlier must have released first, so:
//   - the queue is bounded: at most `slots` batches are prepared ahead;
//   - the loop takes batches in order, even when producers finish out of
//     order;
//   - a producer never overwrites a slot the loop is still copying from.
//
// Threads: one mutex, `mutex_`, guards the counters. Producers take it to
// claim a batch and to publish it, the consuming thread to wait for a batch
// and to release its slot; the destructor to stop. Preparing a batch runs
// outside the lock.
//
// Plain host code (no CUDA), tested on the host in
// tests/examples/batch_ring_test.cc.
#ifndef FEEDPROF_EXAMPLES_CUDA_BATCH_RING_H_
#define FEEDPROF_EXAMPLES_CUDA_BATCH_RING_H_

#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace example {

class BatchRing {
 public:
  // Fills the slot `slot` with batch `batch`. Called on a producer thread.
  using PrepareFn = std::function<void(int batch, int slot)>;

  // Starts `producers` threads that prepare `batches` batches into `slots`
  // slots. More producers than slots leave some waiting; they are useful up
  // to `slots`.
  BatchRing(int batches, int slots, int producers, PrepareFn prepare)
      : batches_(batches),
        slots_(slots),
        prepare_(std::move(prepare)),
        ready_(static_cast<size_t>(slots), -1),
        free_for_(static_cast<size_t>(slots)) {
    // Slot s first takes batch s.
    for (int s = 0; s < slots_; ++s) free_for_[static_cast<size_t>(s)] = s;
    for (int p = 0; p < producers; ++p)
      threads_.emplace_back([this] { Produce(); });
  }

  BatchRing(const BatchRing&) = delete;
  BatchRing& operator=(const BatchRing&) = delete;

  // Stops the producers (a batch being prepared is finished first) and joins
  // them; batches not yet consumed are dropped.
  ~BatchRing() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    changed_.notify_all();
    for (std::thread& t : threads_) t.join();
  }

  // Waits until `batch` is prepared and returns its slot. Batches are
  // acquired in order, 0 first, each released before the one `slots` later
  // is acquired.
  int Acquire(int batch) {
    const int slot = batch % slots_;
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return ready_[Index(slot)] == batch; });
    return slot;
  }

  // The loop is done with `batch`: its slot may take batch + slots.
  void Release(int batch) {
    const int slot = batch % slots_;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ready_[Index(slot)] = -1;
      free_for_[Index(slot)] = batch + slots_;
    }
    changed_.notify_all();
  }

 private:
  static size_t Index(int slot) { return static_cast<size_t>(slot); }

  // One producer: claims the next batch, waits for its slot, prepares it,
  // publishes it; until every batch is claimed or the ring stops.
  void Produce() {
    for (;;) {
      int batch = 0;
      int slot = 0;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        if (stop_ || next_ >= batches_) return;
        batch = next_++;
        slot = batch % slots_;
        changed_.wait(lock,
                      [&] { return stop_ || free_for_[Index(slot)] == batch; });
        if (stop_) return;
      }
      prepare_(batch, slot);
      {
        std::lock_guard<std::mutex> lock(mutex_);
        ready_[Index(slot)] = batch;
      }
      changed_.notify_all();
    }
  }

  const int batches_;
  const int slots_;
  const PrepareFn prepare_;
  std::mutex mutex_;
  std::condition_variable changed_;
  int next_ = 0;               // the next batch a producer claims
  std::vector<int> ready_;     // per slot: the batch prepared in it, or -1
  std::vector<int> free_for_;  // per slot: the batch that may fill it next
  bool stop_ = false;
  std::vector<std::thread> threads_;  // started by the constructor's body
};

}  // namespace example

#endif  // FEEDPROF_EXAMPLES_CUDA_BATCH_RING_H_
