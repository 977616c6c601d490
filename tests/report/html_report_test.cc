// The timeline overview (Report::timeline, per-step breakdowns) and the HTML
// report: buckets add up to the device totals, the page carries the JSON
// report's numbers (the what-if section's too), escapes hostile names,
// stays small for a huge trace, and its time axes read well from
// nanoseconds to weeks.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iterator>
#include <map>
#include <regex>
#include <string>
#include <unordered_map>
#include <vector>

#include "absl/strings/str_cat.h"
#include "feedprof/analysis.h"
#include "feedprof/report.h"
#include "report/icicle_svg.h"
#include "report/svg_plot.h"
#include "tests/analysis/must_analyze.h"
#include "tests/analysis/timeline_builder.h"
#include "tests/testing/html_attributes.h"
#include "tests/testing/what_if_sample.h"

namespace feedprof {
namespace {

using testing::Attributes;

using testing::MustAnalyze;
using testing::TimelineBuilder;

// 40 iterations of a training-like loop: launch, kernel, sometimes a copy,
// every 8th a stream sync; thread samples every 50 µs; steps of 10
// iterations that tile the devices' span.
Timeline LoopTimeline() {
  TimelineBuilder b;
  double t = 0;
  for (int i = 0; i < 40; ++i) {
    const double gap = 5 + (i % 5) * 20;  // host time before the launch
    b.Launch(t + gap, t + gap + 3, t + gap + 4, t + gap + 30);
    if (i % 3 == 0) {
      b.Copy("cudaMemcpyAsync", t + gap + 4, t + gap + 5, t + gap + 31,
             t + gap + 36, CopyKind::kHtoD, 1 << 20);
    }
    if (i % 8 == 7) b.Api("cudaStreamSynchronize", t + gap + 6, t + gap + 37);
    t += gap + 40;
  }
  // Inside the window (first launch at 5 µs, last kernel end t − 10 µs).
  for (double s = 10; s <= t - 50; s += 50) {
    b.Sample(s, s * 0.6, ThreadState::kRunning);
  }
  return b.Take();
}

int64_t Sum(const std::vector<TimeNs>& v) {
  int64_t s = 0;
  for (TimeNs x : v) s += x;
  return s;
}

bool IsRoundWidth(TimeNs w) {
  while (w >= 10 && w % 10 == 0) w /= 10;
  return w == 1 || w == 2 || w == 5;
}

TEST(TimelineOverviewTest, BucketsAddUpToTheDeviceTotals) {
  const Report r = MustAnalyze(LoopTimeline());
  ASSERT_EQ(r.devices.size(), 1u);
  const DeviceReport& d = r.devices[0];
  const TimelineOverview& t = r.timeline;
  const TimeNs window = r.window.end - r.window.start;
  ASSERT_GT(t.buckets, 0u);
  EXPECT_LE(t.buckets, kTimelineMaxBuckets);
  EXPECT_TRUE(IsRoundWidth(t.bucket_ns)) << t.bucket_ns;
  EXPECT_GE(static_cast<TimeNs>(t.buckets) * t.bucket_ns, window);
  EXPECT_LT(static_cast<TimeNs>(t.buckets - 1) * t.bucket_ns, window);
  EXPECT_EQ(t.start, r.window.start);
  ASSERT_EQ(t.devices.size(), 1u);
  const TimelineDevice& row = t.devices[0];
  ASSERT_EQ(row.busy_ns.size(), t.buckets);
  EXPECT_EQ(Sum(row.busy_ns), d.busy_ns);
  ASSERT_GT(d.idle_ns, 0);
  for (int c = 0; c < kIdleCauses; ++c) {
    TimeNs sum = 0;
    for (const IdleByCause& k : row.idle_ns)
      sum += k.ns[static_cast<size_t>(c)];
    EXPECT_EQ(sum, d.idle_by_cause.ns[static_cast<size_t>(c)])
        << IdleCauseName(static_cast<IdleCause>(c));
  }
  // No bucket holds more than its width (each spread value's share of a
  // bucket is rounded to the nanosecond: a few ns over at most).
  for (size_t k = 0; k < t.buckets; ++k) {
    EXPECT_LE(row.busy_ns[k] + row.idle_ns[k].Total(),
              t.bucket_ns + 2 * kIdleCauses)
        << k;
  }
  // The launching thread: its CPU time (0.6 of wall) and its CUDA calls.
  ASSERT_EQ(t.threads.size(), 1u);
  const TimelineThread& th = t.threads[0];
  ASSERT_TRUE(th.samples);
  EXPECT_EQ(Sum(th.cpu_ns),
            r.host.threads[0].cpu_user_ns + r.host.threads[0].cpu_system_ns);
  EXPECT_EQ(Sum(th.cuda_api_ns), r.host.threads[0].cuda_api_ns);
  EXPECT_EQ(Sum(th.sync_ns), r.host.threads[0].sync_blocked_ns);
  EXPECT_EQ(t.sync_calls, 5u);  // iterations 7, 15, 23, 31, 39
  ASSERT_EQ(t.syncs.size(), 5u);
  EXPECT_EQ(t.syncs[0].api, "cudaStreamSynchronize");
  EXPECT_EQ(t.syncs[0].duration_ns, testing::Us(31));
}

TEST(TimelineOverviewTest, AWindowNearlyTwoToThe63KeepsEveryBucketInRange) {
  // Ops at both ends of the time range a reader accepts (±(2^62 - 1) ns):
  // rounded up to whole buckets the window would pass INT64_MAX (found by
  // fuzzing); it loses its last partial bucket instead.
  constexpr TimeNs kEdge = (TimeNs{1} << 62) - 1;
  TimelineBuilder b;
  GpuOp& first = b.Op(GpuOpKind::kKernel, 0, 0, 0);
  first.start = -kEdge;
  first.end = -kEdge + 1000;
  GpuOp& last = b.Op(GpuOpKind::kKernel, 0, 0, 0);
  last.start = kEdge - 1000;
  last.end = kEdge;
  AnalysisOptions options;
  options.include_pre_window = true;
  const Report r = MustAnalyze(b.Take(), options);
  const TimelineOverview& t = r.timeline;
  ASSERT_GT(t.buckets, 0u);
  TimeNs covered = 0;
  ASSERT_FALSE(__builtin_mul_overflow(static_cast<TimeNs>(t.buckets),
                                      t.bucket_ns, &covered));
  EXPECT_GE(t.start + covered, r.window.end - t.bucket_ns);
  ASSERT_EQ(t.devices.size(), 1u);
  TimeNs busy = 0;
  for (TimeNs v : t.devices[0].busy_ns) busy += v;
  EXPECT_GE(busy, 1000);  // the first op at least
  EXPECT_LE(busy, r.devices[0].busy_ns);
  EXPECT_FALSE(WriteHtmlReport(r).empty());
}

TEST(TimelineOverviewTest, StepsSplitIntoComputeCopiesAndIdleCauses) {
  TimelineBuilder b;
  // Step 1 [0, 100]: kernel 10-40, copy 30-60 (20 µs not under a kernel),
  // the rest idle. Step 2 [100, 200]: kernel 120-190.
  b.Launch(0, 2, 10, 40);
  b.Copy("cudaMemcpyAsync", 3, 4, 30, 60, CopyKind::kHtoD, 1 << 20);
  b.Launch(110, 115, 120, 190);
  b.Range("step", 0, 100);
  b.Range("step", 100, 200);
  const Report r = MustAnalyze(b.timeline());
  ASSERT_TRUE(r.steps.available);
  ASSERT_EQ(r.steps.steps.size(), 2u);
  const StepInfo& s1 = r.steps.steps[0];
  const StepInfo& s2 = r.steps.steps[1];
  EXPECT_EQ(s1.compute_ns, testing::Us(30));
  EXPECT_EQ(s1.copy_ns, testing::Us(20));
  EXPECT_EQ(s1.gpu_busy_ns, testing::Us(50));
  EXPECT_EQ(s2.compute_ns, testing::Us(70));
  EXPECT_EQ(s2.copy_ns, 0);
  // The one gap, 60-120: 60-100 in step 1, 100-120 in step 2; it is all
  // device idle, so the steps' idle adds up to the device's.
  EXPECT_EQ(s1.idle_by_cause.Total(), testing::Us(40));
  EXPECT_EQ(s2.idle_by_cause.Total(), testing::Us(20));
  // Host wait 60-110 (the launch began at 110), launch overhead 110-120.
  EXPECT_EQ(s2.idle_by_cause[IdleCause::kLaunchOverhead], testing::Us(10));
  EXPECT_EQ(s1.idle_by_cause[IdleCause::kLaunchOverhead], 0);
  EXPECT_EQ(r.timeline.step_stride, 1u);
}

TEST(TimelineOverviewTest, SyncListKeepsTheLongestInTimeOrder) {
  TimelineBuilder b;
  b.Launch(0, 1, 2, 3);
  // 600 syncs, the i-th lasting 1 + (i * 7919 % 600) ns-scaled µs.
  for (int i = 0; i < 600; ++i) {
    const double start = 10 + i * 1000.0;
    b.Api("cudaDeviceSynchronize", start, start + 1 + (i * 7919 % 600));
  }
  b.Launch(700000, 700001, 700002, 700003);
  const Report r = MustAnalyze(b.timeline());
  const TimelineOverview& t = r.timeline;
  EXPECT_EQ(t.sync_calls, 600u);
  ASSERT_EQ(t.syncs.size(), kTimelineMaxSyncs);
  for (size_t i = 1; i < t.syncs.size(); ++i) {
    EXPECT_LT(t.syncs[i - 1].start, t.syncs[i].start);
  }
  // Durations are 1..600 µs, each once: the kept 500 are 101..600 µs.
  TimeNs shortest = t.syncs[0].duration_ns;
  for (const TimelineSync& s : t.syncs) {
    shortest = std::min(shortest, s.duration_ns);
  }
  EXPECT_EQ(shortest, testing::Us(101));
}

// The first value of a JSON member `"key": value` after `from`.
std::string JsonValue(const std::string& json, const std::string& key,
                      const std::string& from = "") {
  const size_t start = from.empty() ? 0 : json.find(from);
  const std::string needle = "\"" + key + "\": ";
  const size_t at = json.find(needle, start == std::string::npos ? 0 : start);
  if (at == std::string::npos) return "";
  size_t b = at + needle.size();
  size_t e = b;
  if (json[b] == '"') {
    e = json.find('"', b + 1);
    return json.substr(b + 1, e - b - 1);
  }
  while (e < json.size() && json[e] != ',' && json[e] != '\n') ++e;
  return json.substr(b, e - b);
}

TEST(HtmlReportTest, HoldsTheNumbersOfTheJsonReport) {
  Timeline tl = LoopTimeline();
  tl.gpu_ops[0].name = tl.strings.Intern("sgemm_128x64_nn");
  const Report r = MustAnalyze(tl);
  const std::string json = WriteJsonReport(r);
  const std::string html = WriteHtmlReport(r);

  ASSERT_EQ(Attributes(html, "data-verdict").size(), 1u);
  EXPECT_EQ(Attributes(html, "data-verdict")[0], JsonValue(json, "primary"));
  EXPECT_EQ(std::stod(Attributes(html, "data-confidence")[0]),
            std::stod(JsonValue(json, "confidence")));
  EXPECT_EQ(Attributes(html, "data-confidence-label")[0],
            JsonValue(json, "confidence_label"));
  ASSERT_EQ(Attributes(html, "data-busy-ns").size(), 1u);
  EXPECT_EQ(Attributes(html, "data-busy-ns")[0],
            JsonValue(json, "busy_ns", "\"devices\""));
  EXPECT_EQ(Attributes(html, "data-idle-ns")[0],
            JsonValue(json, "idle_ns", "\"devices\""));
  EXPECT_EQ(Attributes(html, "data-span-ns")[0],
            JsonValue(json, "span_ns", "\"devices\""));
  EXPECT_EQ(std::stod(Attributes(html, "data-idle-share")[0]),
            std::stod(JsonValue(json, "idle_share", "\"devices\"")));
  // Top kernels: the same names and totals, in the same order.
  const std::vector<std::string> totals =
      Attributes(html, "data-kernel-total-ns");
  ASSERT_EQ(totals.size(), r.launch.top_kernels.size());
  ASSERT_GE(totals.size(), 2u);
  EXPECT_EQ(totals[0], JsonValue(json, "total_ns", "\"top_kernels\""));
  EXPECT_EQ(JsonValue(json, "name", "\"top_kernels\""), "kernel");
  EXPECT_NE(html.find(">sgemm_128x64_nn</td>"), std::string::npos);
  EXPECT_NE(html.find(">kernel</td>"), std::string::npos);
  // Every plot is marked for the browser check; one timeline per device.
  const std::vector<std::string> plots = Attributes(html, "data-plot");
  for (const char* plot :
       {"timeline-device-0", "timeline-syncs", "timeline-threads",
        "idle-by-cause", "gap-histogram-0"}) {
    EXPECT_NE(std::find(plots.begin(), plots.end(), plot), plots.end()) << plot;
  }
  // Offline: a CSP that allows no request, and no URL to fetch.
  EXPECT_NE(html.find("default-src 'none'"), std::string::npos);
  EXPECT_EQ(html.find("http://"), std::string::npos);
  EXPECT_EQ(html.find("https://"), std::string::npos);
  EXPECT_EQ(html.find(" src="), std::string::npos);
  EXPECT_EQ(html.find(" href="), std::string::npos);
}

// Every value of `"key": N` in `json` after `from`, in order.
std::vector<std::string> JsonValues(const std::string& json,
                                    const std::string& key,
                                    const std::string& from) {
  std::vector<std::string> out;
  const std::string needle = "\"" + key + "\": ";
  for (size_t at = json.find(needle, json.find(from)); at != std::string::npos;
       at = json.find(needle, at + 1)) {
    const size_t b = at + needle.size();
    out.push_back(json.substr(b, json.find_first_of(",\n}", b) - b));
  }
  return out;
}

TEST(HtmlReportTest, WhatIfSectionHoldsTheJsonFigures) {
  Report r = MustAnalyze(LoopTimeline());
  r.what_if = testing::SampleWhatIf();
  r.what_if.scenarios[1].sync_call_site = "step <script>x()</script>";
  r.verdict.next_steps = {"Pin the copies", "Prefetch: worth ~400 µs"};
  NextStepEstimate estimate;
  estimate.step = 1;
  estimate.scenario = WhatIfScenarioId::kInputReady;
  estimate.saving_ns = 400'000;
  estimate.saving_share = 1.0 / 3;
  r.verdict.next_step_estimates = {estimate};
  const std::string json = WriteJsonReport(r);
  const std::string html = WriteHtmlReport(r);

  ASSERT_EQ(Attributes(html, "data-available").size(), 1u);
  EXPECT_EQ(Attributes(html, "data-available")[0], "true");
  EXPECT_EQ(Attributes(html, "data-basis")[0], "steps");
  EXPECT_EQ(Attributes(html, "data-steps")[0], "40");
  EXPECT_EQ(Attributes(html, "data-observed-median-ns")[0],
            JsonValue(json, "observed_median_ns", "\"what_if\""));
  EXPECT_EQ(Attributes(html, "data-replayed-median-ns")[0],
            JsonValue(json, "replayed_median_ns", "\"what_if\""));
  EXPECT_EQ(std::stod(Attributes(html, "data-self-check-error")[0]),
            std::stod(JsonValue(json, "self_check_error", "\"what_if\"")));
  // One table row per scenario, in the JSON's order and with its numbers.
  const std::vector<std::string> ids = Attributes(html, "data-scenario");
  const std::vector<std::string> savings = Attributes(html, "data-saving-ns");
  const std::vector<std::string> json_ids =
      JsonValues(json, "id", "\"what_if\"");
  const std::vector<std::string> json_savings =
      JsonValues(json, "saving_ns", "\"what_if\"");
  // The priced next step comes first (verdict card), then the scenarios.
  ASSERT_EQ(ids.size(), 1 + r.what_if.scenarios.size());
  ASSERT_EQ(json_ids.size(), r.what_if.scenarios.size());
  EXPECT_EQ(ids[0], "input_ready");
  EXPECT_EQ(savings[0], "400000");
  for (size_t i = 0; i < json_ids.size(); ++i) {
    EXPECT_EQ("\"" + ids[i + 1] + "\"", json_ids[i]) << i;
    EXPECT_EQ(savings[i + 1], json_savings[i]) << i;
  }
  EXPECT_EQ(Attributes(html, "data-predicted-median-ns")[0],
            JsonValues(json, "predicted_median_ns", "\"what_if\"")[0]);
  EXPECT_EQ(std::stod(Attributes(html, "data-saving-share")[1]), 1.0 / 3);
  EXPECT_EQ(Attributes(html, "data-edits")[0], "40");
  EXPECT_EQ(Attributes(html, "data-sync-api")[1], "cudaStreamSynchronize");
  // The bars are a plot the browser check sizes; the page says these are
  // estimates and what they assume.
  const std::vector<std::string> plots = Attributes(html, "data-plot");
  EXPECT_NE(std::find(plots.begin(), plots.end(), "what-if"), plots.end());
  EXPECT_NE(html.find("<b>Estimates, not measurements.</b>"),
            std::string::npos);
  EXPECT_NE(html.find("<li>faster GPU: every kernel 20% shorter</li>"),
            std::string::npos);
  EXPECT_NE(html.find("each kernel launch call takes 1.5 µs; source: CUDA "
                      "graph replay per kernel</li>"),
            std::string::npos);
  EXPECT_NE(html.find("saves 400 µs (33.3%) \xE2\x86\x92 800 µs"),
            std::string::npos);
  EXPECT_NE(html.find(">nothing to change<"), std::string::npos);
  // The section comes before the devices; a hostile call site is escaped.
  EXPECT_LT(html.find("id=\"what-if\""), html.find("id=\"devices\""));
  EXPECT_EQ(html.find("<script>x()"), std::string::npos);
  EXPECT_NE(html.find("at step &lt;script&gt;x()&lt;/script&gt;"),
            std::string::npos);
  EXPECT_EQ(html.find("id=\"what-if-ranks\""), std::string::npos);
}

TEST(HtmlReportTest, WhatIfPerProcessAndSlowerScenarios) {
  Report r = MustAnalyze(LoopTimeline());
  r.what_if = testing::SampleWhatIf();
  // A scenario the replay finds slower is drawn past the observed step.
  r.what_if.scenarios.push_back(
      testing::MakeScenario(WhatIfScenarioId::kFasterGpu, "slower",
                            r.what_if.observed_median_ns, -0.1, 3));
  for (int32_t rank : {0, 1}) {
    WhatIfRank k;
    k.pid = rank + 1;
    k.rank = rank;
    k.observed_median_ns = 1'200'000;
    k.predicted_median_ns = 700'000 + rank * 100'000;
    r.what_if.scenarios[0].ranks.push_back(k);
  }
  const std::string html = WriteHtmlReport(r);
  EXPECT_NE(html.find("adds 120 µs (10.0%) \xE2\x86\x92 1.32 ms"),
            std::string::npos);
  EXPECT_NE(html.find(">slower than observed<"), std::string::npos);
  ASSERT_NE(html.find("id=\"what-if-ranks\""), std::string::npos);
  const std::vector<std::string> ranks = Attributes(html, "data-rank");
  ASSERT_EQ(ranks.size(), 2u);
  EXPECT_EQ(ranks[0], "0");
  EXPECT_EQ(ranks[1], "1");
}

TEST(HtmlReportTest, WhatIfUnavailableIsOneLineWithItsReason) {
  Report r = MustAnalyze(LoopTimeline());
  r.what_if = WhatIf{};
  r.what_if.unavailable_reason = "the replay is 7% off the steps";
  r.verdict.next_step_estimates.clear();
  std::string html = WriteHtmlReport(r);
  ASSERT_EQ(Attributes(html, "data-available").size(), 1u);
  EXPECT_EQ(Attributes(html, "data-available")[0], "false");
  EXPECT_EQ(Attributes(html, "data-reason")[0],
            "the replay is 7% off the steps");
  EXPECT_NE(html.find("No estimates for this trace: the replay is 7% off the "
                      "steps.</p>"),
            std::string::npos);
  const std::vector<std::string> plots = Attributes(html, "data-plot");
  EXPECT_EQ(std::find(plots.begin(), plots.end(), "what-if"), plots.end());
  // No replay run (no reason): no section at all.
  r.what_if.unavailable_reason.clear();
  html = WriteHtmlReport(r);
  EXPECT_EQ(html.find("id=\"what-if\""), std::string::npos);
  EXPECT_EQ(html.find("What each next step is worth"), std::string::npos);
}

TEST(HtmlReportTest, IoSectionHoldsTheReadFigures) {
  Report r = MustAnalyze(LoopTimeline());
  r.io = IoReport{};
  r.io.available = true;
  r.io.pattern = IoPattern::kSmallReads;
  r.io.steps = 20;
  RoleIo workers;
  workers.role = IoRole::kWorkers;
  workers.processes = 2;
  workers.reads = 15200;
  workers.reads_per_s = 1520;
  workers.reads_per_step = 760;
  workers.read_bytes_per_step = 3 << 20;
  workers.mean_read_bytes = 3379;
  workers.storage_share = 0.91;
  r.io.roles.push_back(workers);
  DiskIo vda;
  vda.device = "vda";
  vda.mount_point = "/data";
  vda.reads_per_s = 1480;
  vda.mean_read_bytes = 4096;
  vda.read_await_ms = 9.8;
  vda.utilization = 0.99;
  vda.max_in_flight = 31;
  r.io.disks.push_back(vda);
  std::string html = WriteHtmlReport(r);
  const size_t section = html.find("<h2 id=\"io\">How the input was read</h2>");
  ASSERT_NE(section, std::string::npos);
  EXPECT_NE(html.find("<b>small_reads</b>", section), std::string::npos);
  EXPECT_NE(html.find("<tr data-role=\"workers\"><td>workers</td><td>2</td>"
                      "<td>15,200</td><td>1,520</td><td>760</td>"
                      "<td>3.0 MiB</td><td>3.3 KiB</td><td>91.0%</td>",
                      section),
            std::string::npos);
  EXPECT_NE(html.find("<td>vda</td><td class=\"name\">/data</td><td>1,480"
                      "</td><td>4.0 KiB</td><td>9.80 ms</td><td>99.0%</td>"
                      "<td>31</td>",
                      section),
            std::string::npos);
  // Without counters: one line with the reason, no tables.
  r.io = IoReport{};
  r.io.unavailable_reason = "PyTorch profiler traces hold no counters";
  html = WriteHtmlReport(r);
  EXPECT_NE(html.find("<p>not available: PyTorch profiler traces hold no "
                      "counters.</p>"),
            std::string::npos);
  EXPECT_EQ(html.find("id=\"io-roles\""), std::string::npos);
}

TEST(HtmlReportTest, ShowsTheNoGpuExplanation) {
  TimelineBuilder b;
  b.Api("cudaGetDeviceCount", 0, 5);
  b.Sample(0, 0, ThreadState::kRunning);
  b.Sample(100, 80, ThreadState::kRunning);
  const Report r = MustAnalyze(b.timeline());
  ASSERT_TRUE(r.no_gpu_activity.has_value());
  const std::string html = WriteHtmlReport(r);
  ASSERT_EQ(Attributes(html, "data-no-gpu-cause").size(), 1u);
  EXPECT_EQ(Attributes(html, "data-no-gpu-cause")[0],
            NoGpuCauseName(r.no_gpu_activity->cause));
  EXPECT_EQ(Attributes(html, "data-verdict")[0], "inconclusive");
}

TEST(HtmlReportTest, EscapesHostileNames) {
  Timeline tl = LoopTimeline();
  const std::string hostile = "<script>alert('x')</script>&\"<img src=x>";
  for (GpuOp& op : tl.gpu_ops) op.name = tl.strings.Intern(hostile);
  Thread thread;
  thread.pid = TimelineBuilder::kPid;
  thread.tid = TimelineBuilder::kTid;
  thread.name = "</text><script>t()</script>";
  tl.threads.push_back(thread);
  tl.source_path = "/tmp/<b>trace</b>.json";
  tl.warnings.push_back("warning with <iframe>");
  const Report r = MustAnalyze(tl);
  const std::string html = WriteHtmlReport(r);
  EXPECT_EQ(html.find("<script>alert"), std::string::npos);
  EXPECT_EQ(html.find("<script>t()"), std::string::npos);
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_EQ(html.find("<iframe"), std::string::npos);
  EXPECT_EQ(html.find("<b>trace"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;"
                      "&quot;&lt;img src=x&gt;"),
            std::string::npos);
  EXPECT_NE(html.find("&lt;/text&gt;&lt;script&gt;t()"), std::string::npos);
  // Exactly one script element: the page's own render check.
  size_t scripts = 0;
  for (size_t at = html.find("<script"); at != std::string::npos;
       at = html.find("<script", at + 1)) {
    ++scripts;
  }
  EXPECT_EQ(scripts, 1u);
}

// Five million kernels over two hours, 20,000 steps, 3,000 syncs and ten
// sampled threads: the page must stay under 3 MiB (a fixed number of
// buckets, capped marks and bars), however long the trace.
TEST(HtmlReportTest, ABigTraceMakesASmallPage) {
  constexpr int kOps = 5'000'000;
  constexpr TimeNs kRun = 7'200'000'000'000;  // 2 h
  constexpr TimeNs kPeriod = kRun / kOps;     // 1.44 ms
  Timeline tl;
  tl.format = SourceFormat::kFeedprof;
  tl.source_path = "constructed-big";
  tl.available.api_calls = true;
  tl.available.host_samples = true;
  tl.available.ranges = true;
  tl.processes.push_back(Process{});
  tl.processes[0].pid = 1;
  tl.gpu_ops.reserve(kOps);
  const StringId names[3] = {tl.strings.Intern("gemm"),
                             tl.strings.Intern("softmax"),
                             tl.strings.Intern("layernorm")};
  for (int i = 0; i < kOps; ++i) {
    GpuOp op;
    op.pid = 1;
    op.start = i * kPeriod;
    op.end = op.start + kPeriod * (1 + i % 9) / 10;
    op.name = names[i % 3];
    op.launch = tl.launch_shapes.Intern({{1000, 0, 0}, {}, 0});
    tl.gpu_ops.push_back(op);
  }
  for (int tid = 1; tid <= 12; ++tid) {
    for (TimeNs ts = 0; ts <= kRun; ts += 100'000'000) {
      ThreadSample s;
      s.pid = 1;
      s.tid = tid;
      s.ts = ts;
      s.user_ns = ts / (tid + 1);
      s.state = ThreadState::kRunning;
      tl.thread_samples.push_back(s);
    }
  }
  const StringId sync = tl.strings.Intern("cudaStreamSynchronize");
  for (int i = 0; i < 3000; ++i) {
    ApiCall c;
    c.pid = 1;
    c.tid = 1;
    c.start = i * (kRun / 3000);
    c.end = c.start + 1'000'000 + i;
    c.name = sync;
    tl.api_calls.push_back(c);
  }
  const StringId step = tl.strings.Intern("ProfilerStep#1");
  for (int i = 0; i < 20000; ++i) {
    Range rg;
    rg.pid = 1;
    rg.tid = 1;
    rg.start = i * (kRun / 20000);
    rg.end = rg.start + kRun / 20000;
    rg.name = step;
    rg.source = RangeSource::kProfilerStep;
    tl.ranges.push_back(rg);
  }
  const Report r = MustAnalyze(tl);
  ASSERT_EQ(r.devices.size(), 1u);
  ASSERT_EQ(r.steps.steps.size(), 20000u);
  EXPECT_EQ(r.timeline.buckets, 720u);  // 10 s buckets
  EXPECT_EQ(r.timeline.bucket_ns, 10'000'000'000);
  EXPECT_EQ(r.timeline.threads.size(), kTimelineMaxThreads);
  EXPECT_EQ(r.timeline.step_stride, 67u);  // ceil(20000 / 300)
  const auto t0 = std::chrono::steady_clock::now();
  const std::string html = WriteHtmlReport(r);
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::steady_clock::now() - t0)
                      .count();
  std::printf("5 M ops: HTML %zu bytes, written in %lld ms\n", html.size(),
              static_cast<long long>(ms));
  EXPECT_LT(html.size(), 3u << 20);
  EXPECT_GT(html.size(), 50u << 10);  // it does hold the plots
}

// Time axes. Under 1000 s: the unit of a 1, 2 or 5 × 10^k ns step; from
// 1000 s on: minutes, hours or days with steps round in that unit.
constexpr double kSecond = 1e9, kMinute = 60e9, kHour = 3600e9, kDay = 86400e9;

struct ExpectedAxis {
  const char* unit;
  double step_in_unit;
  std::vector<std::string> labels;
};

void ExpectAxis(const report::TimeAxis& axis, const ExpectedAxis& want,
                double scale, double first_tick_ns = 0) {
  EXPECT_EQ(std::string(axis.unit), want.unit);
  EXPECT_EQ(axis.scale, scale);
  EXPECT_EQ(axis.labels, want.labels);
  ASSERT_EQ(axis.ticks_ns.size(), want.labels.size());
  for (size_t i = 0; i < axis.ticks_ns.size(); ++i) {
    EXPECT_DOUBLE_EQ(
        axis.ticks_ns[i],
        first_tick_ns + static_cast<double>(i) * want.step_in_unit * scale)
        << i;
  }
}

TimeNs Ns(double v) { return static_cast<TimeNs>(v); }

TEST(TimeAxisTest, TwentyDaysReadInDays) {
  // Two traces recorded 20.8 days apart: "1600000" in seconds before.
  ExpectAxis(report::MakeTimeAxis(0, Ns(20.8 * kDay)),
             {"d", 5, {"0", "5", "10", "15", "20"}}, kDay);
  // x = 0 at 3 d after the trace start: the ticks stay on whole 5 days.
  ExpectAxis(report::MakeTimeAxis(Ns(3 * kDay), Ns(20.8 * kDay)),
             {"d", 5, {"5", "10", "15", "20"}}, kDay, 2 * kDay);
  ExpectAxis(report::MakeDurationAxis(Ns(20.8 * kDay)),
             {"d", 5, {"0", "5", "10", "15", "20"}}, kDay);
}

TEST(TimeAxisTest, HoursFromThreeHoursToThreeDays) {
  ExpectAxis(report::MakeTimeAxis(0, Ns(3 * kHour)),
             {"h", 0.5, {"0.0", "0.5", "1.0", "1.5", "2.0", "2.5", "3.0"}},
             kHour);
  ExpectAxis(report::MakeDurationAxis(Ns(3 * kHour)),
             {"h", 1, {"0", "1", "2", "3"}}, kHour);
  ExpectAxis(report::MakeTimeAxis(0, Ns(2 * kDay)),
             {"h", 6, {"0", "6", "12", "18", "24", "30", "36", "42", "48"}},
             kHour);
}

TEST(TimeAxisTest, ThirtyMinutesReadInMinutes) {
  ExpectAxis(report::MakeTimeAxis(0, Ns(30 * kMinute)),
             {"min", 5, {"0", "5", "10", "15", "20", "25", "30"}}, kMinute);
  ExpectAxis(report::MakeDurationAxis(Ns(30 * kMinute)),
             {"min", 10, {"0", "10", "20", "30"}}, kMinute);
  // 7 min after the trace start: the first tick at 10 min.
  ExpectAxis(report::MakeTimeAxis(Ns(7 * kMinute), Ns(30 * kMinute)),
             {"min", 5, {"10", "15", "20", "25", "30", "35"}}, kMinute,
             3 * kMinute);
}

TEST(TimeAxisTest, SecondsUpTo999AndMinutesFrom1000) {
  ExpectAxis(
      report::MakeTimeAxis(0, Ns(999 * kSecond)),
      {"s",
       100,
       {"0", "100", "200", "300", "400", "500", "600", "700", "800", "900"}},
      kSecond);
  ExpectAxis(report::MakeDurationAxis(Ns(999 * kSecond)),
             {"s", 200, {"0", "200", "400", "600", "800"}}, kSecond);
  ExpectAxis(report::MakeTimeAxis(0, Ns(1000 * kSecond)),
             {"min", 2, {"0", "2", "4", "6", "8", "10", "12", "14", "16"}},
             kMinute);
  ExpectAxis(report::MakeDurationAxis(Ns(1000 * kSecond)),
             {"min", 5, {"0", "5", "10", "15"}}, kMinute);
}

TEST(TimeAxisTest, ShortAxesKeepTheirStepUnit) {
  ExpectAxis(report::MakeTimeAxis(0, 800),
             {"ns",
              100,
              {"0", "100", "200", "300", "400", "500", "600", "700", "800"}},
             1);
  ExpectAxis(report::MakeTimeAxis(0, Ns(1.5e6)),
             {"\xC2\xB5s",
              200,
              {"0", "200", "400", "600", "800", "1000", "1200", "1400"}},
             1e3);
  ExpectAxis(report::MakeTimeAxis(Ns(1.5e6), Ns(5e6)),
             {"\xC2\xB5s",
              500,
              {"1500", "2000", "2500", "3000", "3500", "4000", "4500", "5000",
               "5500", "6000", "6500"}},
             1e3);
  ExpectAxis(report::MakeDurationAxis(Ns(12 * kSecond)),
             {"s", 5, {"0", "5", "10"}}, kSecond);
}

// From 1000 s to 1000 days, every axis has 2 to 11 ticks on whole steps,
// labels without an exponent, at most four digits before the point, and
// told apart.
TEST(TimeAxisTest, LongAxesReadWellAtEveryLength) {
  for (double span = 1000 * kSecond; span <= 1000 * kDay; span *= 1.07) {
    for (bool duration : {false, true}) {
      const report::TimeAxis axis = duration
                                        ? report::MakeDurationAxis(Ns(span))
                                        : report::MakeTimeAxis(0, Ns(span));
      SCOPED_TRACE(::testing::Message() << span / kSecond << " s, "
                                        << (duration ? "duration" : "time"));
      ASSERT_GE(axis.labels.size(), 2u);
      EXPECT_LE(axis.labels.size(), duration ? 6u : 11u);
      EXPECT_GE(axis.scale, kMinute);
      for (size_t i = 0; i < axis.labels.size(); ++i) {
        const std::string& label = axis.labels[i];
        EXPECT_EQ(label.find_first_of("eE"), std::string::npos) << label;
        EXPECT_LE(label.find('.') == std::string::npos ? label.size()
                                                       : label.find('.'),
                  4u)
            << label;
        EXPECT_NEAR(std::stod(label) * axis.scale, axis.ticks_ns[i],
                    axis.scale * 1e-9)
            << label;
        if (i > 0) {
          EXPECT_NE(label, axis.labels[i - 1]);
        }
      }
    }
  }
}

// The texts of the first time axis of `html`: the first `<g class="axis">`
// labelled "time since trace start".
std::vector<std::string> FirstTimeAxisTexts(const std::string& html) {
  const std::regex text_re(">([^<]+)</text>");
  for (size_t b = html.find("<g class=\"axis\">"); b != std::string::npos;
       b = html.find("<g class=\"axis\">", b + 1)) {
    const std::string axis = html.substr(b, html.find("</g>", b) - b);
    if (axis.find("time since trace start") == std::string::npos) continue;
    std::vector<std::string> out;
    for (auto it = std::sregex_iterator(axis.begin(), axis.end(), text_re);
         it != std::sregex_iterator(); ++it) {
      out.push_back((*it)[1]);
    }
    return out;
  }
  return {};
}

TEST(HtmlReportTest, ATwentyDayWindowIsLabelledInDays) {
  constexpr double kDayUs = 86400e6;
  TimelineBuilder b;
  b.Launch(0, 2, 3, 10);
  b.Launch(10.4 * kDayUs, 10.4 * kDayUs + 2, 10.4 * kDayUs + 3,
           10.4 * kDayUs + 10);
  b.Launch(20.8 * kDayUs - 10, 20.8 * kDayUs - 8, 20.8 * kDayUs - 7,
           20.8 * kDayUs);
  b.Range("ProfilerStep#1", 0, 10.4 * kDayUs, RangeSource::kProfilerStep);
  b.Range("ProfilerStep#2", 10.4 * kDayUs, 20.8 * kDayUs,
          RangeSource::kProfilerStep);
  const Report r = MustAnalyze(b.Take());
  const std::string html = WriteHtmlReport(r);
  EXPECT_EQ(FirstTimeAxisTexts(html),
            (std::vector<std::string>{"0", "5", "10", "15", "20",
                                      "time since trace start (d)"}));
  EXPECT_EQ(html.find("time since trace start (s)"), std::string::npos);
  // The step bars' axis: steps of 10.4 days, ticks every 5 days.
  EXPECT_NE(html.find(">step time (d)</text>"), std::string::npos);
}

// The kinds the analysis gives KnownRole's frames.
CodeFrameKind KnownKind(const std::string& label) {
  static const std::map<std::string, CodeFrameKind> kKinds = {
      {"main (train.py:10)", CodeFrameKind::kUserCode},
      {"step (train.py:20)", CodeFrameKind::kUserCode},
      {"<module> (train.py:1)", CodeFrameKind::kUserCode},
      {"load (torch/utils/data/dataloader.py:5)", CodeFrameKind::kPython},
      {"aten::mm", CodeFrameKind::kOperator},
      {"cudaLaunchKernel", CodeFrameKind::kCudaCall}};
  const auto it = kKinds.find(label);
  return it == kKinds.end() ? CodeFrameKind::kNative : it->second;
}

// A stack of `labels` (outermost first) with its frames interned in
// `code`, as the analysis hands them over.
FoldedStack Stack(HostCode* code, const std::vector<std::string>& labels,
                  TimeNs ns) {
  FoldedStack stack;
  stack.self_ns = ns;
  for (const std::string& label : labels) {
    size_t at = 0;
    while (at < code->frames.size() && code->frames[at].label != label) ++at;
    if (at == code->frames.size()) {
      code->frames.push_back({label, KnownKind(label)});
    }
    stack.frames.push_back(static_cast<uint32_t>(at));
  }
  return stack;
}

// The code-location sections: a hand-made profile of the launching threads
// with known stacks (times in ns), its frames interned in `code`.
RoleCodeProfile KnownRole(HostCode* code) {
  RoleCodeProfile role;
  role.role = ThreadRole::kLaunching;
  role.threads = 1;
  role.stacks = {
      Stack(code,
            {"main (train.py:10)", "step (train.py:20)", "aten::mm",
             "cudaLaunchKernel"},
            400),
      Stack(code, {"main (train.py:10)", "step (train.py:20)"}, 100),
      Stack(code,
            {"main (train.py:10)", "load (torch/utils/data/dataloader.py:5)"},
            300),
      Stack(code, {"<module> (train.py:1)"}, 150),
  };
  role.other_ns = 50;
  role.located_ns = 1000;
  role.top = {
      {"cudaLaunchKernel", false, CodeFrameKind::kCudaCall, 400, 400},
      {"load (torch/utils/data/dataloader.py:5)", false, CodeFrameKind::kPython,
       300, 300},
      {"<module> (train.py:1)", true, CodeFrameKind::kUserCode, 150, 150}};
  role.user_lines = {
      {"step (train.py:20)", true, CodeFrameKind::kUserCode, 500, 500},
      {"main (train.py:10)", true, CodeFrameKind::kUserCode, 300, 800}};
  return role;
}

struct IcicleBox {
  double x, width;
  int y, kind;
  TimeNs ns;
  std::string title;
};

// The boxes of the icicle `plot` of a page, in document order.
std::vector<IcicleBox> IcicleBoxes(const std::string& html,
                                   const std::string& plot) {
  const size_t start = html.find("data-plot=\"" + plot + "\"");
  if (start == std::string::npos) return {};
  const size_t end = html.find("</svg>", start);
  const std::string svg = html.substr(start, end - start);
  const std::regex re(
      "<rect x=\"([0-9.]+)\" y=\"([0-9]+)\" width=\"([0-9.]+)\" "
      "height=\"[0-9]+\" class=\"k([0-9])\" data-ns=\"([0-9]+)\"><title>"
      "([^<]*)</title>");
  std::vector<IcicleBox> out;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), re);
       it != std::sregex_iterator(); ++it) {
    out.push_back({std::stod((*it)[1]), std::stod((*it)[3]),
                   std::stoi((*it)[2]), std::stoi((*it)[4]),
                   std::stoll((*it)[5]), (*it)[6]});
  }
  return out;
}

TEST(HtmlReportTest, CodeSectionsOnlyWhenAvailable) {
  Report r = MustAnalyze(LoopTimeline());
  ASSERT_FALSE(r.idle_by_code.available);
  ASSERT_FALSE(r.host_code.available);
  std::string html = WriteHtmlReport(r);
  EXPECT_EQ(html.find("id=\"idle-by-code\""), std::string::npos);
  EXPECT_EQ(html.find("id=\"host-code\""), std::string::npos);
  EXPECT_EQ(html.find("icicle"), std::string::npos);

  r.idle_by_code.available = true;
  r.idle_by_code.idle_ns = 4000;
  r.idle_by_code.host_wait_ns = 2000;
  r.idle_by_code.located_ns = 1500;
  r.idle_by_code.top = {{"step (train.py:20)", 1000, 0.25},
                        {"main (train.py:10)", 500, 0.125}};
  r.host_code.available = true;
  r.host_code.roles = {KnownRole(&r.host_code)};
  RoleCodeProfile loader = KnownRole(&r.host_code);
  loader.role = ThreadRole::kDataLoader;
  r.host_code.roles.push_back(loader);
  html = WriteHtmlReport(r);
  // Idle by code: inside "Where the idle time went", a bar per row, as
  // long as its share of the host wait.
  const size_t idle_at = html.find("id=\"idle-by-code\"");
  ASSERT_NE(idle_at, std::string::npos);
  EXPECT_LT(html.find("<h2>Where the idle time went</h2>"), idle_at);
  EXPECT_GT(html.find("<h3>Idle gaps by length</h3>"), idle_at);
  EXPECT_EQ(Attributes(html, "data-host-wait-ns"),
            std::vector<std::string>{"2000"});
  EXPECT_EQ(Attributes(html, "data-location-idle-ns"),
            (std::vector<std::string>{"1000", "500"}));
  EXPECT_NE(html.find("fill=\"#f5a25d\""), std::string::npos);
  // The bars: the share of a 330-pixel track the host wait fills.
  const std::regex bar("width=\"(165|82\\.5)\" height=\"16\" fill=\"#f5a25d\"");
  EXPECT_EQ(std::distance(std::sregex_iterator(html.begin(), html.end(), bar),
                          std::sregex_iterator()),
            2);
  // One block and one icicle per role, each with its tables.
  EXPECT_NE(
      html.find("<section id=\"host-code\" data-basis=\"stack_timeline\">"),
      std::string::npos);
  EXPECT_EQ(Attributes(html, "data-role"),
            (std::vector<std::string>{"launching", "dataloader"}));
  const std::vector<std::string> plots = Attributes(html, "data-plot");
  for (const char* plot :
       {"idle-by-code", "icicle-launching", "icicle-dataloader"}) {
    EXPECT_NE(std::find(plots.begin(), plots.end(), plot), plots.end()) << plot;
  }
  EXPECT_NE(html.find("Where the launching threads spent their time"),
            std::string::npos);
  EXPECT_EQ(Attributes(html, "data-user-line-ns").size(), 4u);
  EXPECT_EQ(Attributes(html, "data-self-ns").size(), 6u);

  // Available, but the GPU never waited for the host: one line.
  r.idle_by_code.host_wait_ns = 0;
  r.idle_by_code.top.clear();
  r.host_code.available = false;
  html = WriteHtmlReport(r);
  EXPECT_NE(html.find("id=\"idle-by-code\""), std::string::npos);
  EXPECT_NE(html.find("The GPU never waited"), std::string::npos);
  EXPECT_EQ(html.find("id=\"host-code\""), std::string::npos);
}

TEST(HtmlReportTest, IcicleBoxesAreAsWideAsTheirTime) {
  Report r = MustAnalyze(LoopTimeline());
  r.host_code.available = true;
  r.host_code.roles = {KnownRole(&r.host_code)};
  const std::string html = WriteHtmlReport(r);
  const std::vector<IcicleBox> boxes = IcicleBoxes(html, "icicle-launching");
  ASSERT_EQ(boxes.size(), 8u);  // root, 6 frames, the rest
  const IcicleBox& root = boxes[0];
  EXPECT_EQ(root.ns, 1000);
  EXPECT_EQ(root.y, 0);
  EXPECT_NEAR(root.width, 1100, 0.01);
  EXPECT_EQ(root.kind, 5);
  EXPECT_EQ(root.title.rfind("all launching threads \xE2\x80\x94 ", 0), 0u)
      << root.title;
  EXPECT_TRUE(root.title.ends_with(" (100.0%)")) << root.title;
  struct Want {
    const char* title_start;
    TimeNs ns;
    int depth, kind;
    double x;
  };
  // Depth first, the longest child leftmost.
  const Want want[] = {
      {"main (train.py:10)", 800, 1, 0, 0},
      {"step (train.py:20)", 500, 2, 0, 0},
      {"aten::mm", 400, 3, 2, 0},
      {"cudaLaunchKernel", 400, 4, 3, 0},
      {"load (torch/utils/data/dataloader.py:5)", 300, 2, 1, 550},
      {"&lt;module&gt; (train.py:1)", 150, 1, 0, 880},
      {"[stacks lighter than the 4 heaviest, not kept]", 50, 1, 5, 1045},
  };
  for (size_t i = 0; i < std::size(want); ++i) {
    const IcicleBox& b = boxes[i + 1];
    SCOPED_TRACE(want[i].title_start);
    EXPECT_EQ(b.title.rfind(want[i].title_start, 0), 0u) << b.title;
    EXPECT_EQ(b.ns, want[i].ns);
    // Width proportional to the time, x where its siblings end.
    EXPECT_NEAR(b.width, 1100.0 * static_cast<double>(want[i].ns) / 1000, 0.01);
    EXPECT_NEAR(b.x, want[i].x, 0.01);
    EXPECT_EQ(b.y, want[i].depth * 18);
    EXPECT_EQ(b.kind, want[i].kind);
  }
  // The tooltip: location — time (share of the root).
  EXPECT_EQ(boxes[1].title, "main (train.py:10) \xE2\x80\x94 800 ns (80.0%)");
  // Labels: the path cut to its file name, the root with its time.
  EXPECT_NE(html.find(">load (dataloader.py:5)</text>"), std::string::npos);
  EXPECT_NE(html.find(">&lt;module&gt; (train.py:1)</text>"),
            std::string::npos);
  // The legend names every colour.
  EXPECT_NE(html.find("the user&#39;s code (Python or native)"),
            std::string::npos);
}

TEST(HtmlReportTest, IcicleLabelsAreCutToFitTheirBox) {
  EXPECT_EQ(report::FitCodeLabel("abcdefghij", 100), "abcdefghij");
  // (100 - 6) / 6.8 = 13 characters fit.
  EXPECT_EQ(report::FitCodeLabel("abcdefghijklmnopqrstuvwxyz", 100),
            "abcdefghijkl\xE2\x80\xA6");
  EXPECT_EQ(report::FitCodeLabel("abcdefghijklm", 100), "abcdefghijklm");
  EXPECT_EQ(report::FitCodeLabel("abcdefghijklmn", 100),
            "abcdefghijkl\xE2\x80\xA6");
  // Multi-byte characters count once and are never cut in two.
  // (40 - 6) / 6.8 = 5 characters fit.
  EXPECT_EQ(report::FitCodeLabel(
                "\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9", 40),
            "\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xE2\x80\xA6");
  EXPECT_EQ(report::FitCodeLabel("abcdef", 30), "");  // < 4 characters fit
  EXPECT_EQ(report::ShortLocation("forward (transformers/models/q/m.py:150)"),
            "forward (m.py:150)");
  EXPECT_EQ(report::ShortLocation("aten::mm"), "aten::mm");
}

TEST(HtmlReportTest, FramesAreColouredByWhatTheAnalysisSaidTheyAre) {
  using report::BoxColour;
  using report::ColourOf;
  EXPECT_EQ(ColourOf(CodeFrameKind::kUserCode), BoxColour::kUser);
  EXPECT_EQ(ColourOf(CodeFrameKind::kPython), BoxColour::kPython);
  EXPECT_EQ(ColourOf(CodeFrameKind::kOperator), BoxColour::kOperator);
  EXPECT_EQ(ColourOf(CodeFrameKind::kCudaCall), BoxColour::kCuda);
  EXPECT_EQ(ColourOf(CodeFrameKind::kNative), BoxColour::kNative);
}

TEST(HtmlReportTest, EscapesCodeLocations) {
  Report r = MustAnalyze(LoopTimeline());
  const std::string hostile = "<script>alert(1)</script> (a&b.py:1)";
  r.idle_by_code.available = true;
  r.idle_by_code.idle_ns = 100;
  r.idle_by_code.host_wait_ns = 100;
  r.idle_by_code.located_ns = 100;
  r.idle_by_code.top = {{hostile, 100, 1.0}};
  r.host_code.available = true;
  RoleCodeProfile role = KnownRole(&r.host_code);
  role.stacks.push_back(Stack(&r.host_code, {hostile, "<img src=x>"}, 5000));
  role.top.push_back({hostile, true, CodeFrameKind::kUserCode, 5000, 5000});
  role.user_lines.push_back(
      {"\"><iframe>", true, CodeFrameKind::kUserCode, 5000, 5000});
  r.host_code.roles = {role};
  const std::string html = WriteHtmlReport(r);
  EXPECT_EQ(html.find("<script>alert"), std::string::npos);
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_EQ(html.find("<iframe"), std::string::npos);
  EXPECT_EQ(html.find("a&b"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert(1)&lt;/script&gt; (a&amp;b.py:1)"),
            std::string::npos);
  EXPECT_NE(html.find("&quot;&gt;&lt;iframe&gt;"), std::string::npos);
  size_t scripts = 0;
  for (size_t at = html.find("<script"); at != std::string::npos;
       at = html.find("<script", at + 1)) {
    ++scripts;
  }
  EXPECT_EQ(scripts, 1u);
}

// 5000 stacks, 120 frames deep, with long labels, in each of the three
// roles: 500 branches of 0.2 % each, every one a chain of distinct frames
// (tens of thousands of boxes wide enough to draw), so the box cap, the
// row cap and the width threshold all apply. The page stays under 2 MiB.
RoleCodeProfile DeepRole(ThreadRole which, HostCode* code) {
  std::unordered_map<std::string, uint32_t> index;
  RoleCodeProfile role;
  role.role = which;
  role.threads = 4;
  for (int i = 0; i < 5000; ++i) {
    FoldedStack s;
    const int branch = i % 500;
    for (int d = 0; d < 120; ++d) {
      std::string label = absl::StrCat(
          "function_with_a_long_name_", d, "_", d < 3 ? 0 : branch,
          d > 60 ? i : 0, " (site-packages/some_library/some_module/file_", d,
          ".py:", 100 + d, ")");
      const auto [it, fresh] =
          index.try_emplace(label, static_cast<uint32_t>(code->frames.size()));
      if (fresh) {
        code->frames.push_back({std::move(label), CodeFrameKind::kPython});
      }
      s.frames.push_back(it->second);
    }
    s.self_ns = 1000 + i % 7;
    role.located_ns += s.self_ns;
    role.stacks.push_back(std::move(s));
  }
  role.other_ns = 12345;
  role.located_ns += role.other_ns;
  for (int i = 0; i < 10; ++i) {
    role.top.push_back({code->frames[role.stacks[i].frames.back()].label, true,
                        CodeFrameKind::kUserCode, 1000, 2000});
    role.user_lines.push_back({code->frames[role.stacks[i].frames[5]].label,
                               true, CodeFrameKind::kUserCode, 1000, 2000});
  }
  return role;
}

TEST(HtmlReportTest, DeepStacksMakeABoundedPage) {
  Report r = MustAnalyze(LoopTimeline());
  const size_t without = WriteHtmlReport(r).size();
  r.host_code.available = true;
  r.host_code.basis = CodeProfileBasis::kStackSamples;
  for (ThreadRole role :
       {ThreadRole::kLaunching, ThreadRole::kDataLoader, ThreadRole::kOther}) {
    r.host_code.roles.push_back(DeepRole(role, &r.host_code));
  }
  const auto t0 = std::chrono::steady_clock::now();
  const std::string html = WriteHtmlReport(r);
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::steady_clock::now() - t0)
                      .count();
  std::printf(
      "3 roles x 5000 stacks x 120 frames: HTML %zu bytes (%zu without), "
      "written in %lld ms\n",
      html.size(), without, static_cast<long long>(ms));
  EXPECT_LT(html.size() - without, 2u << 20);
  for (const char* plot :
       {"icicle-launching", "icicle-dataloader", "icicle-other"}) {
    const std::vector<IcicleBox> boxes = IcicleBoxes(html, plot);
    SCOPED_TRACE(plot);
    EXPECT_GT(boxes.size(), 1000u);
    EXPECT_LE(boxes.size(), report::kIcicleMaxBoxes);
    int deepest = 0;
    for (const IcicleBox& b : boxes) {
      deepest = std::max(deepest, b.y / report::kIcicleRowH);
      EXPECT_GE(b.width, 1100 * report::kIcicleMinShare - 0.01);
    }
    EXPECT_EQ(deepest + 1, static_cast<int>(report::kIcicleRows));
  }
  EXPECT_NE(
      html.find("<section id=\"host-code\" data-basis=\"stack_samples\">"),
      std::string::npos);
  EXPECT_NE(html.find("Sampled CPU time"), std::string::npos);
  EXPECT_NE(html.find("Stacks are cut at 40 rows"), std::string::npos);
  EXPECT_NE(html.find("and at most 2500 boxes are"), std::string::npos);
}

}  // namespace
}  // namespace feedprof
