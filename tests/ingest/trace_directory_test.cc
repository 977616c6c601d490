// Directories given to LoadTrace: the Kineto traces of a multi-rank run read
// as one timeline (each rank's numbers as when its file is read alone), the
// pid-collision rule, and directories that mix formats or hold none that a
// directory read takes.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "feedprof/analysis.h"
#include "feedprof/trace_loader.h"
#include "tests/testing/timeline_text.h"
#include "tests/testing/trace_test_files.h"

namespace feedprof {
namespace {

using testing::TempDir;
using testing::WriteFile;

// One process `pid` with a launch on thread `pid`, its kernel on device 0,
// and `steps` ProfilerStep ranges; `base` is written as baseTimeNanoseconds
// when not empty.
std::string KinetoTrace(int pid, int rank, double start_us,
                        const std::string& base = "") {
  const std::string p = std::to_string(pid);
  const std::string ts = absl::StrFormat("%.3f", start_us);
  const std::string kts = absl::StrFormat("%.3f", start_us + 10);
  const std::string base_key =
      base.empty() ? "" : R"("baseTimeNanoseconds": )" + base + ", ";
  return R"({"schemaVersion": 1, )" + base_key +
         R"("distributedInfo": {"rank": )" + std::to_string(rank) +
         R"(, "world_size": 2}, "traceEvents": [
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": )" +
         p + R"(, "tid": )" + p + R"(, "ts": )" + ts + R"(, "dur": 100},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": )" +
         p + R"(, "tid": )" + p + R"(, "ts": )" + ts +
         R"(, "dur": 5, "args": {"correlation": 1}},
    {"ph": "X", "cat": "kernel", "name": "rank_kernel", "pid": 0, "tid": 7,
     "ts": )" +
         kts + R"(, "dur": 20, "args": {"device": 0, "stream": 7,
     "correlation": 1}}]})";
}

// Per (pid, device) of the report: span, busy, kernels, copies, memsets.
std::map<std::pair<int32_t, int32_t>, std::vector<int64_t>> DeviceNumbers(
    const Timeline& t) {
  AnalysisOptions options;
  options.what_if.enabled = false;
  absl::StatusOr<Report> report = Analyze(t, options);
  EXPECT_TRUE(report.ok()) << report.status();
  std::map<std::pair<int32_t, int32_t>, std::vector<int64_t>> out;
  if (!report.ok()) return out;
  for (const DeviceReport& d : report->devices) {
    out[{d.pid, d.device}] = {d.span_ns,
                              d.busy_ns,
                              d.idle_ns,
                              static_cast<int64_t>(d.kernel_count),
                              static_cast<int64_t>(d.memcpy_count),
                              static_cast<int64_t>(d.memset_count),
                              static_cast<int64_t>(d.excluded_ops.count)};
  }
  return out;
}

// The pids the merged timeline gives the processes of `file`, in the order
// of `alone`'s processes (both keep the file's order).
std::map<int32_t, int32_t> PidsOf(const Timeline& alone, const Timeline& all,
                                  const std::string& file) {
  std::vector<int32_t> merged;
  for (const Process& p : all.processes) {
    if (p.trace_path == file) merged.push_back(p.pid);
  }
  std::map<int32_t, int32_t> out;
  EXPECT_EQ(merged.size(), alone.processes.size()) << file;
  for (size_t i = 0; i < alone.processes.size() && i < merged.size(); ++i) {
    out[alone.processes[i].pid] = merged[i];
  }
  return out;
}

// Each file's device numbers, read alone, are the merged run's numbers for
// that file's processes.
void ExpectEachRankAsAlone(const Timeline& all,
                           const std::vector<std::string>& files) {
  const auto merged = DeviceNumbers(all);
  size_t devices = 0;
  for (const std::string& file : files) {
    absl::StatusOr<Timeline> alone = LoadTrace(file);
    ASSERT_TRUE(alone.ok()) << alone.status();
    const std::map<int32_t, int32_t> pids = PidsOf(*alone, all, file);
    for (const auto& [key, numbers] : DeviceNumbers(*alone)) {
      ++devices;
      auto pid = pids.find(key.first);
      ASSERT_NE(pid, pids.end()) << file << " pid " << key.first;
      auto it = merged.find({pid->second, key.second});
      ASSERT_NE(it, merged.end()) << file << " device " << key.second;
      EXPECT_EQ(it->second, numbers) << file << " device " << key.second;
    }
  }
  EXPECT_EQ(merged.size(), devices);
}

std::string Shared(const std::string& relative) {
  const std::string path =
      std::string(FEEDPROF_SHARED_TRACES_DIR) + "/" + relative;
  return std::filesystem::exists(path) ? path : std::string();
}

TEST(KinetoDirectoryTest, ReadsEveryRankFileIntoOneRun) {
  TempDir dir;
  // Ranks of one run: distinct ranks, overlapping in time.
  WriteFile(dir.File("rank0.pt.trace.json"), KinetoTrace(100, 0, 1000));
  WriteFile(dir.File("rank1.pt.trace.json"), KinetoTrace(200, 1, 1050));
  absl::StatusOr<Timeline> t = LoadTrace(dir.path());
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->format, SourceFormat::kKineto);
  EXPECT_EQ(t->source_path, dir.path());
  ASSERT_EQ(t->processes.size(), 2u);
  EXPECT_EQ(t->processes[0].pid, 100);
  EXPECT_EQ(t->processes[0].rank, 0);
  EXPECT_EQ(t->processes[1].pid, 200);
  EXPECT_EQ(t->processes[1].rank, 1);
  ASSERT_EQ(t->gpu_ops.size(), 2u);
  EXPECT_EQ(t->gpu_ops[0].pid, 100);
  EXPECT_EQ(t->gpu_ops[0].start, 1'010'000);
  EXPECT_EQ(t->gpu_ops[1].pid, 200);
  EXPECT_EQ(t->gpu_ops[1].start, 1'060'000);
  EXPECT_EQ(t->strings.Get(t->gpu_ops[1].name), "rank_kernel");
  EXPECT_TRUE(t->warnings.empty()) << t->warnings.front();
  ExpectEachRankAsAlone(
      *t, {dir.File("rank0.pt.trace.json"), dir.File("rank1.pt.trace.json")});

  absl::StatusOr<DetectedFormat> detected = DetectTraceFormat(dir.path());
  ASSERT_TRUE(detected.ok()) << detected.status();
  EXPECT_EQ(detected->format, SourceFormat::kKineto);
  EXPECT_EQ(detected->reason, "a directory of 2 Kineto JSON traces");
}

TEST(KinetoDirectoryTest, RenumbersAPidAnEarlierFileUsed) {
  TempDir dir;
  WriteFile(dir.File("a.json"), KinetoTrace(100, 0, 1000));
  // pid 100 again (another host), and pid 101 of its own.
  std::string b = KinetoTrace(100, 1, 1050);
  b.insert(b.rfind(']'), R"(, {"ph": "X", "cat": "cpu_op", "name": "aten::mm",
      "pid": 101, "tid": 101, "ts": 1051, "dur": 1})");
  WriteFile(dir.File("b.json"), b);
  absl::StatusOr<Timeline> t = LoadTrace(dir.path());
  ASSERT_TRUE(t.ok()) << t.status();
  // b's pid 100 becomes 102: one above every pid of a and b (100, 101).
  std::vector<int32_t> pids;
  for (const Process& p : t->processes) pids.push_back(p.pid);
  EXPECT_EQ(pids, (std::vector<int32_t>{100, 102, 101}));
  ASSERT_EQ(t->gpu_ops.size(), 2u);
  EXPECT_EQ(t->gpu_ops[1].pid, 102);
  ASSERT_EQ(t->api_calls.size(), 2u);
  EXPECT_EQ(t->api_calls[0].pid, 100);
  EXPECT_EQ(t->api_calls[1].pid, 102);
  EXPECT_EQ(t->api_calls[1].tid, 100);  // thread ids stay
  for (const Device& d : t->devices) EXPECT_NE(d.pid, 0);
  ASSERT_EQ(t->warnings.size(), 1u);
  EXPECT_EQ(t->warnings[0],
            dir.File("b.json") + ": process id 100 is also in " +
                dir.File("a.json") +
                " (ranks on different hosts, or the same trace twice?); this "
                "file's pid 100 is shown as pid 102 so that the two "
                "processes stay apart");
  ExpectEachRankAsAlone(*t, {dir.File("a.json"), dir.File("b.json")});
}

TEST(KinetoDirectoryTest, OneWarningNamesEveryFileThatSharesAPid) {
  TempDir dir;
  // Three ranks whose containers all gave the trainer pid 7.
  WriteFile(dir.File("a.json"), KinetoTrace(7, 0, 1000));
  WriteFile(dir.File("b.json"), KinetoTrace(7, 1, 1010));
  WriteFile(dir.File("c.json"), KinetoTrace(7, 2, 1020));
  absl::StatusOr<Timeline> t = LoadTrace(dir.path());
  ASSERT_TRUE(t.ok()) << t.status();
  std::vector<int32_t> pids;
  for (const Process& p : t->processes) pids.push_back(p.pid);
  EXPECT_EQ(pids, (std::vector<int32_t>{7, 8, 9}));
  ASSERT_EQ(t->warnings.size(), 1u);
  EXPECT_EQ(t->warnings[0],
            "process id 7 is in 3 files (ranks on different hosts, or the "
            "same trace copied?): " +
                dir.File("a.json") + " keeps it; in " + dir.File("b.json") +
                " and " + dir.File("c.json") +
                " it is shown as pid 8 and 9 respectively, so that the "
                "processes stay apart");
  ExpectEachRankAsAlone(
      *t, {dir.File("a.json"), dir.File("b.json"), dir.File("c.json")});
}

TEST(KinetoDirectoryTest, MovesACollidingStringPidDownWithoutAWarning) {
  TempDir dir;
  // A string pid ("Traces") is -1 in each file's reading.
  const std::string traces_mark =
      R"(, {"ph": "i", "s": "t", "name": "mark", "pid": "Traces", "tid": 1,
      "ts": 1001})";
  std::string a = KinetoTrace(100, 0, 1000);
  a.insert(a.rfind(']'), traces_mark);
  std::string b = KinetoTrace(200, 1, 1050);
  b.insert(b.rfind(']'), traces_mark);
  WriteFile(dir.File("a.json"), a);
  WriteFile(dir.File("b.json"), b);
  absl::StatusOr<Timeline> t = LoadTrace(dir.path());
  ASSERT_TRUE(t.ok()) << t.status();
  ASSERT_EQ(t->marks.size(), 2u);
  EXPECT_EQ(t->marks[0].pid, -1);
  EXPECT_EQ(t->marks[1].pid, -2);
  EXPECT_TRUE(t->warnings.empty()) << t->warnings.front();
}

// The advice that ends both warnings of files that are not one run.
constexpr const char* kNotOneRunDuplicate =
    ": the ranks of one run are distinct, so these files are probably not "
    "one run (the same rank recorded twice, or traces of different runs); "
    "analyse them one at a time (feedprof analyze FILE): --rank ";
constexpr const char* kNotOneRunGap =
    " starts: the ranks of one run overlap in time, so these files are "
    "probably not one run (or their clocks disagree by that much), and the "
    "totals across them (the window, GPU busy shares) are not one run's; "
    "analyse them one at a time";

TEST(KinetoDirectoryTest, WarnsOnceForEachRankThatFilesShare) {
  TempDir dir;
  // Overlapping in time, distinct pids: only the ranks give them away.
  WriteFile(dir.File("a.json"), KinetoTrace(100, 0, 1000));
  WriteFile(dir.File("b.json"), KinetoTrace(200, 0, 1050));
  WriteFile(dir.File("c.json"), KinetoTrace(300, 1, 1020));
  WriteFile(dir.File("d.json"), KinetoTrace(400, 0, 1030));
  WriteFile(dir.File("e.json"), KinetoTrace(500, 1, 1040));
  absl::StatusOr<Timeline> t = LoadTrace(dir.path());
  ASSERT_TRUE(t.ok()) << t.status();
  ASSERT_EQ(t->processes.size(), 5u);
  // One warning per shared rank, by rank, the files in name order.
  ASSERT_EQ(t->warnings.size(), 2u);
  EXPECT_EQ(t->warnings[0],
            dir.File("a.json") + ", " + dir.File("b.json") + " and " +
                dir.File("d.json") +
                " all say rank 0: the ranks of one run are distinct, so "
                "these files are probably not one run (the same rank "
                "recorded more than once, or traces of different runs); "
                "analyse them one at a time (feedprof analyze FILE): --rank "
                "0 would take all of them");
  EXPECT_EQ(t->warnings[1], dir.File("c.json") + " and " + dir.File("e.json") +
                                " both say rank 1" + kNotOneRunDuplicate +
                                "1 would take both");
  // The numbers stay those of each file alone.
  ExpectEachRankAsAlone(
      *t, {dir.File("a.json"), dir.File("b.json"), dir.File("c.json"),
           dir.File("d.json"), dir.File("e.json")});
}

TEST(KinetoDirectoryTest, WarnsWhenTheFilesTimeRangesDoNotOverlap) {
  TempDir dir;
  // a [1000, 1100] us and b [1050, 1150] us overlap; c starts at 5000 us,
  // 3850 us after b, the last of them to end.
  WriteFile(dir.File("a.json"), KinetoTrace(100, 0, 1000));
  WriteFile(dir.File("b.json"), KinetoTrace(200, 1, 1050));
  WriteFile(dir.File("c.json"), KinetoTrace(300, 2, 5000));
  absl::StatusOr<Timeline> t = LoadTrace(dir.path());
  ASSERT_TRUE(t.ok()) << t.status();
  ASSERT_EQ(t->warnings.size(), 1u);
  EXPECT_EQ(t->warnings[0], dir.File("b.json") + " ends 3.85 ms before " +
                                dir.File("c.json") + kNotOneRunGap +
                                ", or pass --rank 1 or --rank 2");
  ExpectEachRankAsAlone(
      *t, {dir.File("a.json"), dir.File("b.json"), dir.File("c.json")});
}

// Two rank-0 traces recorded about 20.8 days apart (1.8e12 us): both
// warnings, the rank first, and no --rank advice (it would take both).
TEST(KinetoDirectoryTest, WarnsTwiceForTwoRunsRankZeroFilesMonthsApart) {
  TempDir dir;
  WriteFile(dir.File("june.json"), KinetoTrace(100, 0, 1000));
  WriteFile(dir.File("july.json"), KinetoTrace(100, 0, 1.8e12 + 1000));
  absl::StatusOr<Timeline> t = LoadTrace(dir.path());
  ASSERT_TRUE(t.ok()) << t.status();
  // july.json comes first in name order: its pid 100 stays, june's moves.
  ASSERT_EQ(t->warnings.size(), 3u);
  EXPECT_NE(t->warnings[0].find("process id 100"), std::string::npos)
      << t->warnings[0];
  EXPECT_EQ(t->warnings[1], dir.File("july.json") + " and " +
                                dir.File("june.json") + " both say rank 0" +
                                kNotOneRunDuplicate + "0 would take both");
  // june ends at 1100 us, july starts at 1.8e12 + 1000 us: the gap is
  // 1.8e12 - 100 us = 20.83 days.
  EXPECT_EQ(t->warnings[2], dir.File("june.json") + " ends 20.8 d before " +
                                dir.File("july.json") + kNotOneRunGap);
}

// Newer PyTorch counts `ts` from a baseTimeNanoseconds of each process's
// own (base + ts is the epoch time). Rank 1's base is 58 d (5e15 ns)
// before rank 0's: its kernel, written at 5e12 + 1060 us, starts at
// 1060 us on rank 0's clock, 50 us after rank 0's, and the ranks overlap.
TEST(KinetoDirectoryTest, PutsEachFileOnTheFirstFilesClockByItsBase) {
  TempDir dir;
  const int64_t base0 = 1'751'410'836'000'000'000;
  const int64_t base1 = base0 - 5'000'000'000'000'000;
  WriteFile(dir.File("rank0.json"),
            KinetoTrace(100, 0, 1000, std::to_string(base0)));
  WriteFile(dir.File("rank1.json"),
            KinetoTrace(200, 1, 5e12 + 1050, std::to_string(base1)));
  absl::StatusOr<Timeline> t = LoadTrace(dir.path());
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_TRUE(t->warnings.empty()) << t->warnings.front();
  EXPECT_EQ(t->time_base_ns, base0);
  ASSERT_EQ(t->gpu_ops.size(), 2u);
  EXPECT_EQ(t->gpu_ops[0].pid, 100);
  EXPECT_EQ(t->gpu_ops[0].start, 1'010'000);
  EXPECT_EQ(t->gpu_ops[1].pid, 200);
  EXPECT_EQ(t->gpu_ops[1].start, 1'060'000);
  EXPECT_EQ(t->gpu_ops[1].end, 1'080'000);
  ASSERT_EQ(t->api_calls.size(), 2u);
  EXPECT_EQ(t->api_calls[1].start, 1'050'000);
  ASSERT_EQ(t->processes.size(), 2u);
  EXPECT_EQ(t->processes[1].start, 1'050'000);
  EXPECT_EQ(t->processes[1].end, 1'150'000);
  ExpectEachRankAsAlone(*t, {dir.File("rank0.json"), dir.File("rank1.json")});

  // Read alone, a file keeps its times as written and says its base.
  absl::StatusOr<Timeline> alone = LoadTrace(dir.File("rank1.json"));
  ASSERT_TRUE(alone.ok()) << alone.status();
  EXPECT_EQ(alone->time_base_ns, base1);
  ASSERT_EQ(alone->gpu_ops.size(), 1u);
  EXPECT_EQ(alone->gpu_ops[0].start, 5'000'000'001'060'000);
}

// An older trace holds epoch times (no base); beside a newer one first in
// name order, it moves onto that one's clock: epoch - base.
TEST(KinetoDirectoryTest, PutsAnEpochTimedFileOnABasedFilesClock) {
  TempDir dir;
  const int64_t base = 1'751'410'836'000'000'000;
  WriteFile(dir.File("a.json"),
            KinetoTrace(100, 0, 1000, std::to_string(base)));
  WriteFile(dir.File("b.json"), KinetoTrace(200, 1, 1'751'410'836'001'050.0));
  absl::StatusOr<Timeline> t = LoadTrace(dir.path());
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_TRUE(t->warnings.empty()) << t->warnings.front();
  EXPECT_EQ(t->time_base_ns, base);
  ASSERT_EQ(t->gpu_ops.size(), 2u);
  EXPECT_EQ(t->gpu_ops[1].pid, 200);
  EXPECT_EQ(t->gpu_ops[1].start, 1'060'000);
}

// A base so far from the first file's that the file's times would leave
// ±2^62 ns: that file stays on its own clock, with a warning.
TEST(KinetoDirectoryTest, KeepsAFileWhoseBaseIsTooFarOnItsOwnClock) {
  TempDir dir;
  WriteFile(dir.File("a.json"), KinetoTrace(100, 0, -4e15, "0"));
  WriteFile(dir.File("b.json"),
            KinetoTrace(200, 1, 4e15, std::to_string((int64_t{1} << 62) - 1)));
  absl::StatusOr<Timeline> t = LoadTrace(dir.path());
  ASSERT_TRUE(t.ok()) << t.status();
  ASSERT_FALSE(t->warnings.empty());
  EXPECT_EQ(t->warnings[0],
            dir.File("b.json") + ": its baseTimeNanoseconds (" +
                std::to_string((int64_t{1} << 62) - 1) + ") is too far from " +
                dir.File("a.json") +
                "'s (0) to put its times on that clock; they stay on their "
                "own");
  ASSERT_EQ(t->gpu_ops.size(), 2u);
  EXPECT_EQ(t->gpu_ops[1].start, 4'000'000'000'000'010'000);
}

TEST(KinetoDirectoryTest, SkipsAnUnreadableRankFileWithAWarning) {
  TempDir dir;
  WriteFile(dir.File("rank0.json"), KinetoTrace(100, 0, 1000));
  WriteFile(dir.File("rank1.json"), "{\"traceEvents\": [{\"ph\": ");
  absl::StatusOr<Timeline> t = LoadTrace(dir.path());
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->processes.size(), 1u);
  ASSERT_FALSE(t->warnings.empty());
  EXPECT_NE(t->warnings.back().find("rank1.json"), std::string::npos);
  EXPECT_NE(t->warnings.back().find("(skipped)"), std::string::npos);

  WriteFile(dir.File("rank0.json"), "");
  absl::StatusOr<Timeline> none = LoadTrace(dir.path());
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("rank0.json"), std::string::npos);
  EXPECT_NE(none.status().message().find("rank1.json"), std::string::npos);
}

TEST(KinetoDirectoryTest, PassesOverAFeedprofJsonReport) {
  TempDir dir;
  WriteFile(dir.File("rank0.json"), KinetoTrace(100, 0, 1000));
  WriteFile(dir.File("report.json"),
            "{\n  \"schema\": \"feedprof.analysis/1\",\n  \"source\": {}\n}\n");
  absl::StatusOr<Timeline> t = LoadTrace(dir.path());
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->processes.size(), 1u);
  EXPECT_TRUE(t->warnings.empty()) << t->warnings.front();

  // Beside a session, it makes no mix either.
  TempDir session;
  WriteFile(session.File("a.fpt"),
            testing::FramePackets(
                testing::SmallProcessPackets(7, 0, "k", 1'000'000, 0)));
  WriteFile(session.File("report.json"),
            "{\"schema\":\"feedprof.analysis/1\"}");
  absl::StatusOr<Timeline> s = LoadTrace(session.path());
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->format, SourceFormat::kFeedprof);
}

TEST(TraceDirectoryTest, MixedFormatsAreAnErrorThatSaysWhatIsThere) {
  TempDir dir;
  WriteFile(dir.File("a.fpt"),
            testing::FramePackets(
                testing::SmallProcessPackets(7, 0, "k", 1'000'000, 0)));
  WriteFile(dir.File("b.fpt"),
            testing::FramePackets(
                testing::SmallProcessPackets(8, 1, "k", 1'000'000, 0)));
  WriteFile(dir.File("rank0.pt.trace.json"), KinetoTrace(100, 0, 1000));
  absl::StatusOr<Timeline> t = LoadTrace(dir.path());
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(t.status().message(),
            dir.path() +
                ": the directory holds traces of more than one format: 2 "
                "feedprof traces (a.fpt, b.fpt), 1 Kineto JSON trace "
                "(rank0.pt.trace.json); a directory is read as one run only "
                "when all its traces have one format: move the others out, "
                "or pass one trace file");
  EXPECT_FALSE(DetectTraceFormat(dir.path()).ok());
}

TEST(TraceDirectoryTest, NsightExportsAreReadOneAtATime) {
  TempDir dir;
  WriteFile(dir.File("run.sqlite"), std::string("SQLite format 3\0", 16));
  absl::StatusOr<Timeline> t = LoadTrace(dir.path());
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().message(),
            dir.path() +
                ": the directory holds Nsight Systems exports (run.sqlite), "
                "which are read one file at a time; pass one of those files");
}

// Two different real traces as two ranks: each rank's numbers are those of
// its file read alone.
TEST(KinetoDirectoryTest, SharedTracesAsRanksKeepTheirNumbers) {
  const std::string simple_add = Shared(
      "hta_critical_path/simple_add/"
      "benchmark_result_493459_1694039959_trace.json.gz");
  const std::string bert =
      Shared("tracelens_h100/gaunernst_bert-small-uncased__1016001.json.gz");
  if (simple_add.empty() || bert.empty()) {
    GTEST_SKIP() << "shared traces are absent from "
                 << FEEDPROF_SHARED_TRACES_DIR;
  }
  TempDir dir;
  std::filesystem::copy_file(simple_add, dir.File("rank0.pt.trace.json.gz"));
  std::filesystem::copy_file(bert, dir.File("rank1.pt.trace.json.gz"));
  // The same trace again: every pid collides with rank0's.
  std::filesystem::copy_file(simple_add, dir.File("rank2.pt.trace.json.gz"));
  const std::vector<std::string> files = {dir.File("rank0.pt.trace.json.gz"),
                                          dir.File("rank1.pt.trace.json.gz"),
                                          dir.File("rank2.pt.trace.json.gz")};
  for (int threads : {1, 3}) {
    setenv("FEEDPROF_READ_THREADS", std::to_string(threads).c_str(), 1);
    absl::StatusOr<Timeline> t = LoadTrace(dir.path());
    unsetenv("FEEDPROF_READ_THREADS");
    ASSERT_TRUE(t.ok()) << t.status();
    ExpectEachRankAsAlone(*t, files);
    size_t renumbered = 0;
    for (const std::string& w : t->warnings) {
      if (w.find("rank2.pt.trace.json.gz: process id") != std::string::npos) {
        ++renumbered;
      }
    }
    EXPECT_GE(renumbered, 1u);
    // simple_add says rank 0 (twice, as rank0 and rank2); bert says no rank
    // and counts from its baseTimeNanoseconds, 2025-07-01, which puts it
    // 680 days after simple_add's epoch times: one warning of each kind
    // that the files are not one run.
    std::vector<std::string> duplicate, gap;
    for (const std::string& w : t->warnings) {
      if (w.find(" both say rank ") != std::string::npos)
        duplicate.push_back(w);
      if (w.find(kNotOneRunGap) != std::string::npos) gap.push_back(w);
    }
    ASSERT_EQ(duplicate.size(), 1u);
    EXPECT_EQ(duplicate[0].rfind(
                  files[0] + " and " + files[2] + " both say rank 0: ", 0),
              0u)
        << duplicate[0];
    ASSERT_EQ(gap.size(), 1u);
    EXPECT_EQ(gap[0],
              files[0] + " ends 680 d before " + files[1] + kNotOneRunGap)
        << gap[0];
    size_t events = 0;
    for (const std::string& file : files) {
      absl::StatusOr<Timeline> alone = LoadTrace(file);
      ASSERT_TRUE(alone.ok());
      events += alone->gpu_ops.size() + alone->api_calls.size();
    }
    EXPECT_EQ(t->gpu_ops.size() + t->api_calls.size(), events);
    EXPECT_TRUE(std::is_sorted(
        t->gpu_ops.begin(), t->gpu_ops.end(),
        [](const GpuOp& a, const GpuOp& b) { return a.start < b.start; }));
  }
}

}  // namespace
}  // namespace feedprof
