// A progress line on stderr for trace reads that take a while.
//
// Reading a multi-GiB trace takes seconds; a silent terminal looks hung.
// After the first second, and only when stderr is a terminal (never in
// pipes, logs or tests), this rewrites one line at most four times a second
// and clears it when done:
//
//   feedprof: reading DIR: 42% of 812.0 MiB, 310 MB/s, 2 s left
//
// (the share read, the whole input's size, the rate since the read began and
// the time the rest takes at that rate). The terminal rules are
// ProgressLine's (progress_line.h).
//
// A directory read in parallel shows one line for all its files. The
// directory's ReadProgress is the root; each file's reader, on its worker
// thread, makes a part of it — explicitly with the parent constructor, or
// implicitly: a ReadProgress made on a thread inside a ScopedParent is a part
// of that parent (so a format reader that makes its own ReadProgress joins
// the directory's line unchanged). Parts add their bytes to the root's
// atomic count; whichever reader thread finds the line due prints it, one
// thread at a time.
#ifndef FEEDPROF_COMMON_READ_PROGRESS_H_
#define FEEDPROF_COMMON_READ_PROGRESS_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/progress_line.h"

namespace feedprof::common {

// The line's text without the terminal codes, e.g. "feedprof: reading DIR:
// 42% of 812.0 MiB, 310 MB/s, 2 s left". The share is rounded down (100%
// only when all is read); rate and time left are left out until a byte was
// read.
std::string FormatReadProgressLine(std::string_view what, uint64_t bytes_done,
                                   uint64_t total_bytes,
                                   std::chrono::nanoseconds elapsed);

// The line once everything is read and `stage` follows: "feedprof: reading
// DIR: 100% of 812.0 MiB, merging the 8 files' events".
std::string FormatReadStageLine(std::string_view what, uint64_t total_bytes,
                                std::string_view stage);

// The stage of a directory whose `files` are read and now merged:
// "merging the 8 files' events".
std::string MergingFilesStage(size_t files);

class ReadProgress {
 public:
  using Clock = ProgressLine::Clock;
  // Where the line goes and what time it is (see ProgressLine::Output).
  using Output = ProgressLine::Output;

  // `what` names the input in the line; `total_bytes` is its size. Made on
  // a thread inside a ScopedParent, this is a part of that parent instead.
  ReadProgress(std::string what, uint64_t total_bytes);
  ReadProgress(std::string what, uint64_t total_bytes, Output output);
  // A part of `parent` (which outlives it) covering `total_bytes` of the
  // parent's input, one file of a directory say.
  ReadProgress(ReadProgress* parent, uint64_t total_bytes);
  // A part counts what it did not report as read (its file is done, read
  // or given up); a root clears its line.
  ~ReadProgress();
  ReadProgress(const ReadProgress&) = delete;
  ReadProgress& operator=(const ReadProgress&) = delete;

  // `bytes_done` of this object's own input. Call from one thread per
  // object (a part for each worker); cheap enough per packet: it publishes
  // the count and looks at the clock every 256 calls.
  void Update(uint64_t bytes_done) {
    if (!enabled_ || (++calls_ & 0xFF) != 0) return;
    Report(bytes_done);
  }

  // Root only, after the read: the line says `stage` (what the reader does
  // with what it read, "merging the 8 files' events") in place of the rate
  // and time left, at once, until the root is destroyed. Work after the
  // read that takes a second (the merge of a session's files) then does
  // not look like a read stuck at 100%.
  void ShowStage(std::string_view stage);

  // While it lives, ReadProgress objects made on this thread with the
  // (what, total_bytes) constructor are parts of `parent`.
  class ScopedParent {
   public:
    explicit ScopedParent(ReadProgress* parent);
    ~ScopedParent();
    ScopedParent(const ScopedParent&) = delete;
    ScopedParent& operator=(const ScopedParent&) = delete;

   private:
    ReadProgress* previous_;
  };

 private:
  void Report(uint64_t bytes_done);
  // Adds what this object read since its last report to the root's count.
  void Publish(uint64_t bytes_done);
  // Root only: prints the line when it is due and no other thread is.
  void ShowIfDue();

  ReadProgress* root_;  // `this` for a root
  std::string what_;
  uint64_t total_bytes_;
  bool enabled_;
  uint64_t calls_ = 0;
  uint64_t published_ = 0;  // of this object's bytes, added to the root
  // Root only. The bytes every part (and the root itself) published.
  std::atomic<uint64_t> bytes_done_{0};
  // Root only: the line on the terminal, erased when the root is destroyed.
  std::optional<ProgressLine> line_;
};

}  // namespace feedprof::common

#endif  // FEEDPROF_COMMON_READ_PROGRESS_H_
