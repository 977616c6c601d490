#include "kineto/prefetching_byte_source.h"

#include <cstring>

namespace feedprof::kineto {

PrefetchingByteSource::PrefetchingByteSource(ByteSource* inner,
                                             size_t chunk_bytes, size_t chunks)
    : inner_(inner), chunks_(chunks < 2 ? 2 : chunks) {
  for (size_t i = 0; i < chunks_.size(); ++i) {
    chunks_[i].data.resize(chunk_bytes == 0 ? 1 : chunk_bytes);
    free_.push_back(i);
  }
  producer_ = std::thread([this] { Produce(); });
}

PrefetchingByteSource::~PrefetchingByteSource() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  changed_.notify_all();
  producer_.join();
}

void PrefetchingByteSource::Produce() {
  for (;;) {
    size_t index = 0;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      changed_.wait(lock, [this] { return stop_ || !free_.empty(); });
      if (stop_) return;
      index = free_.front();
      free_.pop_front();
    }
    Chunk& chunk = chunks_[index];
    chunk.size = 0;
    bool done = false;
    while (chunk.size < chunk.data.size()) {
      const size_t n = inner_->Read(chunk.data.data() + chunk.size,
                                    chunk.data.size() - chunk.size);
      if (n == 0) {
        done = true;
        break;
      }
      chunk.size += n;
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (chunk.size > 0) {
        filled_.push_back(index);
      } else {
        free_.push_back(index);
      }
      producer_done_ = done;
    }
    changed_.notify_all();
    if (done) return;
  }
}

size_t PrefetchingByteSource::Read(char* out, size_t capacity) {
  size_t produced = 0;
  while (produced < capacity) {
    if (!has_current_) {
      std::unique_lock<std::mutex> lock(mutex_);
      if (produced > 0 && filled_.empty()) break;  // return what we have
      changed_.wait(lock,
                    [this] { return !filled_.empty() || producer_done_; });
      if (filled_.empty()) break;
      current_ = filled_.front();
      filled_.pop_front();
      current_pos_ = 0;
      has_current_ = true;
    }
    Chunk& chunk = chunks_[current_];
    const size_t n = std::min(capacity - produced, chunk.size - current_pos_);
    std::memcpy(out + produced, chunk.data.data() + current_pos_, n);
    produced += n;
    current_pos_ += n;
    if (current_pos_ == chunk.size) {
      {
        std::lock_guard<std::mutex> lock(mutex_);
        free_.push_back(current_);
      }
      has_current_ = false;
      changed_.notify_all();
    }
  }
  return produced;
}

}  // namespace feedprof::kineto
