// ProgressLine: the terminal rules of feedprof's progress lines (see
// progress_line.h).
#include "common/progress_line.h"

#include <unistd.h>

#include <cstdio>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace feedprof::common {
namespace {

// Back to the start of the line, and erase it.
constexpr char kClearLine[] = "\r\033[K";

}  // namespace

std::string FormatProgressSeconds(uint64_t whole_seconds) {
  if (whole_seconds < 60) return absl::StrFormat("%d s", whole_seconds);
  if (whole_seconds < 3600) {
    return absl::StrFormat("%d min %d s", whole_seconds / 60,
                           whole_seconds % 60);
  }
  return absl::StrFormat("%d h %02d min", whole_seconds / 3600,
                         whole_seconds % 3600 / 60);
}

ProgressLine::ProgressLine(Output output, bool wanted)
    : output_(std::move(output)), enabled_(false) {
  if (!output_.write) {
    output_.write = [](std::string_view text) {
      std::fwrite(text.data(), 1, text.size(), stderr);
      std::fflush(stderr);
    };
  }
  if (!output_.now) output_.now = [] { return Clock::now(); };
  enabled_ = wanted && (output_.force || ::isatty(STDERR_FILENO) == 1);
  start_ = output_.now();
}

ProgressLine::~ProgressLine() { Clear(); }

void ProgressLine::ShowIfDue(
    absl::FunctionRef<std::string(Clock::duration elapsed)> text) {
  if (!enabled_) return;
  std::unique_lock<std::mutex> lock(show_mutex_, std::try_to_lock);
  if (!lock.owns_lock()) return;  // another thread is showing it
  const Clock::time_point now = output_.now();
  if (shown_ && now - last_shown_ < kRefreshPeriod) return;
  ShowLocked(now, text);
}

void ProgressLine::ShowNow(
    absl::FunctionRef<std::string(Clock::duration elapsed)> text) {
  if (!enabled_) return;
  std::lock_guard<std::mutex> lock(show_mutex_);
  ShowLocked(output_.now(), text);
}

void ProgressLine::ShowLocked(
    Clock::time_point now,
    absl::FunctionRef<std::string(Clock::duration elapsed)> text) {
  if (now - start_ < kQuietPeriod) return;
  shown_ = true;
  last_shown_ = now;
  output_.write(absl::StrCat(kClearLine, text(now - start_)));
}

void ProgressLine::Clear() {
  std::lock_guard<std::mutex> lock(show_mutex_);
  if (shown_) output_.write(kClearLine);
  shown_ = false;
}

}  // namespace feedprof::common
