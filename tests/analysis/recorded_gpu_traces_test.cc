// The analyzer on traces that feedprof recorded on a real GPU (an NVIDIA
// H200) from the CUDA examples and examples/python/train.py, kept under
// examples/traces/. Each directory holds the session's trace files and the
// lines the program printed (program-output.txt): the verdict it is built
// to produce, its step count and the step time it measured itself. The
// report must reach that verdict, count the launches, copies and syncs the
// program's code makes, and find steps as long as the program measured.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <map>
#include <string>

#include "feedprof/analysis.h"
#include "feedprof/trace_loader.h"
#include "tests/analysis/must_analyze.h"

namespace feedprof {
namespace {

using testing::MustAnalyze;

const std::string kTraces = FEEDPROF_SOURCE_DIR "/examples/traces/";

// program-output.txt as key=value pairs.
std::map<std::string, std::string> ProgramOutput(const std::string& dir) {
  std::map<std::string, std::string> values;
  std::ifstream in(kTraces + dir + "/program-output.txt");
  for (std::string line; std::getline(in, line);) {
    const size_t eq = line.find('=');
    if (eq != std::string::npos)
      values[line.substr(0, eq)] = line.substr(eq + 1);
  }
  return values;
}

struct Recorded {
  std::map<std::string, std::string> output;
  Report report;
};

Recorded Analyze(const std::string& dir) {
  Recorded r;
  r.output = ProgramOutput(dir);
  EXPECT_FALSE(r.output.empty()) << dir << ": no program-output.txt";
  absl::StatusOr<Timeline> timeline = LoadTrace(kTraces + dir);
  EXPECT_TRUE(timeline.ok()) << dir << ": " << timeline.status();
  if (timeline.ok()) r.report = MustAnalyze(*timeline);
  return r;
}

// A per-device count summed over the devices.
uint64_t Summed(const Report& report, uint64_t DeviceReport::*count) {
  uint64_t n = 0;
  for (const DeviceReport& d : report.devices) n += d.*count;
  return n;
}
uint64_t Kernels(const Report& report) {
  return Summed(report, &DeviceReport::kernel_count);
}
uint64_t Copies(const Report& report) {
  return Summed(report, &DeviceReport::memcpy_count);
}
uint64_t SyncCount(const Report& report, const std::string& api) {
  uint64_t n = 0;
  for (const SyncPoint& p : report.sync_points) {
    if (p.api == api && p.blocks_host) n += p.count;
  }
  return n;
}

// The mean length of the steps the report found, in ms.
double MeanStepMs(const Report& report) {
  if (report.steps.steps.empty()) return 0;
  double sum = 0;
  for (const StepInfo& s : report.steps.steps) sum += s.end - s.start;
  return sum / 1e6 / static_cast<double>(report.steps.steps.size());
}

// The verdict the program is built for, one step range per measured step,
// and steps as long as the program timed them (each example's step ends
// in a sync, so its NVTX range covers what the program timed; 5 % allows
// for the final sync the program's timing includes).
void ExpectVerdictAndSteps(const Recorded& r, bool steps_end_in_sync = true) {
  EXPECT_EQ(VerdictClassName(r.report.verdict.primary),
            r.output.at("expected_verdict"));
  const int steps = std::stoi(r.output.at("steps"));
  EXPECT_TRUE(r.report.steps.available);
  EXPECT_EQ(r.report.steps.count, static_cast<uint64_t>(steps));
  if (steps_end_in_sync) {
    const double measured = std::stod(r.output.at("step_time_ms"));
    EXPECT_NEAR(MeanStepMs(r.report), measured, 0.05 * measured);
  }
}

TEST(RecordedGpuTracesTest, LaunchBound) {
  const Recorded r = Analyze("launch_bound-h200");
  ExpectVerdictAndSteps(r);
  // 4000 launches a step, 2 warm-up steps.
  const int steps = std::stoi(r.output.at("steps"));
  EXPECT_EQ(r.report.launch.count, 4000u * static_cast<uint64_t>(steps + 2));
  EXPECT_EQ(Kernels(r.report), r.report.launch.count);
  EXPECT_GT(r.report.launch.share_kernels_shorter_than_launch, 0.5);
}

TEST(RecordedGpuTracesTest, SyncBound) {
  const Recorded r = Analyze("sync_bound-h200");
  ExpectVerdictAndSteps(r);
  // 50 iterations a step, 2 warm-up steps: each reads back with cudaMemcpy,
  // syncs the stream, allocates and frees, and copies from pageable memory.
  const uint64_t iterations =
      50u * static_cast<uint64_t>(std::stoi(r.output.at("steps")) + 2);
  EXPECT_EQ(SyncCount(r.report, "cudaMemcpy"), iterations);
  EXPECT_EQ(SyncCount(r.report, "cudaStreamSynchronize"), iterations);
  EXPECT_EQ(SyncCount(r.report, "cudaMalloc"), iterations);
  EXPECT_EQ(SyncCount(r.report, "cudaMemcpyAsync"), iterations);
  // Two kernels an iteration, and the 5 that sized the kernel at start.
  EXPECT_EQ(Kernels(r.report), 2 * iterations + 5);
  EXPECT_EQ(Copies(r.report), 2 * iterations);
  // The example is stripped: its call sites are module offsets, one group
  // per call in its source.
  for (const SyncPoint& p : r.report.sync_points) {
    if (!p.blocks_host) continue;
    EXPECT_EQ(p.call_site.rfind("example_sync_bound+0x", 0), 0u)
        << p.api << " at " << p.call_site;
  }
}

TEST(RecordedGpuTracesTest, TransferBound) {
  const Recorded r = Analyze("transfer_bound-h200");
  ExpectVerdictAndSteps(r);
  // One 256 MiB pageable copy a step, 1 warm-up step.
  const uint64_t steps = std::stoul(r.output.at("steps")) + 1;
  EXPECT_EQ(Copies(r.report), steps);
  ASSERT_EQ(r.report.copies.directions.size(), 1u);
  EXPECT_EQ(r.report.copies.directions[0].direction, CopyDirection::kHtoD);
  EXPECT_EQ(r.report.copies.directions[0].bytes, steps * (256u << 20));
}

TEST(RecordedGpuTracesTest, GpuBound) {
  const Recorded r = Analyze("gpu_bound-h200");
  ExpectVerdictAndSteps(r);
  EXPECT_EQ(Kernels(r.report), 8u * (std::stoul(r.output.at("steps")) + 1));
}

// One host-to-device copy and one kernel a step, 1 warm-up step.
void ExpectCopyAndKernelPerStep(const std::string& dir) {
  const Recorded r = Analyze(dir);
  ExpectVerdictAndSteps(r);
  const uint64_t steps = std::stoul(r.output.at("steps")) + 1;
  EXPECT_EQ(Kernels(r.report), steps);
  EXPECT_EQ(Copies(r.report), steps);
}

TEST(RecordedGpuTracesTest, PreprocessingBound) {
  ExpectCopyAndKernelPerStep("preprocessing_bound-h200");
}

TEST(RecordedGpuTracesTest, IoBound) {
  ExpectCopyAndKernelPerStep("io_bound-h200");
  // Each step reads its 64 MiB batch cold, in large reads: the read
  // pattern leads the next steps with faster storage. (Recorded before
  // feedprof counted its own calls: the sampler's small /proc reads are
  // in the counts and bring the average read down, not the bytes.)
  const Recorded r = Analyze("io_bound-h200");
  const IoReport& io = r.report.io;
  ASSERT_TRUE(io.available);
  EXPECT_TRUE(io.includes_profiler_io);
  EXPECT_EQ(io.reading_role, IoRole::kMain);
  EXPECT_EQ(io.pattern, IoPattern::kLargeReads);
  const RoleIo* main = io.Role(IoRole::kMain);
  ASSERT_NE(main, nullptr);
  EXPECT_GT(main->storage_share, 0.95);
  ASSERT_TRUE(main->read_bytes_per_step.has_value());
  EXPECT_NEAR(*main->read_bytes_per_step, 64.0 * (1 << 20), 10.0 * (1 << 20));
  ASSERT_FALSE(r.report.verdict.next_steps.empty());
  EXPECT_TRUE(r.report.verdict.next_steps[0].starts_with(
      "Read from faster storage or a local cache"))
      << r.report.verdict.next_steps[0];
}

TEST(RecordedGpuTracesTest, LatencyBound) {
  const Recorded r = Analyze("latency_bound-h200");
  ExpectVerdictAndSteps(r);
  EXPECT_EQ(Kernels(r.report), 200u * (std::stoul(r.output.at("steps")) + 1));
}

// PyTorch with 2 DataLoader workers: the workers are in the session, and
// the per-step `loss.item()` is a sync point named by the PyTorch function
// it runs in (PyTorch releases the GIL around CUDA calls, so the frames are
// native; see docs/cupti.md).
TEST(RecordedGpuTracesTest, PythonTrainWithWorkers) {
  const Recorded r = Analyze("python_train-h200");
  // The step range starts after the batch arrives: the DataLoader wait is
  // between steps, so the program's step time is longer than a range.
  ExpectVerdictAndSteps(r, /*steps_end_in_sync=*/false);
  EXPECT_EQ(r.report.host.workers.size(), 2u);
  const int steps = std::stoi(r.output.at("steps"));
  bool item_found = false;
  for (const SyncPoint& p : r.report.sync_points) {
    if (p.call_site.find("_local_scalar_dense_cuda") != std::string::npos) {
      item_found = true;
      EXPECT_EQ(p.api, "cudaStreamSynchronize");
      EXPECT_EQ(p.count, static_cast<uint64_t>(steps));
    }
  }
  EXPECT_TRUE(item_found);
}

}  // namespace
}  // namespace feedprof
