// The terminal rules every progress line of feedprof follows.
//
// Reading a multi-GiB trace, and analysing it afterwards, takes seconds; a
// silent terminal looks hung, but a line that stays in the output spoils
// logs, pipes and tests. So a progress line is shown only when stderr is a
// terminal (or a test forces it), only once its work has taken a second,
// at most four times a second, always rewritten in place ("\r" and erase
// to the end of the line), and erased when the work is done. The reading
// line (read_progress.h) and the analysis phase line
// (analysis/phase_progress_line.h) both show their text through this
// class, so both behave alike.
#ifndef FEEDPROF_COMMON_PROGRESS_LINE_H_
#define FEEDPROF_COMMON_PROGRESS_LINE_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>

#include "absl/functional/function_ref.h"

namespace feedprof::common {

// "2 s", "3 min 20 s", "1 h 05 min".
std::string FormatProgressSeconds(uint64_t whole_seconds);

class ProgressLine {
 public:
  using Clock = std::chrono::steady_clock;
  // A line is quiet for its work's first second, then refreshed at most
  // this often.
  static constexpr auto kQuietPeriod = std::chrono::seconds(1);
  static constexpr auto kRefreshPeriod = std::chrono::milliseconds(250);

  // Where the line goes and what time it is. Tests pass their own; the
  // defaults write to stderr, read steady_clock and show the line only when
  // stderr is a terminal.
  struct Output {
    std::function<void(std::string_view)> write;
    std::function<Clock::time_point()> now;
    bool force = false;  // show the line whether or not stderr is a terminal
  };

  // The work starts now. `wanted`: false keeps the line off whatever the
  // terminal (a read of nothing, say).
  explicit ProgressLine(Output output, bool wanted = true);
  // Erases the line if it was shown.
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  // Whether the line is shown at all: wanted, and stderr a terminal or
  // forced. Callers skip their bookkeeping when it is not.
  bool enabled() const { return enabled_; }

  // Shows text(elapsed) when it is due (past the quiet period and the
  // refresh period since it was last shown). Any thread may call it; when
  // another thread is showing the line at that moment, this call does
  // nothing.
  void ShowIfDue(absl::FunctionRef<std::string(Clock::duration elapsed)> text);
  // The same without the refresh period, waiting for a thread that is
  // showing the line: a change of what the work is doing is shown at once
  // (still not in the quiet period).
  void ShowNow(absl::FunctionRef<std::string(Clock::duration elapsed)> text);

  // Erases the line if it was shown; it may be shown again afterwards.
  void Clear();

 private:
  // Shows text(now - start) past the quiet period; show_mutex_ is held.
  void ShowLocked(Clock::time_point now,
                  absl::FunctionRef<std::string(Clock::duration elapsed)> text);

  Output output_;
  bool enabled_;
  Clock::time_point start_;
  // Taken (try_lock) by whichever thread finds the line due, and by
  // Clear; guards the fields below.
  std::mutex show_mutex_;
  bool shown_ = false;
  Clock::time_point last_shown_;
};

}  // namespace feedprof::common

#endif  // FEEDPROF_COMMON_PROGRESS_LINE_H_
