// Processes that end with _exit or _Exit (no exit handler runs): the
// library exports both in front of the C library's and finishes the
// trace first, with a bounded wait (docs/recording.md, "Exit").
//
//   - forked workers, however short, each keep a complete file (a footer
//     "exit"), and the exit statuses and the parent's output do not change;
//   - a vfork child's _exit passes straight through, and the parent's
//     recording goes on;
//   - an exec'd helper that stays trivial (system("/bin/true")), and the
//     subshells of a helper shell, leave no file;
//   - a SIGTERM that lands while _exit flushes does not cut the file;
//   - Python workers ending with os._exit, ten runs in a row, the workers
//     of a multiprocessing pool, and a real torch DataLoader when torch is
//     installed;
//   - how long _exit takes with the library (printed; bounded).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/e2e/child_process.h"
#include "tests/e2e/e2e_paths.h"
#include "tests/e2e/program_run.h"
#include "tests/e2e/trace_file.h"

namespace feedprof::e2e {
namespace {

const std::string kTarget = FEEDPROF_BINARY_DIR "/tests/e2e/worker_exit_target";

// The values of the "KEY VALUE" lines of a report file named `key`.
std::vector<uint64_t> ReportValues(const std::string& path,
                                   const std::string& key) {
  std::vector<uint64_t> values;
  std::istringstream in(ReadWholeFile(path));
  std::string name;
  uint64_t value = 0;
  while (in >> name >> value) {
    if (name == key) values.push_back(value);
  }
  return values;
}

// Every trace file of `session`, read; pid -> trace. A pid with two files,
// an unreadable file or one cut mid-packet fails the test.
std::map<uint32_t, TraceFile> ReadSession(const std::string& session) {
  std::map<uint32_t, TraceFile> traces;
  for (const std::string& path : FindTraceFiles(session)) {
    TraceFile trace;
    std::string error;
    EXPECT_TRUE(ReadTraceFile(path, &trace, &error)) << error;
    EXPECT_TRUE(trace.has_header) << path;
    EXPECT_EQ(trace.trailing_bytes, 0u) << path;
    const uint32_t pid = trace.header.pid();
    EXPECT_EQ(traces.count(pid), 0u) << "two files of pid " << pid;
    traces[pid] = std::move(trace);
  }
  return traces;
}

class WorkerExitE2eTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = MakeTempDir("worker_exit");
    ASSERT_FALSE(dir_.empty());
  }
  void TearDown() override {
    std::error_code ec;
    if (!HasFailure()) std::filesystem::remove_all(dir_, ec);
  }

  // Runs the target in `mode` without and with the library: the output
  // and the exit code must be the same. Returns the recorded run.
  ProgramRun RunBothWays(const std::string& mode) {
    ProgramRun plain;
    RunToEnd({kTarget, mode, dir_ + "/plain.report"}, EnvWithoutLibrary(),
             dir_ + "/plain", &plain);
    EXPECT_TRUE(plain.status.exited);
    EXPECT_EQ(plain.status.code, 0) << plain.out << plain.err;
    ProgramRun recorded;
    RunToEnd({kTarget, mode, report()}, RecordingEnv(session()),
             dir_ + "/recorded", &recorded);
    EXPECT_TRUE(recorded.status.exited);
    EXPECT_EQ(recorded.status.code, plain.status.code) << recorded.err;
    EXPECT_EQ(recorded.out, plain.out);
    EXPECT_EQ(WithoutFeedprofLines(recorded.err), plain.err);
    return recorded;
  }

  std::string session() const { return dir_ + "/session"; }
  std::string report() const { return dir_ + "/recorded.report"; }

  std::string dir_;
};

TEST_F(WorkerExitE2eTest, ShortWorkersEndingWithExitEachKeepACompleteFile) {
  const ProgramRun run = RunBothWays("fork");
  EXPECT_EQ(run.out,
            "worker 0 _exit status 3\nworker 1 _exit status 3\n"
            "worker 2 _Exit status 5\n");
  const std::vector<uint64_t> workers = ReportValues(report(), "pid");
  ASSERT_EQ(workers.size(), 3u);

  const std::map<uint32_t, TraceFile> traces = ReadSession(session());
  EXPECT_EQ(traces.size(), 4u);  // the parent and its three workers
  const uint32_t parent = static_cast<uint32_t>(run.pid);
  ASSERT_EQ(traces.count(parent), 1u);
  EXPECT_EQ(traces.at(parent).header.origin(), "start");
  EXPECT_TRUE(traces.at(parent).has_footer);
  for (const uint64_t worker : workers) {
    const uint32_t pid = static_cast<uint32_t>(worker);
    ASSERT_EQ(traces.count(pid), 1u) << "no file of worker " << pid;
    const TraceFile& t = traces.at(pid);
    EXPECT_EQ(t.header.origin(), "fork") << t.path;
    EXPECT_EQ(t.header.parent_trace_pid(), parent) << t.path;
    // Finished at _exit: the last packet is a footer, as at exit.
    ASSERT_TRUE(t.has_footer) << t.path;
    EXPECT_EQ(t.footer.reason(), "exit") << t.path;
    EXPECT_TRUE(t.has_drops) << t.path;
  }
}

TEST_F(WorkerExitE2eTest, VforkChildPassesStraightThrough) {
  // One child calls _exit at once, the other after its exec failed: both
  // share the parent's memory and ran no fork hook, so they must not touch
  // the recorder, and the parent records on.
  const ProgramRun run = RunBothWays("vfork");
  EXPECT_EQ(run.out,
            "vfork child status 7\nvfork child after a failed exec status 7\n");
  const std::map<uint32_t, TraceFile> traces = ReadSession(session());
  ASSERT_EQ(traces.size(), 1u);
  const uint32_t parent = static_cast<uint32_t>(run.pid);
  ASSERT_EQ(traces.count(parent), 1u);
  const TraceFile& t = traces.at(parent);
  EXPECT_EQ(t.RangesNamed("after_vfork", parent).size(), 1u);
  ASSERT_TRUE(t.has_footer);
  EXPECT_EQ(t.footer.reason(), "exit");
  // The parent's exit line, as without any vfork.
  EXPECT_NE(run.err.find("feedprof: trace written to "), std::string::npos)
      << run.err;
}

TEST_F(WorkerExitE2eTest, ExecdTrivialHelperStillLeavesNoFile) {
  // system() runs sh -c /bin/true: exec'd programs that record nothing,
  // use little CPU and end soon leave no file, _exit or not. So do the
  // subshells of such a shell (forks without exec, ending with _exit): a
  // shell's subshell is a helper like the shell.
  const ProgramRun run = RunBothWays("system");
  EXPECT_EQ(run.out, "system status 0\nsystem status 0\n");
  const std::map<uint32_t, TraceFile> traces = ReadSession(session());
  ASSERT_EQ(traces.size(), 1u);
  EXPECT_EQ(traces.begin()->first, static_cast<uint32_t>(run.pid));
  EXPECT_EQ(traces.begin()->second.header.origin(), "start");
}

TEST_F(WorkerExitE2eTest, SigtermDuringTheExitFlushDoesNotCutIt) {
  // A multiprocessing pool's terminate() sends SIGTERM to workers that may
  // be ending with os._exit already. The library's _exit blocks signals
  // while it flushes: the worker ends with its own status (4) and a
  // complete file. A SIGTERM just before _exit is flushed by the signal
  // handler: a complete file too, with the footer "signal". The race is
  // run five times.
  const ProgramRun first = RunBothWays("term-during-exit");
  EXPECT_EQ(first.out, "worker ended with _exit(4) or SIGTERM: yes\n");
  int blocked = 0;
  for (int i = 0; i < 5; ++i) {
    SCOPED_TRACE("run " + std::to_string(i));
    const std::string session = dir_ + "/term" + std::to_string(i);
    const std::string report = session + ".report";
    ProgramRun run;
    if (i == 0) {
      std::filesystem::rename(this->session(), session);
      std::filesystem::rename(this->report(), report);
      run = first;
    } else {
      RunToEnd({kTarget, "term-during-exit", report}, RecordingEnv(session),
               dir_ + "/term", &run);
    }
    ASSERT_EQ(run.status.code, 0) << run.err;
    const std::vector<uint64_t> workers = ReportValues(report, "pid");
    const std::vector<uint64_t> statuses = ReportValues(report, "exit_status");
    ASSERT_EQ(workers.size(), 1u);
    ASSERT_EQ(statuses.size(), 1u);
    const std::map<uint32_t, TraceFile> traces = ReadSession(session);
    const auto it = traces.find(static_cast<uint32_t>(workers[0]));
    ASSERT_NE(it, traces.end()) << "no file of the worker";
    const TraceFile& t = it->second;
    ASSERT_TRUE(t.has_footer) << t.path;
    EXPECT_EQ(t.footer.reason(), statuses[0] == 4 ? "exit" : "signal");
    EXPECT_EQ(t.RangesNamed("before_exit").size(), 200000u);
    blocked += statuses[0] == 4 ? 1 : 0;
  }
  std::printf(
      "SIGTERM at _exit: %d of 5 workers ended with _exit(4), the signal "
      "blocked during the flush; the others got it just before\n",
      blocked);
}

TEST_F(WorkerExitE2eTest, ExitWaitsBoundedAndBriefly) {
  // Each of 20 workers measures from its _exit call until the parent has
  // reaped it: the library adds the last flush, bounded by 0.5 s.
  ProgramRun plain;
  RunToEnd({kTarget, "timing", dir_ + "/plain.report"}, EnvWithoutLibrary(),
           dir_ + "/plain", &plain);
  ASSERT_EQ(plain.status.code, 0) << plain.err;
  ProgramRun recorded;
  RunToEnd({kTarget, "timing", report()}, RecordingEnv(session()),
           dir_ + "/recorded", &recorded);
  ASSERT_EQ(recorded.status.code, 0) << recorded.err;
  EXPECT_EQ(recorded.out, plain.out);

  std::vector<uint64_t> without =
      ReportValues(dir_ + "/plain.report", "exit_ns");
  std::vector<uint64_t> with = ReportValues(report(), "exit_ns");
  ASSERT_EQ(without.size(), 20u);
  ASSERT_EQ(with.size(), 20u);
  std::sort(without.begin(), without.end());
  std::sort(with.begin(), with.end());
  std::printf(
      "_exit to reaped: without the library median %.2f ms, max %.2f ms; "
      "with it median %.2f ms, max %.2f ms\n",
      static_cast<double>(without[10]) / 1e6,
      static_cast<double>(without.back()) / 1e6,
      static_cast<double>(with[10]) / 1e6,
      static_cast<double>(with.back()) / 1e6);
  // The library waits at most 0.5 s (the sampler's batch 0.1 s, the
  // writer 0.4 s); this only catches a wait that is not bounded, leaving
  // a loaded machine room to schedule and reap the child.
  EXPECT_LT(with.back(), 2'000'000'000u);

  const std::map<uint32_t, TraceFile> traces = ReadSession(session());
  size_t complete = 0;
  for (const uint64_t pid : ReportValues(report(), "pid")) {
    const auto it = traces.find(static_cast<uint32_t>(pid));
    ASSERT_NE(it, traces.end()) << "no file of worker " << pid;
    complete += it->second.has_footer ? 1 : 0;
  }
  EXPECT_EQ(complete, 20u);
}

std::string Python() {
  for (const char* candidate : {"/usr/bin/python3", "/usr/local/bin/python3"}) {
    if (access(candidate, X_OK) == 0) return candidate;
  }
  return "";
}

// Two workers forked with os.fork(), each burning ~50 ms of CPU and ending
// with os._exit(0), as multiprocessing and DataLoader workers end. Prints
// the workers' pids, then their exit codes.
constexpr char kForkScript[] = R"PY(
import os, time

def burn(seconds):
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass

pids = []
for _ in range(2):
    pid = os.fork()
    if pid == 0:
        burn(0.05)
        os._exit(0)
    pids.append(pid)
codes = [os.WEXITSTATUS(os.waitpid(pid, 0)[1]) for pid in pids]
print(*pids)
print(*codes)
)PY";

// The pids on the first line of `out`.
std::vector<uint32_t> PidsOnFirstLine(const std::string& out) {
  std::istringstream in(out.substr(0, out.find('\n')));
  std::vector<uint32_t> pids;
  for (uint32_t pid = 0; in >> pid;) pids.push_back(pid);
  return pids;
}

TEST_F(WorkerExitE2eTest, PythonWorkersEndingWithOsExitKeepTheirFilesEveryRun) {
  const std::string python = Python();
  if (python.empty()) GTEST_SKIP() << "python3 not found";
  constexpr int kRuns = 10;
  int runs_with_all_files = 0;
  for (int i = 0; i < kRuns; ++i) {
    SCOPED_TRACE("run " + std::to_string(i));
    const std::string session = dir_ + "/python" + std::to_string(i);
    ProgramRun run;
    RunToEnd({python, "-c", kForkScript}, RecordingEnv(session),
             dir_ + "/python", &run);
    ASSERT_TRUE(run.status.exited);
    ASSERT_EQ(run.status.code, 0) << run.err;
    const std::vector<uint32_t> workers = PidsOnFirstLine(run.out);
    ASSERT_EQ(workers.size(), 2u) << run.out;
    EXPECT_NE(run.out.find("\n0 0\n"), std::string::npos) << run.out;
    const std::map<uint32_t, TraceFile> traces = ReadSession(session);
    EXPECT_EQ(traces.count(static_cast<uint32_t>(run.pid)), 1u);
    bool all = traces.size() == 3;
    for (const uint32_t pid : workers) {
      const auto it = traces.find(pid);
      EXPECT_NE(it, traces.end()) << "no file of worker " << pid;
      if (it == traces.end()) {
        all = false;
        continue;
      }
      EXPECT_EQ(it->second.header.origin(), "fork");
      EXPECT_TRUE(it->second.has_footer) << it->second.path;
    }
    runs_with_all_files += all ? 1 : 0;
  }
  std::printf("python os._exit workers: %d of %d runs left every file\n",
              runs_with_all_files, kRuns);
  EXPECT_EQ(runs_with_all_files, kRuns);
}

// A multiprocessing pool closed and joined: its workers end with os._exit
// when they find their task queue closed. Prints the workers' pids.
constexpr char kPoolScript[] = R"PY(
import multiprocessing as mp

def square(x):
    return x * x

pool = mp.get_context("fork").Pool(2)
workers = [p.pid for p in pool._pool]
assert sum(pool.map(square, range(100))) == 328350
pool.close()
pool.join()
print(*workers)
)PY";

TEST_F(WorkerExitE2eTest, PoolWorkersKeepTheirFiles) {
  const std::string python = Python();
  if (python.empty()) GTEST_SKIP() << "python3 not found";
  constexpr int kRuns = 5;
  for (int i = 0; i < kRuns; ++i) {
    SCOPED_TRACE("run " + std::to_string(i));
    const std::string session = dir_ + "/pool" + std::to_string(i);
    ProgramRun run;
    RunToEnd({python, "-c", kPoolScript}, RecordingEnv(session), dir_ + "/pool",
             &run);
    ASSERT_TRUE(run.status.exited);
    ASSERT_EQ(run.status.code, 0) << run.err;
    const std::vector<uint32_t> workers = PidsOnFirstLine(run.out);
    ASSERT_EQ(workers.size(), 2u) << run.out;
    const std::map<uint32_t, TraceFile> traces = ReadSession(session);
    EXPECT_EQ(traces.size(), 3u);
    for (const uint32_t pid : workers) {
      const auto it = traces.find(pid);
      ASSERT_NE(it, traces.end()) << "no file of pool worker " << pid;
      EXPECT_EQ(it->second.header.origin(), "fork");
      ASSERT_TRUE(it->second.has_footer) << it->second.path;
      EXPECT_EQ(it->second.footer.reason(), "exit");
    }
  }
}

// A DataLoader with two forked workers (the default start method on Linux
// before Python 3.14, named so that it does not depend on the version) over
// a small in-memory data set, about a second of work in the parent. Prints the
// workers' pids (each worker reports its own with its batches) and the number
// of batches.
constexpr char kDataLoaderScript[] = R"PY(
import os, time
import torch
from torch.utils.data import DataLoader, Dataset

class Squares(Dataset):
    def __len__(self):
        return 64
    def __getitem__(self, i):
        return torch.tensor([float(i * i)]), os.getpid()

loader = DataLoader(Squares(), batch_size=8, num_workers=2,
                    multiprocessing_context="fork")
pids, batches = set(), 0
for x, pid in loader:
    pids.update(int(p) for p in pid)
    batches += 1
    end = time.process_time() + 0.1
    while time.process_time() < end:
        x = x * 1.0001
print(*sorted(pids))
print(batches)
)PY";

TEST_F(WorkerExitE2eTest, TorchDataLoaderWorkersKeepTheirFiles) {
  const std::string python = Python();
  if (python.empty()) GTEST_SKIP() << "python3 not found";
  const std::string probe = python + " -c 'import torch' >/dev/null 2>&1";
  if (std::system(probe.c_str()) != 0) {
    GTEST_SKIP() << "torch is not installed for " << python
                 << ": the DataLoader test needs it";
  }
  ProgramRun run;
  RunToEnd({python, "-c", kDataLoaderScript}, RecordingEnv(session()),
           dir_ + "/torch", &run);
  ASSERT_TRUE(run.status.exited);
  ASSERT_EQ(run.status.code, 0) << run.err;
  const std::vector<uint32_t> workers = PidsOnFirstLine(run.out);
  ASSERT_EQ(workers.size(), 2u) << run.out;
  const std::map<uint32_t, TraceFile> traces = ReadSession(session());
  for (const uint32_t pid : workers) {
    const auto it = traces.find(pid);
    ASSERT_NE(it, traces.end()) << "no file of DataLoader worker " << pid;
    EXPECT_EQ(it->second.header.origin(), "fork");
    EXPECT_EQ(it->second.header.parent_trace_pid(),
              static_cast<uint32_t>(run.pid));
    EXPECT_TRUE(it->second.has_footer) << it->second.path;  // os._exit
  }
}

}  // namespace
}  // namespace feedprof::e2e
