// A forked worker that ends with _exit runs no exit handler: only what its
// periodic flushes wrote survives. Forked children flush every 200 ms
// (kForkedChildFlushIntervalMs) instead of every second, so a worker that
// burned 800 ms of CPU leaves a trace with most of it; with the 1 s
// interval of other processes it would have left no file at all.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "tests/e2e/child_process.h"
#include "tests/e2e/e2e_paths.h"
#include "tests/e2e/trace_file.h"

namespace feedprof::e2e {
namespace {

const std::string kTarget = FEEDPROF_BINARY_DIR "/tests/e2e/fork_exit_target";

TEST(ForkedWorkerE2eTest, WorkerEndingWithExitKeepsMostOfItsSamples) {
  const std::string dir = MakeTempDir("forked_worker");
  ChildProcess parent({kTarget}, RecordingEnv(dir + "/session"),
                      dir + "/parent");
  ExitStatus status;
  ASSERT_TRUE(parent.Wait(60'000, &status));
  ASSERT_TRUE(status.exited);
  ASSERT_EQ(status.code, 0) << parent.Stderr();
  const uint32_t worker =
      static_cast<uint32_t>(std::strtoul(parent.Stdout().c_str(), nullptr, 10));
  ASSERT_GT(worker, 0u);

  bool found = false;
  uint64_t worker_cpu_ns = 0;
  for (const std::string& path : FindTraceFiles(dir + "/session")) {
    TraceFile trace;
    std::string error;
    ASSERT_TRUE(ReadTraceFile(path, &trace, &error)) << error;
    if (trace.header.pid() != worker) continue;
    found = true;
    EXPECT_EQ(trace.header.origin(), "fork");
    EXPECT_FALSE(trace.has_footer);  // _exit: no exit handler wrote one
    for (const ThreadSample& s : trace.thread_samples) {
      if (s.tid == worker) {
        worker_cpu_ns = std::max(worker_cpu_ns, s.user_ns + s.system_ns);
      }
    }
  }
  ASSERT_TRUE(found) << "no trace file of the worker " << worker;
  // Samples up to at least 400 of the 800 ms survive (a batch every
  // 200 ms, written within the next 200 ms).
  EXPECT_GE(worker_cpu_ns, 400'000'000u);
}

TEST(ForkedWorkerE2eTest, AnExplicitFlushIntervalAppliesToWorkersToo) {
  const std::string dir = MakeTempDir("forked_worker_explicit");
  auto env = RecordingEnv(dir + "/session");
  // Far longer than the worker lives even on a loaded machine (it burns
  // 800 ms of CPU): with the 200 ms default for workers it would leave a
  // file, with the explicit interval it leaves none.
  env["FEEDPROF_FLUSH_INTERVAL_MS"] = "120000";
  ChildProcess parent({kTarget}, env, dir + "/parent");
  ExitStatus status;
  ASSERT_TRUE(parent.Wait(60'000, &status));
  ASSERT_EQ(status.code, 0) << parent.Stderr();
  const uint32_t worker =
      static_cast<uint32_t>(std::strtoul(parent.Stdout().c_str(), nullptr, 10));
  // The worker ended (by _exit) before its first 120 s flush: no file; the
  // parent's file is there.
  int files = 0;
  for (const std::string& path : FindTraceFiles(dir + "/session")) {
    TraceFile trace;
    std::string error;
    ASSERT_TRUE(ReadTraceFile(path, &trace, &error)) << error;
    EXPECT_NE(trace.header.pid(), worker) << path;
    ++files;
  }
  EXPECT_EQ(files, 1);
}

}  // namespace
}  // namespace feedprof::e2e
