#include "kineto/kineto_event_batch_pipeline.h"

namespace feedprof::kineto {

KinetoEventBatchPipeline::KinetoEventBatchPipeline(size_t worker_threads,
                                                   size_t batches) {
  if (batches < 2) batches = 2;
  for (size_t i = 0; i < batches; ++i) {
    slots_.push_back(std::make_unique<Slot>());
    free_.push_back(slots_.back().get());
  }
  for (size_t i = 0; i < worker_threads; ++i) {
    workers_.emplace_back([this] { Work(); });
  }
}

KinetoEventBatchPipeline::~KinetoEventBatchPipeline() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  queued_changed_.notify_all();
  for (std::thread& worker : workers_) worker.join();
}

KinetoEventBatchPipeline::Slot* KinetoEventBatchPipeline::SlotOf(
    KinetoEventBatch* batch) {
  for (const std::unique_ptr<Slot>& slot : slots_) {
    if (&slot->batch == batch) return slot.get();
  }
  return nullptr;  // not one of ours: a caller's bug
}

void KinetoEventBatchPipeline::Work() {
  for (;;) {
    Slot* slot = nullptr;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      queued_changed_.wait(lock, [this] { return stop_ || !queued_.empty(); });
      if (stop_) return;
      slot = queued_.front();
      queued_.pop_front();
      slot->state = State::kReading;
    }
    ReadKinetoEventBatch(&slot->batch);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      slot->state = State::kRead;
    }
    read_changed_.notify_all();
  }
}

KinetoEventBatch* KinetoEventBatchPipeline::TryAcquire() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (free_.empty()) return nullptr;
  Slot* slot = free_.front();
  free_.pop_front();
  slot->state = State::kFilling;
  slot->batch.Clear();
  return &slot->batch;
}

void KinetoEventBatchPipeline::Submit(KinetoEventBatch* batch) {
  Slot* slot = SlotOf(batch);
  submitted_.push_back(slot);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    slot->state = State::kQueued;
    queued_.push_back(slot);
  }
  queued_changed_.notify_one();
}

KinetoEventBatch* KinetoEventBatchPipeline::TakeOldest(bool wait) {
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
      ReadKinetoEventBatch(&slot->batch);
      lock.lock();
      slot->state = State::kRead;
      continue;
    }
    read_changed_.wait(lock);
  }
  submitted_.pop_front();
  return &oldest->batch;
}

void KinetoEventBatchPipeline::Release(KinetoEventBatch* batch) {
  Slot* slot = SlotOf(batch);
  std::lock_guard<std::mutex> lock(mutex_);
  slot->state = State::kFree;
  free_.push_back(slot);
}

}  // namespace feedprof::kineto
