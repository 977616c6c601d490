// The analyzer on real GPU traces recorded by others (../shared/traces,
// numbers from EXPECTED.md and the tools that produced them). Skips with a
// message where the folder or the readers are absent.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_format.h"
#include "feedprof/analysis.h"
#include "feedprof/report.h"
#include "tests/analysis/must_analyze.h"

#if __has_include("feedprof/trace_loader.h")
#include "feedprof/trace_loader.h"
#define FEEDPROF_TEST_HAVE_LOADER 1
#endif

namespace feedprof {
namespace {

using testing::MustAnalyze;

std::string TracePath(const std::string& relative) {
  return std::string(FEEDPROF_SHARED_TRACES_DIR) + "/" + relative;
}

#if defined(FEEDPROF_TEST_HAVE_LOADER)

#define LOAD_OR_SKIP(var, relative)                               \
  const std::string var##_path = TracePath(relative);             \
  if (!std::filesystem::exists(var##_path)) {                     \
    GTEST_SKIP() << "shared trace " << var##_path                 \
                 << " is absent; set FEEDPROF_SHARED_TRACES_DIR"; \
  }                                                               \
  absl::StatusOr<Timeline> var##_or = LoadTrace(var##_path);      \
  ASSERT_TRUE(var##_or.ok()) << var##_or.status();                \
  const Timeline& var = *var##_or

// Relative tolerance, but never below 1 ns: the timeline keeps integer
// nanoseconds, while TraceLens sums float64 µs timestamps whose rounding at
// this epoch is a fraction of a ns each (bert: the exact decimal union is
// 309.437 µs, TraceLens reports 309.437744 µs).
void ExpectRelative(double actual, double expected, double tolerance) {
  EXPECT_NEAR(actual, expected, std::max(expected * tolerance, 1.0))
      << "actual " << actual << " expected " << expected;
}

constexpr const char* kQwen =
    "tracelens_h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz";
constexpr const char* kBert =
    "tracelens_h100/gaunernst_bert-small-uncased__1016001.json.gz";

TEST(RealTracesTest, TraceLensQwenWithPreWindowExclusion) {
  LOAD_OR_SKIP(tl, kQwen);
  const Report r = MustAnalyze(tl);
  ASSERT_EQ(r.devices.size(), 1u);
  const DeviceReport& d = r.devices[0];
  // TraceLens gpu_timeline.csv, in ms.
  ExpectRelative(static_cast<double>(d.span_ns), 34.8924189453125e6, 1e-6);
  ExpectRelative(static_cast<double>(d.busy_ns), 31.905483154296874e6, 1e-6);
  ExpectRelative(static_cast<double>(d.idle_ns), 2.986935791015625e6, 1e-5);
  EXPECT_EQ(d.excluded_ops.count, 509u);  // 436 kernels + 73 memsets
}

TEST(RealTracesTest, TraceLensQwenKeepingPreWindowOps) {
  LOAD_OR_SKIP(tl, kQwen);
  AnalysisOptions o;
  o.include_pre_window = true;
  const Report r = MustAnalyze(tl, o);
  ASSERT_EQ(r.devices.size(), 1u);
  ExpectRelative(static_cast<double>(r.devices[0].span_ns), 49.652832e6, 1e-6);
  ExpectRelative(static_cast<double>(r.devices[0].busy_ns), 45.647311e6, 1e-6);
}

TEST(RealTracesTest, TraceLensBert) {
  LOAD_OR_SKIP(tl, kBert);
  const Report r = MustAnalyze(tl);
  ASSERT_EQ(r.devices.size(), 1u);
  const DeviceReport& d = r.devices[0];
  ExpectRelative(static_cast<double>(d.span_ns), 3.907824951171875e6, 1e-6);
  ExpectRelative(static_cast<double>(d.busy_ns), 0.309437744140625e6, 1e-6);
  ExpectRelative(static_cast<double>(d.idle_ns), 3.59838720703125e6, 1e-6);
  ExpectRelative(d.idle_share, 0.9208158635540133, 1e-6);
  // A PyTorch profiler trace holds no I/O counters: the report says so.
  EXPECT_FALSE(r.io.available);
  EXPECT_TRUE(r.io.unavailable_reason.starts_with(
      "PyTorch profiler traces hold no per-process I/O counters"))
      << r.io.unavailable_reason;
  EXPECT_TRUE(r.io.roles.empty());
}

TEST(RealTracesTest, ResNetNanosecondResolution) {
  LOAD_OR_SKIP(tl,
               "hta_ns_resolution_trace/"
               "rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz");
  const Report r = MustAnalyze(tl);
  ASSERT_EQ(r.devices.size(), 1u);
  ExpectRelative(static_cast<double>(r.devices[0].span_ns), 480.029e6, 1e-6);
  // The union of the decimal timestamps taken exactly: 472.454441 ms.
  EXPECT_EQ(r.devices[0].busy_ns, 472'454'441);
  // EXPECTED.md's 472.4625 ms is the same union over the same ops (kernels,
  // copies, memsets) computed on float64 µs: at this epoch (1.7e15 µs) a
  // double holds a timestamp to 0.25 µs only. Parsing each op's decimal
  // `ts` and `dur` as doubles, as Python and pandas do, reproduces it.
  std::vector<std::pair<double, double>> as_double;
  for (const GpuOp& op : tl.gpu_ops) {
    auto to_us = [](TimeNs ns) {
      const std::string text = absl::StrFormat("%d.%03d", ns / 1000, ns % 1000);
      return std::strtod(text.c_str(), nullptr);
    };
    const double ts = to_us(op.start);
    as_double.emplace_back(ts, ts + to_us(op.end - op.start));
  }
  ASSERT_GT(as_double.size(), 1u);
  std::sort(as_double.begin(), as_double.end());
  double union_us = 0;
  double open_start = as_double[0].first;
  double open_end = as_double[0].second;
  for (const auto& [start, end] : as_double) {
    if (start > open_end) {
      union_us += open_end - open_start;
      open_start = start;
    }
    open_end = std::max(open_end, end);
  }
  union_us += open_end - open_start;
  ExpectRelative(union_us * 1000.0, 472.4625e6, 1e-9);
  EXPECT_TRUE(r.steps.available);
  EXPECT_EQ(r.steps.count, 5u);  // ProfilerStep#101..105
}

const SyncPoint* FindSync(const Report& r, const std::string& api) {
  for (const SyncPoint& p : r.sync_points) {
    if (p.api == api) return &p;
  }
  return nullptr;
}

// Recorded with with_stack=True: each sync point names the line of the
// user's code it came from (the innermost frame outside the standard
// library and torch/), and the next step that prices removing it says where.
TEST(RealTracesTest, TraceLensSyncPointsNameTheUsersLine) {
  LOAD_OR_SKIP(tl, kQwen);
  const Report r = MustAnalyze(tl);
  const SyncPoint* device = FindSync(r, "cudaDeviceSynchronize");
  ASSERT_NE(device, nullptr);
  // Both calls: torch.cuda.synchronize from run_torch_profiler, one
  // directly and one through the profiler's stop_trace.
  EXPECT_EQ(device->count, 2u);
  EXPECT_EQ(device->call_site,
            "run_torch_profiler (moca/library/profiling/profile.py:34)");
  const SyncPoint* stream = FindSync(r, "cudaStreamSynchronize");
  ASSERT_NE(stream, nullptr);
  EXPECT_EQ(stream->call_site,
            "_ignore_causal_mask_sdpa "
            "(transformers/modeling_attn_mask_utils.py:243)");
  EXPECT_TRUE(r.available.call_sites);
}

TEST(RealTracesTest, HtaEventSyncYieldsItsSyncPoints) {
  LOAD_OR_SKIP(tl,
               "hta_critical_path/cuda_event_sync/event_sync_trace.json.gz");
  const Report r = MustAnalyze(tl);
  for (const char* api : {"cudaStreamSynchronize", "cudaEventSynchronize",
                          "cudaDeviceSynchronize"}) {
    const SyncPoint* p = FindSync(r, api);
    ASSERT_NE(p, nullptr) << api;
    EXPECT_EQ(p->kind, SyncKind::kExplicit) << api;
    EXPECT_GE(p->count, 1u) << api;
    EXPECT_GT(p->blocked_ns, 0) << api;
  }
  // cudaEventSynchronize waits on a 36 µs spin_kernel: it blocks at least
  // part of that.
  EXPECT_GT(FindSync(r, "cudaEventSynchronize")->blocked_ns, 1000);
  EXPECT_EQ(FindSync(r, "cudaEventQuery"), nullptr);  // non-blocking
}

TEST(RealTracesTest, HtaStreamWaitEventIsNotAHostBlock) {
  LOAD_OR_SKIP(tl,
               "hta_critical_path/cuda_event_sync_multi_stream/"
               "event_sync_trace.json.gz");
  const Report r = MustAnalyze(tl);
  EXPECT_EQ(FindSync(r, "cudaStreamWaitEvent"), nullptr);
  EXPECT_GE(r.gpu_side_waits, 1u);
}

TEST(RealTracesTest, HtaSimpleAddLaunchDelayOfTheFftKernel) {
  LOAD_OR_SKIP(tl,
               "hta_critical_path/simple_add/"
               "benchmark_result_493459_1694039959_trace.json.gz");
  absl::StatusOr<std::vector<KernelLaunchDelay>> delays =
      ComputeLaunchDelays(tl, {});
  ASSERT_TRUE(delays.ok()) << delays.status();
  bool found = false;
  for (const KernelLaunchDelay& d : *delays) {
    const GpuOp& op = tl.gpu_ops[d.op];
    if (op.correlation != 5597) continue;  // fft2d_r2c_32x32 HTA checks
    found = true;
    EXPECT_NE(tl.strings.Get(op.name).find("fft2d_r2c_32x32"),
              std::string_view::npos);
    EXPECT_EQ(d.delay_ns, 27'000);
  }
  EXPECT_TRUE(found) << "no kernel with correlation 5597";
  const Report r = MustAnalyze(tl);
  EXPECT_EQ(r.devices[0].streams.size(), 2u);  // streams 7 and 20
  EXPECT_NE(FindSync(r, "cudaStreamSynchronize"), nullptr);
}

TEST(RealTracesTest, NsightMfuBeforeAndAfter) {
  for (const char* name :
       {"nsys_ai/mfu_2gpu_before.sqlite", "nsys_ai/mfu_2gpu_after.sqlite"}) {
    LOAD_OR_SKIP(tl, name);
    const Report r = MustAnalyze(tl);
    EXPECT_TRUE(r.has_gpu_activity) << name;
    EXPECT_EQ(r.devices.size(), 2u) << name;
    EXPECT_EQ(r.ranks.size(), 2u) << name;
    // Both runs keep two GPUs busy (the reference tool's MFU study).
    EXPECT_EQ(r.verdict.primary, VerdictClass::kGpuBound) << name;
    const std::string json = WriteJsonReport(r);
    EXPECT_NE(json.find("\"schema\": \"feedprof.analysis/1\""),
              std::string::npos);
  }
}

TEST(RealTracesTest, NsightSaxpyBusyAndSpan) {
  LOAD_OR_SKIP(tl, "nsys_sqlite_saxpy/saxpy-mpi-cuda_nsys_perlmutter0.sqlite");
  const Report r = MustAnalyze(tl);
  ASSERT_EQ(r.devices.size(), 1u);
  ExpectRelative(static_cast<double>(r.devices[0].span_ns), 1097.33e6, 1e-5);
  ExpectRelative(static_cast<double>(r.devices[0].busy_ns), 373.27e6, 1e-5);
  EXPECT_FALSE(r.io.available);
  EXPECT_TRUE(r.io.unavailable_reason.starts_with(
      "Nsight Systems exports hold no per-process I/O counters"))
      << r.io.unavailable_reason;
}

// The CLI end to end: exit codes and both formats.
int RunCli(const std::string& args, std::string* out) {
  const std::string cmd =
      std::string(FEEDPROF_BINARY_DIR) + "/tools/feedprof analyze " + args;
  FILE* pipe = popen(cmd.c_str(), "r");
  if (pipe == nullptr) return -1;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) out->append(buf, n);
  const int status = pclose(pipe);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(RealTracesTest, CliExitCodes) {
  const std::string cli = std::string(FEEDPROF_BINARY_DIR) + "/tools/feedprof";
  if (!std::filesystem::exists(cli)) GTEST_SKIP() << cli << " not built";
  const std::string qwen = TracePath(kQwen);
  if (!std::filesystem::exists(qwen)) GTEST_SKIP() << qwen << " is absent";
  std::string out;
  EXPECT_EQ(RunCli(qwen + " --format json 2>/dev/null", &out), 0);
  EXPECT_NE(out.find("\"primary\""), std::string::npos);
  out.clear();
  EXPECT_EQ(RunCli(qwen + " --from 1ms --to 10ms 2>/dev/null", &out), 0);
  EXPECT_NE(out.find("Verdict:"), std::string::npos);
  out.clear();
  EXPECT_EQ(RunCli("/nonexistent/trace.json 2>/dev/null", &out), 1);
  EXPECT_EQ(RunCli(qwen + " --format xml 2>/dev/null", &out), 2);
  EXPECT_EQ(RunCli("2>/dev/null", &out), 2);
  EXPECT_EQ(RunCli(qwen + " --rank 7 2>/dev/null", &out), 1);
}

#else

TEST(RealTracesTest, SkippedWithoutTraceLoader) {
  GTEST_SKIP() << "feedprof/trace_loader.h is not in this tree";
}

#endif

}  // namespace
}  // namespace feedprof
