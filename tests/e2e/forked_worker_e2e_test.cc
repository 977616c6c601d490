// A forked worker that ends with _exit runs no exit handler; the library's
// own _exit finishes its trace first, so the file is complete. A worker
// killed with SIGKILL keeps what its periodic flushes wrote: forked
// children flush every 200 ms (kForkedChildFlushIntervalMs) instead of
// every second, so a worker that burned 800 ms of CPU still leaves most of
// it; an explicit FEEDPROF_FLUSH_INTERVAL_MS applies to workers too.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "tests/e2e/child_process.h"
#include "tests/e2e/e2e_paths.h"
#include "tests/e2e/trace_file.h"

namespace feedprof::e2e {
namespace {

const std::string kTarget = FEEDPROF_BINARY_DIR "/tests/e2e/fork_exit_target";

struct WorkerRun {
  uint32_t worker = 0;
  int files = 0;
  bool found = false;  // the worker left a file
  TraceFile trace;     // the worker's
};

// Runs the target and reads the session; the worker's file goes to `run`.
void RunTarget(const std::vector<std::string>& args,
               const std::map<std::string, std::string>& env,
               const std::string& dir, WorkerRun* run) {
  std::vector<std::string> argv = {kTarget};
  argv.insert(argv.end(), args.begin(), args.end());
  ChildProcess parent(argv, env, dir + "/parent");
  ExitStatus status;
  ASSERT_TRUE(parent.Wait(60'000, &status));
  ASSERT_TRUE(status.exited);
  ASSERT_EQ(status.code, 0) << parent.Stderr();
  run->worker =
      static_cast<uint32_t>(std::strtoul(parent.Stdout().c_str(), nullptr, 10));
  ASSERT_GT(run->worker, 0u);
  for (const std::string& path : FindTraceFiles(dir + "/session")) {
    TraceFile trace;
    std::string error;
    ASSERT_TRUE(ReadTraceFile(path, &trace, &error)) << error;
    ++run->files;
    if (trace.header.pid() != run->worker) continue;
    run->found = true;
    run->trace = std::move(trace);
  }
}

TEST(ForkedWorkerE2eTest, WorkerEndingWithExitLeavesACompleteTrace) {
  const std::string dir = MakeTempDir("forked_worker");
  WorkerRun run;
  RunTarget({}, RecordingEnv(dir + "/session"), dir, &run);
  ASSERT_TRUE(run.found) << "no trace file of the worker " << run.worker;
  EXPECT_EQ(run.trace.header.origin(), "fork");
  // The library's _exit wrote the last batches and a footer.
  ASSERT_TRUE(run.trace.has_footer);
  EXPECT_EQ(run.trace.footer.reason(), "exit");
  // The sampler's open batch was submitted at _exit: samples up to its
  // last 10 ms sampling interval (90 % of the 800 ms burned).
  EXPECT_GE(run.trace.MaxThreadCpuNs(run.worker), 720'000'000u);
}

TEST(ForkedWorkerE2eTest, WorkerKilledKeepsWhatItsPeriodicFlushesWrote) {
  const std::string dir = MakeTempDir("forked_worker_killed");
  WorkerRun run;
  RunTarget({"--sigkill"}, RecordingEnv(dir + "/session"), dir, &run);
  ASSERT_TRUE(run.found) << "no trace file of the worker " << run.worker;
  EXPECT_EQ(run.trace.header.origin(), "fork");
  EXPECT_FALSE(run.trace.has_footer);  // nothing ran at SIGKILL
  EXPECT_EQ(run.trace.trailing_bytes, 0u);
  // Samples up to at least 400 of the 800 ms survive (a batch every
  // 200 ms, written within the next 200 ms).
  EXPECT_GE(run.trace.MaxThreadCpuNs(run.worker), 400'000'000u);
}

TEST(ForkedWorkerE2eTest, AnExplicitFlushIntervalAppliesToWorkersToo) {
  const std::string dir = MakeTempDir("forked_worker_explicit");
  auto env = RecordingEnv(dir + "/session");
  // Far longer than the worker lives even on a loaded machine (it burns
  // 800 ms of CPU): with the 200 ms default for workers the killed worker
  // would leave a file, with the explicit interval it leaves none.
  env["FEEDPROF_FLUSH_INTERVAL_MS"] = "120000";
  WorkerRun run;
  RunTarget({"--sigkill"}, env, dir, &run);
  // The worker was killed before its first 120 s flush: its file was
  // never named. The parent's file is there.
  EXPECT_FALSE(run.found) << run.trace.path;
  EXPECT_EQ(run.files, 1);
}

}  // namespace
}  // namespace feedprof::e2e
