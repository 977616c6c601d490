// End to end: a Python program whose threads emit NVTX ranges through a
// small C library loaded with ctypes. The library's own NVTX instance must
// find libfeedprof.so through NVTX_INJECTION64_PATH, which the preloaded
// library sets for the process, and each Python thread's ranges must land
// on that thread with their nesting.
#include <unistd.h>

#include <filesystem>
#include <set>

#include "gtest/gtest.h"
#include "tests/e2e/child_process.h"
#include "tests/e2e/e2e_paths.h"
#include "tests/e2e/trace_file.h"

namespace feedprof::e2e {
namespace {

constexpr int kTimeoutMs = 60000;
constexpr size_t kThreads = 4;
constexpr size_t kSteps = 5;

std::string Python() {
  for (const char* candidate : {"/usr/bin/python3", "/usr/local/bin/python3"}) {
    if (access(candidate, X_OK) == 0) return candidate;
  }
  return "";
}

TEST(PythonNvtxE2eTest, ThreadsEmitNestedRangesThroughCtypes) {
  const std::string python = Python();
  if (python.empty()) GTEST_SKIP() << "python3 not found";
  const std::string dir = MakeTempDir("python");
  auto env = RecordingEnv(dir + "/traces");
  env["NVTX_SHIM_PATH"] = kShimPath;
  ExitStatus status;
  std::string out, err;
  pid_t pid = 0;
  {
    ChildProcess process({python, kPythonScriptPath}, env, dir + "/python");
    ASSERT_TRUE(process.Wait(kTimeoutMs, &status));
    out = process.Stdout();
    err = process.Stderr();
    pid = process.pid();
  }
  ASSERT_TRUE(status.exited) << err;
  ASSERT_EQ(status.code, 0) << err;
  EXPECT_NE(out.find("threads: 4"), std::string::npos) << out;

  const TraceFile* trace = nullptr;
  std::vector<TraceFile> traces;
  for (const std::string& path : FindTraceFiles(dir + "/traces")) {
    TraceFile t;
    std::string error;
    ASSERT_TRUE(ReadTraceFile(path, &t, &error)) << error;
    traces.push_back(std::move(t));
  }
  for (const TraceFile& t : traces) {
    if (t.has_header && t.header.pid() == static_cast<uint32_t>(pid)) {
      trace = &t;
    }
  }
  ASSERT_NE(trace, nullptr) << "no trace of the python process; stderr:\n"
                            << err;

  const auto workers = trace->RangesNamed("py-worker");
  ASSERT_EQ(workers.size(), kThreads);
  std::set<uint32_t> tids;
  for (const Range& w : workers) {
    EXPECT_EQ(w.depth, 0u);
    tids.insert(w.tid);
    const auto steps = trace->RangesNamed("py-step", w.tid);
    ASSERT_EQ(steps.size(), kSteps);
    for (const Range& s : steps) {
      EXPECT_EQ(s.depth, 1u);
      EXPECT_LE(w.start_ns, s.start_ns);
      EXPECT_LE(s.end_ns, w.end_ns);
    }
  }
  EXPECT_EQ(tids.size(), kThreads) << "each worker runs on its own thread";
  EXPECT_EQ(tids.count(static_cast<uint32_t>(pid)), 0u)
      << "no worker range on the main thread";
  EXPECT_EQ(trace->MarksNamed("py-mark").size(), kThreads);

  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
}

}  // namespace
}  // namespace feedprof::e2e
