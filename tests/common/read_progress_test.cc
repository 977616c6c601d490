// ReadProgress: the exact line for given byte counts and times, the quiet
// first second, the refresh period, the cleared line, and one line for the
// parts that several reader threads update at once.
#include "common/read_progress.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace feedprof::common {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr uint64_t kMiB = 1024 * 1024;

TEST(ReadProgressLineTest, ShowsShareSizeRateAndTimeLeft) {
  // 812 MiB = 851,443,712 bytes; 357,606,400 (42.0000 %) of it in 1.15 s
  // is 311 MB/s, and the remaining 493,837,312 bytes take 1.59 s at that
  // rate: "2 s".
  const uint64_t total = 812 * kMiB;
  const uint64_t done = 357'606'400;
  EXPECT_EQ(FormatReadProgressLine("DIR", done, total, milliseconds(1150)),
            "feedprof: reading DIR: 42% of 812.0 MiB, 311 MB/s, 2 s left");
}

TEST(ReadProgressLineTest, RoundsTheShareDownAndTheTimeLeftUp) {
  // 999,999 of 1,000,000 bytes in 1 s: 99 % (not 100) and 1 s left.
  EXPECT_EQ(FormatReadProgressLine("a.fpt", 999'999, 1'000'000, seconds(1)),
            "feedprof: reading a.fpt: 99% of 1.0 MiB, 1.0 MB/s, 1 s left");
  EXPECT_EQ(FormatReadProgressLine("a.fpt", 1'000'000, 1'000'000, seconds(2)),
            "feedprof: reading a.fpt: 100% of 1.0 MiB, 0.5 MB/s, 0 s left");
}

TEST(ReadProgressLineTest, SpellsLongWaitsInMinutesAndHours) {
  // 10 MB of 1 GiB in 2 s: 5 MB/s, 1,063,741,824 bytes left: 212.7 s.
  EXPECT_EQ(FormatReadProgressLine("x", 10'000'000, 1024 * kMiB, seconds(2)),
            "feedprof: reading x: 0% of 1024.0 MiB, 5.0 MB/s, 3 min 33 s "
            "left");
  // 1 MB of 100 GiB in 10 s: 0.1 MB/s, 107,373,182,400 bytes left at
  // 100,000 bytes/s: 1,073,731.8 s = 298 h 15 min.
  EXPECT_EQ(
      FormatReadProgressLine("x", 1'000'000, 100 * 1024 * kMiB, seconds(10)),
      "feedprof: reading x: 0% of 102400.0 MiB, 0.1 MB/s, 298 h 15 min "
      "left");
}

TEST(ReadProgressLineTest, LeavesRateOutBeforeTheFirstByte) {
  EXPECT_EQ(FormatReadProgressLine("x", 0, 2 * kMiB, seconds(3)),
            "feedprof: reading x: 0% of 2.0 MiB");
  // More than the total (a file that grew): counted as the total.
  EXPECT_EQ(FormatReadProgressLine("x", 3 * kMiB, 2 * kMiB, seconds(1)),
            "feedprof: reading x: 100% of 2.0 MiB, 2.1 MB/s, 0 s left");
}

// A clock the test moves and a sink that keeps what was written.
struct FakeTerminal {
  std::mutex mutex;
  std::vector<std::string> writes;
  std::atomic<int64_t> now_ns{0};

  ReadProgress::Output Output() {
    ReadProgress::Output out;
    out.write = [this](std::string_view text) {
      std::lock_guard<std::mutex> lock(mutex);
      writes.emplace_back(text);
    };
    out.now = [this] {
      return ReadProgress::Clock::time_point(
          std::chrono::nanoseconds(now_ns.load()));
    };
    out.force = true;
    return out;
  }
  void Advance(std::chrono::nanoseconds by) { now_ns += by.count(); }
};

// Update looks at the clock on every 256th call.
void Update256(ReadProgress& progress, uint64_t bytes) {
  for (int i = 0; i < 256; ++i) progress.Update(bytes);
}

TEST(ReadProgressTest, QuietForTheFirstSecondThenEveryQuarterSecond) {
  FakeTerminal terminal;
  {
    ReadProgress progress("trace.json", 100'000'000, terminal.Output());
    terminal.Advance(milliseconds(900));
    Update256(progress, 10'000'000);
    EXPECT_TRUE(terminal.writes.empty());

    terminal.Advance(milliseconds(100));  // 1.0 s: 10 MB/s, 90 MB left
    Update256(progress, 10'000'000);
    ASSERT_EQ(terminal.writes.size(), 1u);
    EXPECT_EQ(terminal.writes[0],
              "\r\033[Kfeedprof: reading trace.json: 10% of 95.4 MiB, 10 "
              "MB/s, 9 s left");

    terminal.Advance(milliseconds(200));  // refreshed 200 ms ago: not yet
    Update256(progress, 30'000'000);
    EXPECT_EQ(terminal.writes.size(), 1u);

    terminal.Advance(milliseconds(50));  // 1.25 s: 24 MB/s, 70 MB left
    Update256(progress, 30'000'000);
    ASSERT_EQ(terminal.writes.size(), 2u);
    EXPECT_EQ(terminal.writes[1],
              "\r\033[Kfeedprof: reading trace.json: 30% of 95.4 MiB, 24 "
              "MB/s, 3 s left");
  }
  // Done: the line is cleared.
  ASSERT_EQ(terminal.writes.size(), 3u);
  EXPECT_EQ(terminal.writes[2], "\r\033[K");
}

// What follows the read replaces the rate at once, inside the refresh
// period; a stage during the quiet period shows nothing.
TEST(ReadProgressTest, AStageAfterTheReadIsShownAtOnce) {
  EXPECT_EQ(MergingFilesStage(8), "merging the 8 files' events");
  EXPECT_EQ(
      FormatReadStageLine("dir", 3 * 1024 * 1024, MergingFilesStage(8)),
      "feedprof: reading dir: 100% of 3.0 MiB, merging the 8 files' events");
  FakeTerminal terminal;
  {
    ReadProgress progress("dir", 100'000'000, terminal.Output());
    terminal.Advance(milliseconds(1500));
    Update256(progress, 100'000'000);
    ASSERT_EQ(terminal.writes.size(), 1u);
    terminal.Advance(milliseconds(10));
    progress.ShowStage("merging the 8 files' events");
    ASSERT_EQ(terminal.writes.size(), 2u);
    EXPECT_EQ(terminal.writes[1],
              "\r\033[Kfeedprof: reading dir: 100% of 95.4 MiB, merging the 8 "
              "files' events");
  }
  ASSERT_EQ(terminal.writes.size(), 3u);
  EXPECT_EQ(terminal.writes[2], "\r\033[K");

  FakeTerminal quick;
  {
    ReadProgress progress("dir", 1000, quick.Output());
    quick.Advance(milliseconds(500));
    progress.ShowStage("merging the 2 files' events");
  }
  EXPECT_TRUE(quick.writes.empty());
}

TEST(ReadProgressTest, ShowsNothingWhenNotForcedAndNotATerminal) {
  if (isatty(STDERR_FILENO) == 1) GTEST_SKIP() << "stderr is a terminal";
  FakeTerminal terminal;
  ReadProgress::Output output = terminal.Output();
  output.force = false;
  {
    ReadProgress progress("x", 1000, output);
    terminal.Advance(seconds(5));
    Update256(progress, 500);
  }
  EXPECT_TRUE(terminal.writes.empty());
}

TEST(ReadProgressTest, PartsOnSeveralThreadsAddUpToOneLine) {
  FakeTerminal terminal;
  constexpr int kFiles = 4;
  constexpr uint64_t kFileBytes = 25'000'000;
  {
    ReadProgress root("DIR", kFiles * kFileBytes, terminal.Output());
    terminal.Advance(seconds(2));
    std::vector<std::thread> readers;
    for (int f = 0; f < kFiles; ++f) {
      readers.emplace_back([&root, f] {
        // Two files through the explicit parent, two as a format reader
        // makes its own ReadProgress inside a ScopedParent.
        if (f % 2 == 0) {
          ReadProgress part(&root, kFileBytes);
          for (uint64_t b = 1; b <= 1000; ++b) part.Update(b * 10'000);
        } else {
          ReadProgress::ScopedParent parent(&root);
          ReadProgress part("file", kFileBytes);
          for (uint64_t b = 1; b <= 1000; ++b) part.Update(b * 10'000);
        }
        // Destroyed at 10 MB published of 25: the rest counts as read.
      });
    }
    for (std::thread& t : readers) t.join();
    // Every part is done: a last update of the root shows 100 %.
    terminal.Advance(seconds(1));
    Update256(root, 0);
    std::lock_guard<std::mutex> lock(terminal.mutex);
    ASSERT_FALSE(terminal.writes.empty());
    EXPECT_EQ(terminal.writes.back(),
              "\r\033[Kfeedprof: reading DIR: 100% of 95.4 MiB, 33 MB/s, "
              "0 s left");
    // Lines written while the parts ran: one at a time, whole, each a share
    // of the directory's total.
    for (const std::string& line : terminal.writes) {
      EXPECT_EQ(line.rfind("\r\033[Kfeedprof: reading DIR: ", 0), 0u) << line;
    }
  }
  EXPECT_EQ(terminal.writes.back(), "\r\033[K");
}

}  // namespace
}  // namespace feedprof::common
