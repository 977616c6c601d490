// The analysis progress line: Analyze reports its phases in order to a
// fake reporter (and only those that run); the terminal line's exact text
// for given phases and times with an injected clock, its quiet first
// second, its refresh period and its erasure; its own thread keeping the
// seconds counting inside a phase; whole lines when several threads report
// at once; and nothing at all when stderr is no terminal.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "analysis/phase_progress_line.h"
#include "feedprof/analysis.h"
#include "tests/analysis/must_analyze.h"
#include "tests/analysis/timeline_builder.h"

namespace feedprof::analysis {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using testing::MustAnalyze;
using testing::TimelineBuilder;

// Three steps of a launch and a sync: 6 calls, 3 kernels, 3 ranges.
Timeline SmallRun() {
  TimelineBuilder b;
  for (int i = 0; i < 3; ++i) {
    const double t = 1200.0 * i;
    b.Range("step", t, t + 1200);
    b.Launch(t, t + 5, t + 10, t + 1010);
    b.Api("cudaDeviceSynchronize", t + 6, t + 1015);
  }
  return b.Take();
}

using PhaseLog = std::vector<std::pair<AnalysisPhase, uint64_t>>;

AnalysisOptions Recording(PhaseLog* log) {
  AnalysisOptions options;
  options.on_phase = [log](AnalysisPhase phase, uint64_t events) {
    log->emplace_back(phase, events);
  };
  return options;
}

TEST(AnalysisPhasesTest, ReportedInOrderWithTheEventCount) {
  PhaseLog log;
  const Report r = MustAnalyze(SmallRun(), Recording(&log));
  ASSERT_TRUE(r.what_if.available) << r.what_if.unavailable_reason;
  EXPECT_EQ(r.events, 12u);
  EXPECT_EQ(log, (PhaseLog{{AnalysisPhase::kPreparing, 12},
                           {AnalysisPhase::kStepsAndGaps, 12},
                           {AnalysisPhase::kWhatIf, 12}}));
}

TEST(AnalysisPhasesTest, OnlyThePhasesThatRun) {
  PhaseLog log;
  AnalysisOptions options = Recording(&log);
  options.what_if.enabled = false;  // --no-what-if
  MustAnalyze(SmallRun(), options);
  EXPECT_EQ(log, (PhaseLog{{AnalysisPhase::kPreparing, 12},
                           {AnalysisPhase::kStepsAndGaps, 12}}));

  // No GPU activity: nothing to replay.
  log.clear();
  TimelineBuilder host_only;
  host_only.Api("cudaGetDeviceCount", 0, 5);
  MustAnalyze(host_only.Take(), Recording(&log));
  EXPECT_EQ(log, (PhaseLog{{AnalysisPhase::kPreparing, 1},
                           {AnalysisPhase::kStepsAndGaps, 1}}));

  // An empty window is an error found while preparing.
  log.clear();
  options = Recording(&log);
  options.from = 500;
  options.to = 400;
  EXPECT_FALSE(Analyze(SmallRun(), options).ok());
  EXPECT_EQ(log, (PhaseLog{{AnalysisPhase::kPreparing, 12}}));
}

TEST(AnalysisProgressLineTest, Text) {
  EXPECT_EQ(FormatAnalysisProgressLine("trace.fpt", 61'123'456,
                                       AnalysisPhase::kStepsAndGaps,
                                       milliseconds(3'999)),
            "feedprof: analysing trace.fpt (61.1 M events): steps and gaps, "
            "3 s");
  EXPECT_EQ(FormatAnalysisProgressLine("big/", 1'234'567'890,
                                       AnalysisPhase::kWhatIf, seconds(200)),
            "feedprof: analysing big/ (1.2 G events): what-if replay, 3 min "
            "20 s");
  EXPECT_EQ(FormatAnalysisProgressLine("a.json", 812'449,
                                       AnalysisPhase::kPreparing, seconds(1)),
            "feedprof: analysing a.json (812.4 k events): preparing, 1 s");
  EXPECT_EQ(FormatEventCount(9'999), "9999 events");
  EXPECT_EQ(FormatEventCount(10'000), "10.0 k events");
}

// A clock the test moves and a sink that keeps what was written.
struct FakeTerminal {
  std::mutex mutex;
  std::vector<std::string> writes;
  std::atomic<int64_t> now_ns{0};

  common::ProgressLine::Output Output() {
    common::ProgressLine::Output out;
    out.write = [this](std::string_view text) {
      std::lock_guard<std::mutex> lock(mutex);
      writes.emplace_back(text);
    };
    out.now = [this] {
      return common::ProgressLine::Clock::time_point(
          std::chrono::nanoseconds(now_ns.load()));
    };
    out.force = true;
    return out;
  }
  void Advance(std::chrono::nanoseconds by) { now_ns += by.count(); }
  size_t Count() {
    std::lock_guard<std::mutex> lock(mutex);
    return writes.size();
  }
  // Waits (10 s at most) until `n` writes were made.
  bool WaitForWrites(size_t n) {
    const auto give_up = std::chrono::steady_clock::now() + seconds(10);
    while (Count() < n && std::chrono::steady_clock::now() < give_up) {
      std::this_thread::sleep_for(milliseconds(10));
    }
    return Count() >= n;
  }
};

TEST(AnalysisProgressLineTest, QuietForASecondThenInPlaceThenErased) {
  FakeTerminal terminal;
  {
    PhaseProgressLine line("trace.fpt", terminal.Output(), /*tick=*/false);
    line.OnPhase(AnalysisPhase::kPreparing, 61'123'456);
    terminal.Advance(milliseconds(600));
    line.OnPhase(AnalysisPhase::kStepsAndGaps, 61'123'456);
    terminal.Advance(milliseconds(300));
    line.ShowIfDue();
    EXPECT_TRUE(terminal.writes.empty());  // 0.9 s: still quiet

    terminal.Advance(milliseconds(100));
    line.ShowIfDue();
    ASSERT_EQ(terminal.writes.size(), 1u);
    EXPECT_EQ(terminal.writes[0],
              "\r\033[Kfeedprof: analysing trace.fpt (61.1 M events): steps "
              "and gaps, 1 s");

    terminal.Advance(milliseconds(200));  // shown 200 ms ago: not yet
    line.OnPhase(AnalysisPhase::kWhatIf, 61'123'456);
    EXPECT_EQ(terminal.writes.size(), 1u);

    terminal.Advance(milliseconds(2'800));  // 4.0 s
    line.ShowIfDue();
    ASSERT_EQ(terminal.writes.size(), 2u);
    EXPECT_EQ(terminal.writes[1],
              "\r\033[Kfeedprof: analysing trace.fpt (61.1 M events): "
              "what-if replay, 4 s");
  }
  ASSERT_EQ(terminal.writes.size(), 3u);
  EXPECT_EQ(terminal.writes[2], "\r\033[K");
}

TEST(AnalysisProgressLineTest, NothingBeforeTheFirstPhaseAndNoEraseUnshown) {
  FakeTerminal terminal;
  {
    PhaseProgressLine line("x", terminal.Output(), /*tick=*/false);
    terminal.Advance(seconds(5));
    line.ShowIfDue();
  }
  EXPECT_TRUE(terminal.writes.empty());
}

TEST(AnalysisProgressLineTest, ItsThreadKeepsCountingInsideAPhase) {
  FakeTerminal terminal;
  {
    PhaseProgressLine line("trace.fpt", terminal.Output());
    terminal.Advance(seconds(2));
    line.OnPhase(AnalysisPhase::kWhatIf, 20'000);
    // Shown by OnPhase, or by the line's thread if it held the line then.
    ASSERT_TRUE(terminal.WaitForWrites(1));
    // No call from the analysis; the line's own thread refreshes it.
    terminal.Advance(seconds(7));
    ASSERT_TRUE(terminal.WaitForWrites(2));
    std::lock_guard<std::mutex> lock(terminal.mutex);
    ASSERT_GE(terminal.writes.size(), 2u);
    EXPECT_EQ(terminal.writes[0],
              "\r\033[Kfeedprof: analysing trace.fpt (20.0 k events): what-if "
              "replay, 2 s");
    EXPECT_EQ(terminal.writes[1],
              "\r\033[Kfeedprof: analysing trace.fpt (20.0 k events): what-if "
              "replay, 9 s");
  }
  EXPECT_EQ(terminal.writes.back(), "\r\033[K");
}

TEST(AnalysisProgressLineTest, WholeLinesWhenSeveralThreadsReport) {
  FakeTerminal terminal;
  {
    PhaseProgressLine line("DIR", terminal.Output());
    terminal.Advance(seconds(1));
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&line, &terminal, t] {
        for (int i = 0; i < 2'000; ++i) {
          line.OnPhase(t % 2 == 0 ? AnalysisPhase::kStepsAndGaps
                                  : AnalysisPhase::kWhatIf,
                       1'000);
          terminal.Advance(milliseconds(1));
          line.ShowIfDue();
        }
      });
    }
    for (std::thread& t : threads) t.join();
  }
  std::lock_guard<std::mutex> lock(terminal.mutex);
  ASSERT_GE(terminal.writes.size(), 2u);
  for (size_t i = 0; i + 1 < terminal.writes.size(); ++i) {
    const std::string& w = terminal.writes[i];
    EXPECT_EQ(w.rfind("\r\033[Kfeedprof: analysing DIR (1000 events): ", 0), 0u)
        << w;
    EXPECT_TRUE(w.find("steps and gaps, ") != std::string::npos ||
                w.find("what-if replay, ") != std::string::npos)
        << w;
    EXPECT_EQ(w.back(), 's') << w;
  }
  EXPECT_EQ(terminal.writes.back(), "\r\033[K");
}

TEST(AnalysisProgressLineTest, NothingWhenNotForcedAndNotATerminal) {
  if (isatty(STDERR_FILENO) == 1) GTEST_SKIP() << "stderr is a terminal";
  FakeTerminal terminal;
  common::ProgressLine::Output output = terminal.Output();
  output.force = false;
  {
    PhaseProgressLine line("x", output);
    line.OnPhase(AnalysisPhase::kPreparing, 10);
    terminal.Advance(seconds(5));
    line.OnPhase(AnalysisPhase::kWhatIf, 10);
    line.ShowIfDue();
    std::this_thread::sleep_for(milliseconds(300));  // a refresh period
  }
  EXPECT_TRUE(terminal.writes.empty());
}

}  // namespace
}  // namespace feedprof::analysis
