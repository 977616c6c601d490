// Reads batches of Kineto events on worker threads and hands them back in
// the order they were submitted.
//
// Why: the reader's thread cuts the traceEvents array into batches
// (trace_event_splitter.h) and maps events into the timeline, which must
// happen in file order; reading the events of a batch is independent of
// every other batch, so that part runs on as many cores as there are.
//
// A fixed ring of batches is allocated once and recycled. The owner's
// thread fills a free batch, submits it, and takes batches back oldest
// first. While it waits for the oldest, it reads queued batches itself, so
// the owner is never idle while work is queued, and with no worker threads
// everything still gets read.
//
// Threads: the owner calls every public method; workers only take queued
// batches and mark them read. `mutex_` guards the queues and states; a
// batch's contents belong to whoever holds it in state kFilling (the
// owner), kReading (one reader) or kRead (the owner again).
#ifndef FEEDPROF_LIB_SRC_KINETO_KINETO_EVENT_BATCH_PIPELINE_H_
#define FEEDPROF_LIB_SRC_KINETO_KINETO_EVENT_BATCH_PIPELINE_H_

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "kineto/kineto_event_batch.h"

namespace feedprof::kineto {

class KinetoEventBatchPipeline {
 public:
  // `batches` is raised to at least 2; 0 workers reads on the owner's
  // thread alone.
  KinetoEventBatchPipeline(size_t worker_threads, size_t batches);
  ~KinetoEventBatchPipeline();
  KinetoEventBatchPipeline(const KinetoEventBatchPipeline&) = delete;
  KinetoEventBatchPipeline& operator=(const KinetoEventBatchPipeline&) = delete;

  // A free batch, cleared, for the owner to fill; nullptr when every batch
  // is submitted or not yet released (take and release one first).
  KinetoEventBatch* TryAcquire();
  // Queues an acquired batch for reading.
  void Submit(KinetoEventBatch* batch);
  // The oldest submitted batch, read; nullptr when none is submitted, or
  // (without `wait`) when the oldest is not read yet. While waiting, reads
  // queued batches on the calling thread.
  KinetoEventBatch* TakeOldest(bool wait);
  // Returns a taken batch to the free ring.
  void Release(KinetoEventBatch* batch);

 private:
  enum class State : unsigned char {
    kFree,
    kFilling,
    kQueued,
    kReading,
    kRead
  };
  struct Slot {
    KinetoEventBatch batch;
    State state = State::kFree;
  };
  void Work();
  Slot* SlotOf(KinetoEventBatch* batch);

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

}  // namespace feedprof::kineto

#endif  // FEEDPROF_LIB_SRC_KINETO_KINETO_EVENT_BATCH_PIPELINE_H_
