// Reads batches of work on worker threads and hands them back in the order
// they were submitted.
//
// Why: a reader cuts its input into batches on its own thread and must apply
// what was read in file order (Kineto events are mapped in order, feedprof
// packets change the builder's state in order); reading the contents of a
// batch is independent of every other batch, so that part runs on as many
// cores as there are. The Kineto reader (JSON event text) and the feedprof
// reader (EventBatch packets) share this one pipeline.
//
// A fixed ring of batches is allocated once and recycled. The owner's
// thread fills a free batch, submits it, and takes batches back oldest
// first. While it waits for the oldest, it reads queued batches itself, so
// the owner is never idle while work is queued, and with no worker threads
// everything still gets read.
//
// `Batch` needs a `Clear()` that empties it for reuse (keeping capacity);
// the read function fills in its results.
//
// Threads: the owner calls every public method; workers only take queued
// batches and mark them read. `mutex_` guards the queues and states; a
// batch's contents belong to whoever holds it in state kFilling (the
// owner), kReading (one reader) or kRead (the owner again).
#ifndef FEEDPROF_COMMON_ORDERED_BATCH_PIPELINE_H_
#define FEEDPROF_COMMON_ORDERED_BATCH_PIPELINE_H_

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace feedprof::common {

template <typename Batch>
class OrderedBatchPipeline {
 public:
  using ReadFunction = void (*)(Batch*);

  // `batches` is raised to at least 2; 0 workers reads on the owner's
  // thread alone. `read` is called on one batch at a time per thread.
  OrderedBatchPipeline(ReadFunction read, size_t worker_threads, size_t batches)
      : read_(read) {
    if (batches < 2) batches = 2;
    for (size_t i = 0; i < batches; ++i) {
      slots_.push_back(std::make_unique<Slot>());
      free_.push_back(slots_.back().get());
    }
    for (size_t i = 0; i < worker_threads; ++i) {
      workers_.emplace_back([this] { Work(); });
    }
  }
  ~OrderedBatchPipeline() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    queued_changed_.notify_all();
    for (std::thread& worker : workers_) worker.join();
  }
  OrderedBatchPipeline(const OrderedBatchPipeline&) = delete;
  OrderedBatchPipeline& operator=(const OrderedBatchPipeline&) = delete;

  // A free batch, cleared, for the owner to fill; nullptr when every batch
  // is submitted or not yet released (take and release one first).
  Batch* TryAcquire() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (free_.empty()) return nullptr;
    Slot* slot = free_.front();
    free_.pop_front();
    slot->state = State::kFilling;
    slot->batch.Clear();
    return &slot->batch;
  }
  // Queues an acquired batch for reading.
  void Submit(Batch* batch) {
    Slot* slot = SlotOf(batch);
    submitted_.push_back(slot);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      slot->state = State::kQueued;
      queued_.push_back(slot);
    }
    queued_changed_.notify_one();
  }
  // The oldest submitted batch, read; nullptr when none is submitted, or
  // (without `wait`) when the oldest is not read yet. While waiting, reads
  // queued batches on the calling thread.
  Batch* TakeOldest(bool wait) {
    if (submitted_.empty()) return nullptr;
    Slot* oldest = submitted_.front();
    std::unique_lock<std::mutex> lock(mutex_);
    while (oldest->state != State::kRead) {
      if (!wait) return nullptr;
      if (!queued_.empty()) {
        // Read the oldest queued batch here rather than wait idle.
        Slot* slot = queued_.front();
        queued_.pop_front();
        slot->state = State::kReading;
        lock.unlock();
        read_(&slot->batch);
        lock.lock();
        slot->state = State::kRead;
        continue;
      }
      read_changed_.wait(lock);
    }
    submitted_.pop_front();
    return &oldest->batch;
  }
  // Returns a taken batch to the free ring.
  void Release(Batch* batch) {
    Slot* slot = SlotOf(batch);
    std::lock_guard<std::mutex> lock(mutex_);
    slot->state = State::kFree;
    free_.push_back(slot);
  }
  // Batches submitted and not yet taken back.
  size_t submitted() const { return submitted_.size(); }

 private:
  enum class State : unsigned char {
    kFree,
    kFilling,
    kQueued,
    kReading,
    kRead
  };
  struct Slot {
    Batch batch;
    State state = State::kFree;
  };

  void Work() {
    for (;;) {
      Slot* slot = nullptr;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        queued_changed_.wait(lock,
                             [this] { return stop_ || !queued_.empty(); });
        if (stop_) return;
        slot = queued_.front();
        queued_.pop_front();
        slot->state = State::kReading;
      }
      read_(&slot->batch);
      {
        std::lock_guard<std::mutex> lock(mutex_);
        slot->state = State::kRead;
      }
      read_changed_.notify_all();
    }
  }
  Slot* SlotOf(Batch* batch) {
    for (const std::unique_ptr<Slot>& slot : slots_) {
      if (&slot->batch == batch) return slot.get();
    }
    return nullptr;  // not one of ours: a caller's bug
  }

  ReadFunction read_;
  std::vector<std::unique_ptr<Slot>> slots_;
  std::mutex mutex_;
  std::condition_variable queued_changed_;  // workers wait on it
  std::condition_variable read_changed_;    // the owner waits on it
  std::deque<Slot*> free_;                  // guarded by mutex_
  std::deque<Slot*> queued_;                // guarded by mutex_
  std::deque<Slot*> submitted_;  // in order; touched by the owner only
  bool stop_ = false;            // guarded by mutex_
  std::vector<std::thread> workers_;
};

}  // namespace feedprof::common

#endif  // FEEDPROF_COMMON_ORDERED_BATCH_PIPELINE_H_
