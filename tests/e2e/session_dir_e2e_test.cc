// End to end: the session directory appears only when a trace file is
// written into it. A recorded NVTX program leaves the default-named
// directory in its current directory, with its file; when a shell's
// exec'd child is the first to write, that child creates the directory and
// the whole run still makes exactly one; a run in which no process writes
// a file (killed before its first flush) leaves no directory at all. The runs
// are started with `env -C`, so that the recorded processes start in a
// directory of the test's own.
#include <signal.h>
#include <sys/stat.h>

#include <filesystem>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/e2e/child_process.h"
#include "tests/e2e/e2e_paths.h"
#include "tests/e2e/trace_file.h"

namespace feedprof::e2e {
namespace {

constexpr int kRunTimeoutMs = 60000;
constexpr int kExampleExitCode = 3;

class SessionDirE2eTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = MakeTempDir("session-dir");
    ASSERT_FALSE(dir_.empty());
    work_ = dir_ + "/work";
    ASSERT_EQ(mkdir(work_.c_str(), 0755), 0);
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  // Runs `argv` in work_ with the library preloaded and no session of an
  // outer recording; waits for it.
  ExitStatus RunInWork(const std::vector<std::string>& argv) {
    std::vector<std::string> full = {"/usr/bin/env", "-C", work_,
                                     "LD_PRELOAD=" + kLibraryPath};
    full.insert(full.end(), argv.begin(), argv.end());
    ChildProcess process(full,
                         {{"LD_PRELOAD", ""},
                          {"FEEDPROF_OUTPUT_DIR", ""},
                          {"FEEDPROF_SESSION_DIR", ""},
                          {"FEEDPROF_SESSION_TOKEN", ""},
                          {"FEEDPROF_SESSION_PID", ""},
                          {"FEEDPROF_DISABLE", ""},
                          {"NVTX_INJECTION64_PATH", ""}},
                         dir_ + "/run");
    ExitStatus status;
    EXPECT_TRUE(process.started() && process.Wait(kRunTimeoutMs, &status));
    stdout_ = process.Stdout();
    stderr_ = process.Stderr();
    return status;
  }

  // Everything the run left in work_.
  std::vector<std::string> WorkEntries() const {
    std::vector<std::string> entries;
    for (const auto& e : std::filesystem::directory_iterator(work_)) {
      entries.push_back(e.path().filename().string());
    }
    return entries;
  }

  std::vector<TraceFile> TracesIn(const std::string& dir) {
    std::vector<TraceFile> traces;
    for (const std::string& path : FindTraceFiles(dir)) {
      TraceFile trace;
      std::string error;
      EXPECT_TRUE(ReadTraceFile(path, &trace, &error)) << error;
      traces.push_back(std::move(trace));
    }
    return traces;
  }

  std::string dir_;
  std::string work_;
  std::string stdout_;
  std::string stderr_;
};

TEST_F(SessionDirE2eTest, RunThatWritesNoFileLeavesNoDirectory) {
  // The shell kills itself with SIGKILL before its first flush, its exec'd
  // helper recorded nothing: no process of the run writes a trace file, so
  // the session directory is never made.
  const ExitStatus status = RunInWork({"sh", "-c", "/bin/echo hi; kill -9 $$"});
  ASSERT_FALSE(status.exited);
  EXPECT_EQ(status.signal, SIGKILL);
  EXPECT_EQ(stdout_, "hi\n");
  EXPECT_EQ(stderr_, "");
  EXPECT_TRUE(WorkEntries().empty())
      << "left behind: " << ::testing::PrintToString(WorkEntries());
}

TEST_F(SessionDirE2eTest, NvtxProgramLeavesTheDefaultDirectoryWithItsFile) {
  const ExitStatus status = RunInWork(
      {kExamplePath, "--burn-ms", "20", "--report", dir_ + "/report.txt"});
  ASSERT_TRUE(status.exited);
  EXPECT_EQ(status.code, kExampleExitCode);
  const std::vector<std::string> entries = WorkEntries();
  ASSERT_EQ(entries.size(), 1u) << ::testing::PrintToString(entries);
  EXPECT_EQ(entries[0].rfind("feedprof-", 0), 0u) << entries[0];
  const std::vector<TraceFile> traces = TracesIn(work_ + "/" + entries[0]);
  int started = 0;
  for (const TraceFile& t : traces) {
    ASSERT_TRUE(t.has_header) << t.path;
    if (t.header.origin() != "start") continue;
    ++started;
    EXPECT_FALSE(t.ranges.empty()) << t.path;
    EXPECT_TRUE(t.has_footer) << t.path;
  }
  EXPECT_EQ(started, 1);
}

TEST_F(SessionDirE2eTest, ExecdChildThatWritesFirstMakesTheOneDirectory) {
  // The shell starts the session and only chooses its name; the example,
  // exec'd by a fork of the shell, writes first and creates it; the forked
  // worker of the example joins it.
  const std::string script = "'" + kExamplePath + "' --burn-ms 20 --report '" +
                             dir_ + "/report.txt'; echo after";
  const ExitStatus status = RunInWork({"sh", "-c", script});
  ASSERT_TRUE(status.exited);
  EXPECT_EQ(status.code, 0);
  EXPECT_NE(stdout_.find("after\n"), std::string::npos) << stdout_;
  const std::vector<std::string> entries = WorkEntries();
  ASSERT_EQ(entries.size(), 1u) << ::testing::PrintToString(entries);
  const std::vector<TraceFile> traces = TracesIn(work_ + "/" + entries[0]);
  int execed = 0;
  for (const TraceFile& t : traces) {
    ASSERT_TRUE(t.has_header) << t.path;
    if (t.header.origin() == "exec") {
      ++execed;
      EXPECT_FALSE(t.ranges.empty()) << t.path;
    }
  }
  EXPECT_EQ(execed, 1);
}

TEST_F(SessionDirE2eTest, StarterThatExecsItselfKeepsItsFileAfterTheExec) {
  // A wrapper that execs the real program in its own process (a pyenv shim,
  // `bash -c 'exec python ...'`) hands over the process the user started:
  // even a short, eventless program keeps its file, as it would have when
  // started directly.
  const ExitStatus status = RunInWork({"sh", "-c", "exec /bin/true"});
  ASSERT_TRUE(status.exited);
  EXPECT_EQ(status.code, 0);
  const std::vector<std::string> entries = WorkEntries();
  ASSERT_EQ(entries.size(), 1u) << ::testing::PrintToString(entries);
  EXPECT_EQ(
      stderr_.rfind(
          "feedprof: trace written to " + work_ + "/" + entries[0] + "/", 0),
      0u)
      << stderr_;
  const std::vector<TraceFile> traces = TracesIn(work_ + "/" + entries[0]);
  ASSERT_EQ(traces.size(), 1u);
  ASSERT_TRUE(traces[0].has_header);
  EXPECT_EQ(traces[0].header.origin(), "exec");
  EXPECT_TRUE(traces[0].has_footer);
}

}  // namespace
}  // namespace feedprof::e2e
