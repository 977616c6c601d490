// A progress line on stderr for trace reads that take a while.
//
// Reading a multi-GiB session takes seconds; a silent terminal looks hung.
// After the first second, and only when stderr is a terminal (never in
// pipes, logs or tests), this rewrites one line with the share read so far,
// at most a few times a second, and clears it when done.
#ifndef FEEDPROF_COMMON_READ_PROGRESS_H_
#define FEEDPROF_COMMON_READ_PROGRESS_H_

#include <chrono>
#include <cstdint>
#include <string>

namespace feedprof::common {

class ReadProgress {
 public:
  // `what` names the input in the line; `total_bytes` is its size.
  ReadProgress(std::string what, uint64_t total_bytes);
  ~ReadProgress();
  ReadProgress(const ReadProgress&) = delete;
  ReadProgress& operator=(const ReadProgress&) = delete;

  // Cheap enough to call per packet: looks at the clock every 256 calls.
  void Update(uint64_t bytes_done) {
    if (!enabled_ || (++calls_ & 0xFF) != 0) return;
    Report(bytes_done);
  }

 private:
  void Report(uint64_t bytes_done);

  std::string what_;
  uint64_t total_bytes_;
  bool enabled_;
  bool shown_ = false;
  uint64_t calls_ = 0;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_shown_;
};

}  // namespace feedprof::common

#endif  // FEEDPROF_COMMON_READ_PROGRESS_H_
