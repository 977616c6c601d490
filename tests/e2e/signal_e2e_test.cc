// End to end: a recorded program that dies by a signal. SIGKILL gives the
// library no chance to run, so the periodic flush must already have put a
// readable prefix on disk; SIGTERM is caught, the trace is completed with a
// footer, and the program still dies by SIGTERM as it would without us.
#include <signal.h>

#include <algorithm>
#include <filesystem>

#include "gtest/gtest.h"
#include "tests/e2e/child_process.h"
#include "tests/e2e/e2e_paths.h"
#include "tests/e2e/trace_file.h"

namespace feedprof::e2e {
namespace {

constexpr int kStartTimeoutMs = 30000;
constexpr int kExitTimeoutMs = 30000;

class SignalE2eTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = MakeTempDir("signal"); }
  void TearDown() override {
    std::error_code ec;
    if (!HasFailure()) std::filesystem::remove_all(dir_, ec);
  }

  // Starts the example in --loop mode with a short flush interval and waits
  // until its trace holds ticks from the loop, i.e. a flush happened after
  // the program reached its steady state.
  void StartLooping(std::unique_ptr<ChildProcess>* process) {
    auto env = RecordingEnv(dir_ + "/traces");
    env["FEEDPROF_FLUSH_INTERVAL_MS"] = "20";
    *process = std::make_unique<ChildProcess>(
        std::vector<std::string>{kExamplePath, "--burn-ms", "20", "--loop"},
        env, dir_ + "/example");
    ASSERT_TRUE((*process)->started());
    const pid_t pid = (*process)->pid();
    const bool ticking = WaitFor(kStartTimeoutMs, [&] {
      TraceFile trace;
      return ReadMainTrace(pid, &trace) && !trace.RangesNamed("tick").empty();
    });
    ASSERT_TRUE(ticking) << "no flushed \"tick\" range within "
                         << kStartTimeoutMs << " ms; stderr:\n"
                         << (*process)->Stderr();
  }

  bool ReadMainTrace(pid_t pid, TraceFile* out) {
    for (const std::string& path : FindTraceFiles(dir_ + "/traces")) {
      TraceFile trace;
      std::string error;
      if (!ReadTraceFile(path, &trace, &error)) continue;
      if (trace.has_header &&
          trace.header.pid() == static_cast<uint32_t>(pid)) {
        *out = std::move(trace);
        return true;
      }
    }
    return false;
  }

  std::string dir_;
};

TEST_F(SignalE2eTest, SigkilledRunLeavesReadablePrefix) {
  std::unique_ptr<ChildProcess> process;
  ASSERT_NO_FATAL_FAILURE(StartLooping(&process));
  process->Signal(SIGKILL);
  ExitStatus status;
  ASSERT_TRUE(process->Wait(kExitTimeoutMs, &status));
  EXPECT_EQ(status.signal, SIGKILL);

  TraceFile trace;
  ASSERT_TRUE(ReadMainTrace(process->pid(), &trace));
  EXPECT_FALSE(trace.has_footer);
  // Everything done before the loop was flushed, and so were some ticks.
  EXPECT_EQ(trace.RangesNamed("outer").size(), 10u);
  EXPECT_EQ(trace.RangesNamed("cross-thread").size(), 5u);
  EXPECT_GE(trace.RangesNamed("tick").size(), 1u);
  for (const Range& r : trace.ranges) {
    EXPECT_EQ(r.name.rfind("<unresolved", 0), std::string::npos)
        << "a range refers to a string that was never written";
  }
}

TEST_F(SignalE2eTest, SigtermedRunIsCompleteAndStillDiesBySigterm) {
  std::unique_ptr<ChildProcess> process;
  ASSERT_NO_FATAL_FAILURE(StartLooping(&process));
  process->Signal(SIGTERM);
  ExitStatus status;
  ASSERT_TRUE(process->Wait(kExitTimeoutMs, &status));
  EXPECT_FALSE(status.exited);
  EXPECT_EQ(status.signal, SIGTERM);

  TraceFile trace;
  ASSERT_TRUE(ReadMainTrace(process->pid(), &trace));
  ASSERT_TRUE(trace.has_footer);
  EXPECT_EQ(trace.footer.reason(), "signal");
  EXPECT_EQ(trace.footer.signal(), SIGTERM);
  EXPECT_EQ(trace.trailing_bytes, 0u);
  EXPECT_EQ(trace.RangesNamed("outer").size(), 10u);
  EXPECT_GE(trace.RangesNamed("tick").size(), 1u);
  // The sampler's open batch (it sends one every 0.5 s) was flushed by the
  // signal: the last host sample is from the last few rounds (10 ms each)
  // before the footer, not from up to half a second earlier.
  uint64_t last_sample_ns = 0;
  for (const ThreadSample& s : trace.thread_samples) {
    last_sample_ns = std::max(last_sample_ns, s.ts_ns);
  }
  ASSERT_GT(last_sample_ns, 0u);
  EXPECT_LE(last_sample_ns, trace.footer.end_ns());
  EXPECT_LT(trace.footer.end_ns() - last_sample_ns, 150'000'000u)
      << "the last host samples were lost";
  // stdout printed before the signal is not lost or duplicated.
  EXPECT_EQ(process->Stdout().find("looping"),
            process->Stdout().rfind("looping"));
}

}  // namespace
}  // namespace feedprof::e2e
