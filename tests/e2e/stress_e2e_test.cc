// The library under load it must survive without changing the program:
// a hundred forked workers that run at once and end with _exit, and eight
// threads pushing NVTX ranges into a buffer cap far too small for them.
//
// Both programs run twice, without and with libfeedprof.so: stdout and the
// exit code must not change. The fork storm must leave one complete,
// readable file per process; the NVTX storm must drop events, count every
// one of them (recorded + dropped = what the program did), and stay within
// its memory cap. No timing is asserted: on a loaded machine the programs
// only take longer.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
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

const std::string kForkStormPath =
    FEEDPROF_BINARY_DIR "/tests/e2e/fork_storm_target";
const std::string kNvtxStormPath =
    FEEDPROF_BINARY_DIR "/tests/e2e/nvtx_storm_target";

// Generous: 100 workers of 100 ms CPU each take about 6 s on two idle cores.
constexpr int kRunTimeoutMs = 240'000;

// What fork_storm_target does (see its constants).
constexpr int kForkStormExitCode = 5;
constexpr size_t kWorkers = 100;
constexpr size_t kWorkerSteps = 4;
constexpr uint64_t kWorkerBurnNs = 100'000'000;
// A worker rests 700 ms (3.5 forked-child flush intervals) after its burn,
// so the samples taken after the burn reach the file: per-thread CPU time
// is sampled in ns (docs/host-sampling.md), every 10 ms. 90 % leaves one
// sampling interval of slack; a worker whose last flushes were lost shows
// far less, or leaves no file.
constexpr uint64_t kMinSampledWorkerCpuNs = kWorkerBurnNs * 9 / 10;

constexpr int kNvtxStormExitCode = 4;
constexpr size_t kStormThreads = 8;
constexpr uint32_t kStormBufferMb = 2;
// What the library may keep resident besides the FEEDPROF_BUFFER_MB cap
// (the event chunk pool and one packet-queue arena are inside it):
//   - the trace writer's encoding scratch (1 MiB) and header buffer
//     (256 KiB), its seen-thread table (32 KiB);
//   - the host sampler's packet buffer (64 KiB), /proc read buffers
//     (~300 KiB) and its thread stack (256 KiB);
//   - the library's own code and data (~0.7 MiB: text, data, bss with the
//     statically linked C++ runtime), the writer's stack;
//   - the packet queue's second arena (cap/8, at least 256 KiB; only host
//     sample packets use it here: no CUPTI without a GPU).
// That is under 3 MiB even if all of it were resident; measured: ~0.8 MiB
// above the cap on a 2 MiB cap.
constexpr uint64_t kMemoryBeyondCapKib = 3 * 1024;

// The "KEY INDEX_OR_TID NAME VALUE" lines of a storm program's report:
// `key` "worker" gives index -> pid, "tid" gives tid -> ranges.
std::map<uint64_t, uint64_t> ReportPairs(const std::string& path,
                                         const std::string& key) {
  std::map<uint64_t, uint64_t> pairs;
  std::istringstream lines(ReadWholeFile(path));
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    std::string first, second;
    uint64_t a = 0, b = 0;
    if (fields >> first >> a >> second >> b && first == key) pairs[a] = b;
  }
  return pairs;
}

uint64_t ReportValue(const std::string& path, const std::string& key) {
  std::istringstream lines(ReadWholeFile(path));
  std::string name;
  uint64_t value = 0;
  while (lines >> name) {
    if (name == key && lines >> value) return value;
  }
  return 0;
}

class StressE2eTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = MakeTempDir("stress");
    ASSERT_FALSE(dir_.empty());
  }
  void TearDown() override {
    std::error_code ec;
    if (!HasFailure()) std::filesystem::remove_all(dir_, ec);
  }

  std::string dir_;
};

TEST_F(StressE2eTest,
       HundredForkedWorkersEndingWithExitAllLeaveReadableTraces) {
  ProgramRun plain;
  RunToEnd({kForkStormPath, dir_ + "/plain.report"}, EnvWithoutLibrary(),
           dir_ + "/plain", &plain, kRunTimeoutMs);
  ASSERT_TRUE(plain.status.exited);
  ASSERT_EQ(plain.status.code, kForkStormExitCode) << plain.err;

  const std::string session = dir_ + "/session";
  ProgramRun recorded;
  RunToEnd({kForkStormPath, dir_ + "/recorded.report"}, RecordingEnv(session),
           dir_ + "/recorded", &recorded, kRunTimeoutMs);
  ASSERT_TRUE(recorded.status.exited);
  EXPECT_EQ(recorded.status.code, kForkStormExitCode) << recorded.err;
  EXPECT_EQ(recorded.out, plain.out);
  // Only the parent's exit line: the workers end with _exit, which prints
  // none.
  EXPECT_EQ(WithoutFeedprofLines(recorded.err), "");

  const std::map<uint64_t, uint64_t> workers =
      ReportPairs(dir_ + "/recorded.report", "worker");
  ASSERT_EQ(workers.size(), kWorkers);
  std::set<uint32_t> worker_pids;
  for (const auto& [index, pid] : workers) {
    worker_pids.insert(static_cast<uint32_t>(pid));
  }
  ASSERT_EQ(worker_pids.size(), kWorkers);

  // Nothing but one trace file per process in the session directory.
  size_t entries = 0;
  for (const auto& entry : std::filesystem::directory_iterator(session)) {
    ++entries;
    EXPECT_EQ(entry.path().extension(), ".fpt") << entry.path();
  }
  EXPECT_EQ(entries, kWorkers + 1);

  std::vector<TraceFile> traces;
  for (const std::string& path : FindTraceFiles(session)) {
    TraceFile& trace = traces.emplace_back();
    std::string error;
    ASSERT_TRUE(ReadTraceFile(path, &trace, &error)) << error;
    ASSERT_TRUE(trace.has_header) << path;
    EXPECT_EQ(trace.trailing_bytes, 0u) << path;
  }
  const uint32_t parent_pid = static_cast<uint32_t>(recorded.pid);
  size_t parent_files = 0;
  std::set<uint32_t> traced_workers;
  std::map<uint32_t, uint64_t> worker_cpu_ns;
  for (const TraceFile& trace : traces) {
    const std::string& path = trace.path;
    const uint32_t pid = trace.header.pid();
    if (pid == parent_pid) {
      ++parent_files;
      EXPECT_EQ(trace.header.origin(), "start") << path;
      EXPECT_TRUE(trace.has_footer) << path;
      EXPECT_EQ(trace.RangesNamed("spawn_workers").size(), 1u) << path;
      EXPECT_EQ(trace.ranges.size(), 1u) << path;
      continue;
    }
    EXPECT_EQ(worker_pids.count(pid), 1u) << path << ": pid " << pid;
    EXPECT_TRUE(traced_workers.insert(pid).second) << "two files of " << pid;
    EXPECT_EQ(trace.header.origin(), "fork") << path;
    EXPECT_EQ(trace.header.parent_trace_pid(), parent_pid) << path;
    EXPECT_EQ(trace.header.ppid(), parent_pid) << path;
    // No exit handler runs at _exit; the library's _exit finished the
    // trace.
    EXPECT_TRUE(trace.has_footer) << path;
    EXPECT_EQ(trace.footer.reason(), "exit") << path;
    // The worker's own ranges, all of them, and none of its parent's.
    EXPECT_EQ(trace.RangesNamed("worker_step", pid).size(), kWorkerSteps)
        << path;
    EXPECT_EQ(trace.RangesNamed("worker", pid).size(), 1u) << path;
    EXPECT_EQ(trace.ranges.size(), kWorkerSteps + 1) << path;
    if (trace.has_drops) {
      EXPECT_EQ(trace.drops.events_dropped(), 0u) << path;
    }
    worker_cpu_ns[pid] = trace.MaxThreadCpuNs(pid);
  }
  EXPECT_EQ(parent_files, 1u);
  EXPECT_EQ(traced_workers, worker_pids);

  size_t short_workers = 0;
  uint64_t least_cpu_ns = UINT64_MAX;
  for (const auto& [pid, cpu_ns] : worker_cpu_ns) {
    least_cpu_ns = std::min(least_cpu_ns, cpu_ns);
    if (cpu_ns < kMinSampledWorkerCpuNs) ++short_workers;
  }
  EXPECT_EQ(short_workers, 0u)
      << "workers whose samples show less than " << kMinSampledWorkerCpuNs
      << " ns of the " << kWorkerBurnNs << " ns they burned; least "
      << least_cpu_ns;
  std::printf(
      "fork storm: %zu worker files, least sampled worker CPU %.1f ms "
      "of %.1f ms burned\n",
      traced_workers.size(), static_cast<double>(least_cpu_ns) / 1e6,
      static_cast<double>(kWorkerBurnNs) / 1e6);
}

TEST_F(StressE2eTest, EightThreadsOverfillingTheBufferCapDropAndCountExactly) {
  ProgramRun plain;
  const std::string plain_report = dir_ + "/plain.report";
  RunToEnd({kNvtxStormPath, plain_report}, EnvWithoutLibrary(), dir_ + "/plain",
           &plain, kRunTimeoutMs);
  ASSERT_TRUE(plain.status.exited);
  ASSERT_EQ(plain.status.code, kNvtxStormExitCode) << plain.err;
  const uint64_t plain_peak_kib = ReportValue(plain_report, "vmhwm_kib");
  ASSERT_GT(plain_peak_kib, 0u);

  const std::string session = dir_ + "/session";
  const std::string report = dir_ + "/recorded.report";
  auto env = RecordingEnv(session);
  env["FEEDPROF_BUFFER_MB"] = std::to_string(kStormBufferMb);
  ProgramRun recorded;
  RunToEnd({kNvtxStormPath, report}, env, dir_ + "/recorded", &recorded,
           kRunTimeoutMs);
  ASSERT_TRUE(recorded.status.exited);
  EXPECT_EQ(recorded.status.code, kNvtxStormExitCode) << recorded.err;
  EXPECT_EQ(recorded.out, plain.out);
  EXPECT_EQ(WithoutFeedprofLines(recorded.err), "");

  const uint64_t peak_kib = ReportValue(report, "vmhwm_kib");
  EXPECT_LE(peak_kib, plain_peak_kib + uint64_t{kStormBufferMb} * 1024 +
                          kMemoryBeyondCapKib)
      << "without the library: " << plain_peak_kib << " KiB";

  const std::map<uint64_t, uint64_t> reported = ReportPairs(report, "tid");
  ASSERT_EQ(reported.size(), kStormThreads);
  uint64_t reported_total = 0;
  for (const auto& [tid, ranges] : reported) reported_total += ranges;

  const std::vector<std::string> files = FindTraceFiles(session);
  ASSERT_EQ(files.size(), 1u);
  TraceFile trace;
  std::string error;
  ASSERT_TRUE(ReadTraceFile(files[0], &trace, &error)) << error;
  EXPECT_EQ(trace.trailing_bytes, 0u);
  ASSERT_TRUE(trace.has_footer);
  ASSERT_TRUE(trace.has_drops);

  // Every recorded range is whole: its name, and its depth although the
  // range around it or inside it may have been dropped.
  std::map<uint64_t, uint64_t> recorded_per_thread;
  size_t misnamed = 0;
  size_t misplaced = 0;
  for (const Range& r : trace.ranges) {
    ++recorded_per_thread[r.tid];
    if (r.name == "storm_step") {
      misplaced += r.depth != 0 ? 1 : 0;
    } else if (r.name == "storm_nested") {
      misplaced += r.depth != 1 ? 1 : 0;
    } else {
      ++misnamed;
    }
  }
  EXPECT_EQ(misnamed, 0u);
  EXPECT_EQ(misplaced, 0u);
  for (const auto& [tid, ranges] : recorded_per_thread) {
    ASSERT_EQ(reported.count(tid), 1u) << "ranges of an unknown thread " << tid;
    EXPECT_LE(ranges, reported.at(tid)) << "thread " << tid;
  }
  const uint64_t recorded_total = trace.ranges.size();
  // Each burst of the eight threads is more than eight times what the pool
  // holds, and one writer cannot encode as fast as eight threads record.
  EXPECT_GT(trace.drops.events_dropped(), 0u);
  EXPECT_EQ(trace.drops.events_recorded(), recorded_total);
  EXPECT_EQ(recorded_total + trace.drops.events_dropped(), reported_total)
      << recorded_total << " recorded, " << trace.drops.events_dropped()
      << " dropped";
  std::printf(
      "nvtx storm: %llu ranges, %llu recorded, %llu dropped; peak "
      "%llu KiB, %llu KiB without the library, cap %u MiB\n",
      static_cast<unsigned long long>(reported_total),
      static_cast<unsigned long long>(recorded_total),
      static_cast<unsigned long long>(trace.drops.events_dropped()),
      static_cast<unsigned long long>(peak_kib),
      static_cast<unsigned long long>(plain_peak_kib), kStormBufferMb);
}

}  // namespace
}  // namespace feedprof::e2e
