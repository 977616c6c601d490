// The report writers: the JSON parses and carries every documented field
// (docs/report-json.md); the text report shows the verdict, evidence, next
// steps and "not available" where the trace lacks data; time arguments.
#include <gtest/gtest.h>

#include <string>

#include "feedprof/analysis.h"
#include "feedprof/report.h"
#include "tests/analysis/must_analyze.h"
#include "tests/analysis/timeline_builder.h"
#include "tests/report/json_paths.h"

namespace feedprof {
namespace {

using testing::JsonPaths;
using testing::MustAnalyze;
using testing::TimelineBuilder;

Report SampleReport() {
  TimelineBuilder b;
  b.Launch(0, 1, 10, 20);
  b.Api("cudaStreamSynchronize", 2, 21);
  b.Copy("cudaMemcpyAsync", 22, 23, 25, 30, CopyKind::kHtoD, 1 << 20,
         MemoryKind::kPageable);
  b.Launch(40, 41, 45, 60);
  b.Range("ProfilerStep#1", 0, 30, RangeSource::kProfilerStep);
  b.Range("ProfilerStep#2", 30, 62, RangeSource::kProfilerStep);
  b.timeline().warnings.push_back("file truncated after packet 3 \"quoted\"");
  return MustAnalyze(b.timeline());
}

TEST(ReportOutputTest, JsonParsesAndHasTheDocumentedFields) {
  const std::string json = WriteJsonReport(SampleReport());
  JsonPaths parsed;
  ASSERT_TRUE(parsed.Parse(json)) << json;
  for (const char* path : {"schema",
                           "source.format",
                           "source.path",
                           "window.start_ns",
                           "window.end_ns",
                           "window.from_ns",
                           "window.to_ns",
                           "verdict.primary",
                           "verdict.runner_up",
                           "verdict.confidence",
                           "verdict.confidence_label",
                           "verdict.evidence",
                           "verdict.next_steps",
                           "devices[].device",
                           "devices[].name",
                           "devices[].span_ns",
                           "devices[].busy_ns",
                           "devices[].idle_ns",
                           "devices[].idle_share",
                           "devices[].gaps.count",
                           "devices[].gaps.histogram.le_10us",
                           "devices[].gaps.histogram.gt_10ms",
                           "devices[].idle_by_cause_ns.host_wait",
                           "devices[].idle_by_cause_ns.host_wait_sync",
                           "devices[].idle_by_cause_ns.launch_overhead",
                           "devices[].idle_by_cause_ns.queue_latency",
                           "devices[].idle_by_cause_ns.unattributed",
                           "devices[].launch_overhead_share",
                           "devices[].excluded_ops.count",
                           "devices[].excluded_ops.busy_ns",
                           "devices[].streams[].host_wait_ns",
                           "launch.count",
                           "launch.median_api_ns",
                           "launch.median_kernel_ns",
                           "launch.graph_launches",
                           "launch.graph_kernels",
                           "launch.median_graph_launch_api_ns",
                           "launch.launch_delays",
                           "launch.max_launch_delay_ns",
                           "launch.top_kernels[].name",
                           "launch.top_kernels[].count",
                           "launch.top_kernels[].total_ns",
                           "sync_points[].api",
                           "sync_points[].kind",
                           "sync_points[].reason",
                           "sync_points[].call_site",
                           "sync_points[].count",
                           "sync_points[].blocked_ns",
                           "sync_points[].wall_share",
                           "sync_points[].idle_after_ns",
                           "copies.bytes",
                           "copies.directions[].achieved_gbps",
                           "copies.pageable_share",
                           "copies.link",
                           "host.samples_available",
                           "host.threads[].cpu_user_ns",
                           "host.workers",
                           "host.program_cpu_ns",
                           "host.profiler_threads",
                           "host.profiler_cpu_ns",
                           "steps.available",
                           "steps.count",
                           "steps.median_ns",
                           "steps.p90_ns",
                           "warnings"}) {
    EXPECT_TRUE(parsed.paths().count(path)) << "missing " << path;
  }
  EXPECT_EQ(parsed.scalars().at("schema"), "feedprof.analysis/1");
  EXPECT_EQ(parsed.scalars().at("steps.count"), "2");
  EXPECT_EQ(parsed.scalars().at("devices[].span_ns"), "50000");
  // Not available is null, never zero.
  EXPECT_EQ(parsed.scalars().at("host.threads[].cpu_user_ns"), "null");
  EXPECT_EQ(parsed.scalars().at("copies.link"), "null");
  EXPECT_EQ(parsed.scalars().at("host.program_cpu_ns"), "null");
  EXPECT_EQ(parsed.scalars().at("launch.median_graph_launch_api_ns"), "null");
  // Two launch calls, each with its kernel: delays of 10 µs and 5 µs.
  EXPECT_EQ(parsed.scalars().at("launch.launch_delays"), "2");
  EXPECT_EQ(parsed.scalars().at("launch.max_launch_delay_ns"), "10000");
  EXPECT_EQ(parsed.scalars().at("warnings[]"),
            "file truncated after packet 3 \"quoted\"");
  EXPECT_FALSE(parsed.paths().count("ranks"));  // one process only
}

TEST(ReportOutputTest, TextReportLeadsWithTheVerdict) {
  const Report r = SampleReport();
  const std::string text = WriteTextReport(r);
  EXPECT_EQ(text.find("feedprof analysis of constructed"), 0u);
  EXPECT_NE(
      text.find(std::string("Verdict: ") + VerdictClassName(r.verdict.primary)),
      std::string::npos);
  EXPECT_NE(text.find("Evidence:"), std::string::npos);
  EXPECT_NE(text.find("Next steps:"), std::string::npos);
  EXPECT_NE(text.find("file truncated after packet 3"), std::string::npos);
  EXPECT_NE(text.find("cpu not available"), std::string::npos);
  EXPECT_NE(text.find("cudaStreamSynchronize"), std::string::npos);
  TextReportOptions summary;
  summary.details = false;
  EXPECT_EQ(WriteTextReport(r, summary).find("---- details ----"),
            std::string::npos);
}

TEST(ReportOutputTest, IoFiguresInTextAndJson) {
  Report r = SampleReport();
  r.io = IoReport{};
  r.io.available = true;
  r.io.pattern = IoPattern::kLargeReads;
  r.io.reading_role = IoRole::kMain;
  RoleIo main;
  main.processes = 1;
  main.reads = 2048;
  main.reads_per_s = 512;
  main.mean_read_bytes = 1 << 20;
  main.storage_share = 0.97;
  main.writes = 3;
  main.write_chars = 4096;
  r.io.roles.push_back(main);
  r.io.disks_unavailable_reason = "overlay on / has no block device";
  const std::string text = WriteTextReport(r);
  EXPECT_NE(text.find("I/O (read calls from /proc/PID/io; pattern "
                      "large_reads):\n  main    1 process: reads 2,048 "
                      "(512/s), 1.0 MiB on average, from storage 97.0%; "
                      "writes 3 (4.0 KiB)\n  disks: not available (overlay "
                      "on / has no block device)"),
            std::string::npos)
      << text;
  JsonPaths parsed;
  ASSERT_TRUE(parsed.Parse(WriteJsonReport(r)));
  EXPECT_EQ(parsed.scalars().at("io.pattern"), "large_reads");
  EXPECT_EQ(parsed.scalars().at("io.reading_role"), "main");
  EXPECT_EQ(parsed.scalars().at("io.roles[].reads"), "2048");
  EXPECT_EQ(parsed.scalars().at("io.roles[].reads_per_step"), "null");
  EXPECT_EQ(parsed.scalars().at("io.disks_unavailable_reason"),
            "overlay on / has no block device");
  // Without counters: one line with the reason.
  r.io = IoReport{};
  r.io.unavailable_reason = "PyTorch profiler traces hold no counters";
  EXPECT_NE(WriteTextReport(r).find("I/O: not available (PyTorch profiler "
                                    "traces hold no counters)"),
            std::string::npos);
}

TEST(ReportOutputTest, NoGpuActivitySaysSo) {
  TimelineBuilder b;
  b.Api("cudaGetDeviceCount", 0, 10);
  const Report r = MustAnalyze(b.timeline());
  const std::string text = WriteTextReport(r);
  EXPECT_NE(text.find("no GPU activity"), std::string::npos);
  JsonPaths parsed;
  ASSERT_TRUE(parsed.Parse(WriteJsonReport(r)));
  EXPECT_EQ(parsed.scalars().at("verdict.primary"), "inconclusive");
  EXPECT_EQ(parsed.scalars().at("has_gpu_activity"), "false");
}

// What was not measured prints "not available" (text) and null (JSON),
// never "0 ns"; counts agree with their nouns; the text ends with a newline.
TEST(ReportOutputTest, UnmeasuredMediansAreNotAvailable) {
  TimelineBuilder b;  // copies only: no kernel, no launch call
  b.Copy("cudaMemcpy", 0, 20, 5, 15, CopyKind::kHtoD, 1 << 20);
  b.Copy("cudaMemcpy", 30, 50, 35, 45, CopyKind::kHtoD, 1 << 20);
  const Report r = MustAnalyze(b.timeline());
  const std::string text = WriteTextReport(r);
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.back(), '\n');
  EXPECT_NE(text.find("median call not available, median kernel not "
                      "available"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("launch delay median not available"), std::string::npos);
  EXPECT_EQ(text.find("median call 0 ns"), std::string::npos);
  EXPECT_NE(text.find("2 calls"), std::string::npos);
  JsonPaths parsed;
  ASSERT_TRUE(parsed.Parse(WriteJsonReport(r)));
  EXPECT_EQ(parsed.scalars().at("launch.median_api_ns"), "null");
  EXPECT_EQ(parsed.scalars().at("launch.median_kernel_ns"), "null");
  EXPECT_EQ(parsed.scalars().at("launch.median_launch_delay_ns"), "null");
  EXPECT_EQ(parsed.scalars().at("launch.launch_delays"), "0");  // not null

  TimelineBuilder one;  // one sync call, one step: singular nouns
  one.Launch(0, 1, 2, 10);
  one.Api("cudaDeviceSynchronize", 1, 11);
  one.Launch(12, 13, 14, 20);
  one.Range("ProfilerStep#1", 0, 21, RangeSource::kProfilerStep);
  const std::string single = WriteTextReport(MustAnalyze(one.timeline()));
  EXPECT_NE(single.find("1 call,"), std::string::npos) << single;
  EXPECT_NE(single.find("1 step ("), std::string::npos) << single;
  EXPECT_NE(single.find("(1 group,"), std::string::npos) << single;
  EXPECT_EQ(single.find("1 calls"), std::string::npos);
  EXPECT_EQ(single.find("1 steps"), std::string::npos);
}

// A GPU-bound run's first next step names the kernel with the most GPU
// time, its parameter list dropped.
TEST(ReportOutputTest, GpuBoundNextStepNamesTheTopKernel) {
  TimelineBuilder b;
  double t = 0;
  for (int i = 0; i < 10; ++i) {
    GpuOp& k = b.Launch(t, t + 2, t + 3, t + 103);
    k.name = b.timeline().strings.Intern(
        i % 5 == 0 ? "void gemm_kernel<float, 128>(float const*, int)"
                   : "relu_kernel(float*)");
    t += 101;
  }
  const Report r = MustAnalyze(b.timeline());
  ASSERT_EQ(r.verdict.primary, VerdictClass::kGpuBound);
  ASSERT_FALSE(r.launch.top_kernels.empty());
  EXPECT_EQ(r.launch.top_kernels[0].name, "relu_kernel(float*)");
  EXPECT_EQ(r.launch.top_kernels[0].count, 8u);
  EXPECT_EQ(r.launch.top_kernels[0].total_ns, 8 * testing::Us(100));
  ASSERT_FALSE(r.verdict.next_steps.empty());
  EXPECT_NE(r.verdict.next_steps[0].find("relu_kernel (8 launches, 800 µs, "
                                         "80.0% of GPU busy time)"),
            std::string::npos)
      << r.verdict.next_steps[0];
}
}  // namespace
}  // namespace feedprof
