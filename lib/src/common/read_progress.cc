#include "common/read_progress.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/strings/str_format.h"

namespace feedprof::common {
namespace {

thread_local ReadProgress* current_parent = nullptr;

// The time left in whole seconds, rounded up so that the line never
// promises less than is left.
std::string FormatTimeLeft(double seconds) {
  return FormatProgressSeconds(static_cast<uint64_t>(std::ceil(seconds)));
}

}  // namespace

std::string FormatReadProgressLine(std::string_view what, uint64_t bytes_done,
                                   uint64_t total_bytes,
                                   std::chrono::nanoseconds elapsed) {
  const uint64_t done = std::min(bytes_done, total_bytes);
  uint64_t percent = 100;
  if (done < total_bytes) {
    percent = std::min<uint64_t>(
        99, static_cast<uint64_t>(100.0 * static_cast<double>(done) /
                                  static_cast<double>(total_bytes)));
  }
  std::string line =
      absl::StrFormat("feedprof: reading %s: %d%% of %.1f MiB", what, percent,
                      static_cast<double>(total_bytes) / (1024.0 * 1024.0));
  const double seconds = std::chrono::duration<double>(elapsed).count();
  if (done == 0 || seconds <= 0) return line;
  const double bytes_per_second = static_cast<double>(done) / seconds;
  const double mb_per_second = bytes_per_second / 1e6;
  if (mb_per_second < 10) {
    absl::StrAppendFormat(&line, ", %.1f MB/s", mb_per_second);
  } else {
    absl::StrAppendFormat(&line, ", %.0f MB/s", mb_per_second);
  }
  absl::StrAppendFormat(&line, ", %s left",
                        FormatTimeLeft(static_cast<double>(total_bytes - done) /
                                       bytes_per_second));
  return line;
}

std::string FormatReadStageLine(std::string_view what, uint64_t total_bytes,
                                std::string_view stage) {
  return absl::StrFormat("feedprof: reading %s: 100%% of %.1f MiB, %s", what,
                         static_cast<double>(total_bytes) / (1024.0 * 1024.0),
                         stage);
}

std::string MergingFilesStage(size_t files) {
  return absl::StrFormat("merging the %d files' events", files);
}

ReadProgress::ReadProgress(std::string what, uint64_t total_bytes)
    : ReadProgress(std::move(what), total_bytes, Output()) {}

ReadProgress::ReadProgress(std::string what, uint64_t total_bytes,
                           Output output)
    : root_(this),
      what_(std::move(what)),
      total_bytes_(total_bytes),
      enabled_(false) {
  if (current_parent != nullptr) {
    // One file of a directory read on a worker: count into its line.
    root_ = current_parent->root_;
    enabled_ = root_->enabled_;
    return;
  }
  line_.emplace(std::move(output), total_bytes > 0);
  enabled_ = line_->enabled();
}

ReadProgress::ReadProgress(ReadProgress* parent, uint64_t total_bytes)
    : root_(parent->root_),
      total_bytes_(total_bytes),
      enabled_(parent->root_->enabled_) {}

ReadProgress::~ReadProgress() {
  // A root's line is erased by its ProgressLine.
  if (root_ != this && enabled_ && published_ < total_bytes_) {
    Publish(total_bytes_);
  }
}

void ReadProgress::Publish(uint64_t bytes_done) {
  if (bytes_done <= published_) return;
  root_->bytes_done_.fetch_add(bytes_done - published_,
                               std::memory_order_relaxed);
  published_ = bytes_done;
}

void ReadProgress::Report(uint64_t bytes_done) {
  Publish(bytes_done);
  root_->ShowIfDue();
}

void ReadProgress::ShowIfDue() {
  line_->ShowIfDue([this](Clock::duration elapsed) {
    return FormatReadProgressLine(what_,
                                  bytes_done_.load(std::memory_order_relaxed),
                                  total_bytes_, elapsed);
  });
}

void ReadProgress::ShowStage(std::string_view stage) {
  if (!enabled_ || root_ != this) return;
  line_->ShowNow([&](Clock::duration) {
    return FormatReadStageLine(what_, total_bytes_, stage);
  });
}

ReadProgress::ScopedParent::ScopedParent(ReadProgress* parent)
    : previous_(current_parent) {
  current_parent = parent;
}

ReadProgress::ScopedParent::~ScopedParent() { current_parent = previous_; }

}  // namespace feedprof::common
