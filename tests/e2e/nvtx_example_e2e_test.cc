// End to end: nvtx_threads_example runs under libfeedprof.so as a user would
// run it, and its trace must say exactly what the program did: every NVTX
// range with its name, thread, nesting depth and attributes, the marks, the
// thread names, the CPU the busy thread burned, and a file of its own for
// the forked worker. Its output and exit code must not change.
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <sstream>

#include "gtest/gtest.h"
#include "tests/e2e/child_process.h"
#include "tests/e2e/e2e_paths.h"
#include "tests/e2e/trace_file.h"

namespace feedprof::e2e {
namespace {

constexpr int kRunTimeoutMs = 60000;
constexpr int kExampleExitCode = 3;
constexpr uint64_t kBurnMs = 300;

// One recorded run of the example, shared by the tests of this file.
struct RecordedRun {
  std::string dir;
  ExitStatus status;
  std::string stdout_text;
  std::string stderr_text;
  std::map<std::string, uint64_t> report;
  std::vector<TraceFile> traces;
  std::string error;

  const TraceFile* TraceOf(uint64_t pid) const {
    for (const TraceFile& t : traces) {
      if (t.has_header && t.header.pid() == pid) return &t;
    }
    return nullptr;
  }
};

RecordedRun* g_run = nullptr;

class NvtxExampleE2eTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    g_run = new RecordedRun;
    g_run->dir = MakeTempDir("nvtx-example");
    const std::string report = g_run->dir + "/report.txt";
    const std::string traces = g_run->dir + "/traces";
    ChildProcess process({kExamplePath, "--burn-ms", std::to_string(kBurnMs),
                          "--report", report},
                         RecordingEnv(traces), g_run->dir + "/example");
    if (!process.started() || !process.Wait(kRunTimeoutMs, &g_run->status)) {
      g_run->error = "the example did not start or did not finish";
      return;
    }
    g_run->stdout_text = process.Stdout();
    g_run->stderr_text = process.Stderr();
    g_run->report = ReadReport(report);
    for (const std::string& path : FindTraceFiles(traces)) {
      TraceFile trace;
      std::string error;
      if (!ReadTraceFile(path, &trace, &error)) {
        g_run->error = error;
        return;
      }
      g_run->traces.push_back(std::move(trace));
    }
  }

  static void TearDownTestSuite() {
    if (g_run != nullptr && !g_run->dir.empty()) {
      std::error_code ec;
      std::filesystem::remove_all(g_run->dir, ec);
    }
    delete g_run;
    g_run = nullptr;
  }

  void SetUp() override {
    ASSERT_TRUE(g_run->error.empty()) << g_run->error;
    ASSERT_FALSE(g_run->report.empty())
        << "the example wrote no report; stderr:\n"
        << g_run->stderr_text;
    main_ = g_run->TraceOf(g_run->report.at("pid"));
    ASSERT_NE(main_, nullptr)
        << "no trace file with the example's pid " << g_run->report.at("pid")
        << " among " << g_run->traces.size() << " files; stderr:\n"
        << g_run->stderr_text;
  }

  uint32_t Tid(const std::string& key) const {
    return static_cast<uint32_t>(g_run->report.at(key));
  }

  const TraceFile* main_ = nullptr;
};

TEST_F(NvtxExampleE2eTest, ExitCodeAndOutputPassThrough) {
  EXPECT_TRUE(g_run->status.exited);
  EXPECT_EQ(g_run->status.code, kExampleExitCode);
  EXPECT_NE(g_run->stdout_text.find("child exit: 0"), std::string::npos)
      << g_run->stdout_text;
}

TEST_F(NvtxExampleE2eTest, NestedPushPopRangesHaveNamesDepthsAndCounts) {
  const uint32_t tid = Tid("nested_tid");
  const auto outer = main_->RangesNamed("outer", tid);
  const auto middle = main_->RangesNamed("middle", tid);
  const auto inner = main_->RangesNamed("inner", tid);
  ASSERT_EQ(outer.size(), 10u);
  ASSERT_EQ(middle.size(), 10u);
  ASSERT_EQ(inner.size(), 10u);
  for (const Range& r : outer) {
    EXPECT_EQ(r.depth, 0u);
    EXPECT_FALSE(r.start_end);
  }
  for (const Range& r : middle) EXPECT_EQ(r.depth, 1u);
  for (const Range& r : inner) EXPECT_EQ(r.depth, 2u);
  // Each inner range lies inside a middle range, which lies inside an outer.
  auto inside = [](const Range& child, const std::vector<Range>& parents) {
    return std::any_of(parents.begin(), parents.end(), [&](const Range& p) {
      return p.start_ns <= child.start_ns && child.end_ns <= p.end_ns;
    });
  };
  for (const Range& r : inner) EXPECT_TRUE(inside(r, middle));
  for (const Range& r : middle) EXPECT_TRUE(inside(r, outer));
  // Nothing of the nested thread leaked onto other threads.
  EXPECT_EQ(main_->RangesNamed("outer").size(), 10u);
}

TEST_F(NvtxExampleE2eTest, WideStringNameIsRecordedAsUtf8) {
  const auto wide =
      main_->RangesNamed("wide-\xE5\x90\x8D\xE5\x89\x8D", Tid("nested_tid"));
  ASSERT_EQ(wide.size(), 1u);
  EXPECT_EQ(wide[0].depth, 0u);
}

TEST_F(NvtxExampleE2eTest, StartEndRangesEndOnAnotherThread) {
  const auto cross = main_->RangesNamed("cross-thread");
  ASSERT_EQ(cross.size(), 5u);
  for (const Range& r : cross) {
    EXPECT_TRUE(r.start_end);
    EXPECT_EQ(r.tid, Tid("ender_tid"));
    EXPECT_EQ(r.start_tid, Tid("main_tid"));
    EXPECT_LE(r.start_ns, r.end_ns);
  }
}

TEST_F(NvtxExampleE2eTest, DomainRangesCarryRegisteredNameAndAttributes) {
  auto ranges = main_->RangesNamed("domain-step", Tid("main_tid"));
  ASSERT_EQ(ranges.size(), 4u);
  std::sort(ranges.begin(), ranges.end(), [](const Range& a, const Range& b) {
    return a.start_ns < b.start_ns;
  });
  for (size_t i = 0; i < ranges.size(); ++i) {
    EXPECT_EQ(ranges[i].domain, "example.domain");
    EXPECT_EQ(ranges[i].category, 7u);
    EXPECT_EQ(ranges[i].color, 0xFF00AA00u);
    EXPECT_EQ(ranges[i].payload, i);
    EXPECT_EQ(ranges[i].depth, 0u);
  }
}

TEST_F(NvtxExampleE2eTest, MarksInDefaultAndNamedDomain) {
  const auto marks = main_->MarksNamed("mark-a");
  ASSERT_EQ(marks.size(), 3u);
  for (const Mark& m : marks) {
    EXPECT_EQ(m.tid, Tid("main_tid"));
    EXPECT_EQ(m.domain, "");
  }
  const auto domain_marks = main_->MarksNamed("domain-step");
  ASSERT_EQ(domain_marks.size(), 1u);
  EXPECT_EQ(domain_marks[0].domain, "example.domain");
  EXPECT_EQ(domain_marks[0].category, 7u);
  EXPECT_EQ(domain_marks[0].color, 0xFF00AA00u);
}

TEST_F(NvtxExampleE2eTest, EveryRangeIsRecordedExactlyOnce) {
  // 30 nested + 1 wide + 5 cross-thread + 4 domain + 8 reads + 1 burn.
  EXPECT_EQ(main_->ranges.size(), 49u);
  EXPECT_EQ(main_->RangesNamed("read-chunk", Tid("reader_tid")).size(), 8u);
  EXPECT_EQ(main_->marks.size(), 4u);
}

TEST_F(NvtxExampleE2eTest, ThreadNamesFromNvtxAreRecorded) {
  EXPECT_EQ(main_->thread_names.count(Tid("burner_tid")), 1u);
  if (main_->thread_names.count(Tid("burner_tid")) != 0) {
    EXPECT_EQ(main_->thread_names.at(Tid("burner_tid")), "cpu-burner");
  }
  if (main_->thread_names.count(Tid("reader_tid")) != 0) {
    EXPECT_EQ(main_->thread_names.at(Tid("reader_tid")), "reader");
  }
}

TEST_F(NvtxExampleE2eTest, BurnRangeLastsAtLeastTheCpuTimeBurned) {
  const auto burn = main_->RangesNamed("burn", Tid("burner_tid"));
  ASSERT_EQ(burn.size(), 1u);
  const uint64_t burned = g_run->report.at("burner_cpu_ns");
  EXPECT_GE(burned, kBurnMs * 1000000);
  // One thread cannot use more CPU time than wall time (1 ms of slack for
  // the two clocks being read at slightly different moments).
  EXPECT_GE(burn[0].end_ns - burn[0].start_ns + 1000000, burned);
}

TEST_F(NvtxExampleE2eTest, SampledCpuTimeOfBusyThreadMatchesWhatItBurned) {
  if (main_->thread_samples.empty()) {
    GTEST_SKIP() << "the trace has no host samples (host sampler not built "
                    "into libfeedprof.so); per-thread CPU time not checked";
  }
  const uint64_t burned = g_run->report.at("burner_cpu_ns");
  const uint64_t sampled = main_->MaxThreadCpuNs(Tid("burner_tid"));
  RecordProperty("burned_ns", std::to_string(burned));
  RecordProperty("sampled_ns", std::to_string(sampled));
  // The busy thread lingers 200 ms after burning, so the sampler sees its
  // final CPU time; what remains is the granularity of the kernel's
  // accounting and of the samples (10% either way, plus 20 ms).
  EXPECT_GE(sampled, burned * 9 / 10) << "burned " << burned << " ns";
  EXPECT_LE(sampled, burned * 11 / 10 + 20000000) << "burned " << burned;
}

TEST_F(NvtxExampleE2eTest, ForkedChildWritesItsOwnTrace) {
  const uint64_t child_pid = g_run->report.at("child_pid");
  const TraceFile* child = g_run->TraceOf(child_pid);
  ASSERT_NE(child, nullptr)
      << "no trace file for the forked child " << child_pid;
  EXPECT_NE(child->path, main_->path);
  EXPECT_EQ(child->header.origin(), "fork");
  EXPECT_EQ(child->header.parent_trace_pid(), g_run->report.at("pid"));
  const auto work = child->RangesNamed("child-work");
  ASSERT_EQ(work.size(), 3u);
  for (const Range& r : work) EXPECT_EQ(r.depth, 0u);
  // The parent's ranges are not copied into the child, nor the reverse.
  EXPECT_EQ(child->RangesNamed("outer").size(), 0u);
  EXPECT_EQ(main_->RangesNamed("child-work").size(), 0u);
  EXPECT_TRUE(child->has_footer);
}

TEST_F(NvtxExampleE2eTest, NormalExitLeavesCompleteTraceWithNoDrops) {
  EXPECT_TRUE(main_->has_footer);
  EXPECT_EQ(main_->footer.reason(), "exit");
  EXPECT_EQ(main_->trailing_bytes, 0u);
  ASSERT_TRUE(main_->has_drops);
  EXPECT_EQ(main_->drops.events_dropped(), 0u);
  EXPECT_GE(main_->drops.events_recorded(), 49u + 4u);
}

TEST_F(NvtxExampleE2eTest, TraceFilesAreNotWorldWritable) {
  for (const TraceFile& t : g_run->traces) {
    struct stat st {};
    ASSERT_EQ(stat(t.path.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & S_IWOTH, 0u) << t.path;
  }
}

TEST(NvtxExampleOutputTest, SameOutputAndExitCodeWithAndWithoutLibrary) {
  const std::string dir = MakeTempDir("nvtx-output");
  ExitStatus plain_status;
  ExitStatus recorded_status;
  std::string plain_out, plain_err, recorded_out, recorded_err;
  {
    ChildProcess plain({kExamplePath, "--burn-ms", "50"},
                       {{"LD_PRELOAD", ""}, {"NVTX_INJECTION64_PATH", ""}},
                       dir + "/plain");
    ASSERT_TRUE(plain.Wait(kRunTimeoutMs, &plain_status));
    plain_out = plain.Stdout();
    plain_err = plain.Stderr();
  }
  {
    ChildProcess recorded({kExamplePath, "--burn-ms", "50"},
                          RecordingEnv(dir + "/traces"), dir + "/recorded");
    ASSERT_TRUE(recorded.Wait(kRunTimeoutMs, &recorded_status));
    recorded_out = recorded.Stdout();
    recorded_err = recorded.Stderr();
  }
  EXPECT_TRUE(plain_status.exited);
  EXPECT_EQ(plain_status.code, kExampleExitCode);
  EXPECT_EQ(recorded_status.exited, plain_status.exited);
  EXPECT_EQ(recorded_status.code, plain_status.code);
  EXPECT_FALSE(plain_out.empty());
  EXPECT_EQ(recorded_out, plain_out);
  EXPECT_EQ(WithoutFeedprofLines(recorded_err),
            WithoutFeedprofLines(plain_err));
  // The library did record (so the comparison above is not vacuous).
  EXPECT_FALSE(FindTraceFiles(dir + "/traces").empty());
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
}

// Without LD_PRELOAD, NVTX alone loads the library (dlopen) through
// NVTX_INJECTION64_PATH, as it does for a process that exec'd without the
// preload, or for a user who names the library there directly.
TEST(NvtxExampleInjectionPathTest, NvtxLoadsTheLibraryWithoutPreload) {
  const std::string dir = MakeTempDir("nvtx-dlopen");
  auto env = RecordingEnv(dir + "/traces");
  env["LD_PRELOAD"] = "";
  env["NVTX_INJECTION64_PATH"] = kLibraryPath;
  const std::string report = dir + "/report.txt";
  ExitStatus status;
  {
    ChildProcess process({kExamplePath, "--burn-ms", "20", "--report", report},
                         env, dir + "/example");
    ASSERT_TRUE(process.Wait(kRunTimeoutMs, &status));
    EXPECT_EQ(status.code, kExampleExitCode) << process.Stderr();
  }
  const auto values = ReadReport(report);
  ASSERT_EQ(values.count("pid"), 1u);
  bool found = false;
  for (const std::string& path : FindTraceFiles(dir + "/traces")) {
    TraceFile trace;
    std::string error;
    ASSERT_TRUE(ReadTraceFile(path, &trace, &error)) << error;
    if (trace.header.pid() != values.at("pid")) continue;
    found = true;
    EXPECT_EQ(trace.ranges.size(), 49u);
    EXPECT_EQ(trace.RangesNamed("cross-thread").size(), 5u);
  }
  EXPECT_TRUE(found) << "no trace of the example's pid";
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
}

// Another tool already owns NVTX: feedprof leaves the variable alone, says
// so on stderr, records the rest, and the program runs as before.
TEST(NvtxExampleInjectionPathTest, LeavesAnotherToolsInjectionAlone) {
  const std::string dir = MakeTempDir("nvtx-other-tool");
  auto env = RecordingEnv(dir + "/traces");
  const std::string other_tool = dir + "/libother_nvtx_tool.so";  // absent
  env["NVTX_INJECTION64_PATH"] = other_tool;
  const std::string report = dir + "/report.txt";
  ExitStatus status;
  std::string err;
  {
    ChildProcess process({kExamplePath, "--burn-ms", "300", "--report", report},
                         env, dir + "/example");
    ASSERT_TRUE(process.Wait(kRunTimeoutMs, &status));
    err = process.Stderr();
  }
  EXPECT_EQ(status.code, kExampleExitCode);
  bool said_so = false;
  std::istringstream lines(err);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("feedprof:", 0) == 0 &&
        line.find("NVTX_INJECTION64_PATH") != std::string::npos) {
      said_so = true;
    }
  }
  EXPECT_TRUE(said_so) << err;
  const auto values = ReadReport(report);
  ASSERT_EQ(values.count("pid"), 1u);
  bool found = false;
  for (const std::string& path : FindTraceFiles(dir + "/traces")) {
    TraceFile trace;
    std::string error;
    ASSERT_TRUE(ReadTraceFile(path, &trace, &error)) << error;
    if (trace.header.pid() != values.at("pid")) continue;
    found = true;
    EXPECT_TRUE(trace.ranges.empty()) << "NVTX belongs to the other tool";
  }
  // 300 ms of CPU: a process worth keeping even without NVTX.
  EXPECT_TRUE(found) << "the process was still recorded";
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
}

// FEEDPROF_DISABLE: no trace, NVTX calls stay no-ops, same output.
TEST(NvtxExampleDisabledTest, DisabledLibraryRecordsNothing) {
  const std::string dir = MakeTempDir("nvtx-disabled");
  auto env = RecordingEnv(dir + "/traces");
  env["FEEDPROF_DISABLE"] = "1";
  ExitStatus status;
  ChildProcess process({kExamplePath, "--burn-ms", "20"}, env,
                       dir + "/example");
  ASSERT_TRUE(process.Wait(kRunTimeoutMs, &status));
  EXPECT_EQ(status.code, kExampleExitCode);
  EXPECT_NE(process.Stdout().find("child exit: 0"), std::string::npos);
  EXPECT_TRUE(FindTraceFiles(dir).empty());
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
}

}  // namespace
}  // namespace feedprof::e2e
