// Constructed pairs of runs that differ in one thing each (an idle cause, a
// kernel, a sync point, a copy): the comparison names that change and
// keeps every other figure of the same kind unchanged. A run against itself
// changes nothing and is within noise.
#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "compare/code_location_move.h"
#include "feedprof/compare.h"
#include "feedprof/diff_report.h"
#include "tests/analysis/must_analyze.h"
#include "tests/analysis/timeline_builder.h"

namespace feedprof {
namespace {

using testing::TimelineBuilder;
using testing::Us;

constexpr int kSteps = 10;

// What to vary in a constructed run of kSteps steps. Each step (period
// `period_us` plus a jitter of 0, 10 or 20 µs) launches kernel "gemm" at
// its start (GPU 10..600 µs) and kernel `second_kernel` at
// `second_launch_us` (GPU 10 µs after the launch, `second_us` long).
struct RunShape {
  double period_us = 1200;
  double second_launch_us = 600;
  double second_us = 290;
  std::string second_kernel = "softmax";
  bool sync_after = false;  // cudaStreamSynchronize at 900..950 µs
  bool copy_after = false;  // pinned HtoD copy of 1 MiB at 910..950 µs
  // Python code around the sync: a function `sync_function` of train.py
  // (one range over 650..1000 µs of each step, "function (train.py:LINE)"
  // its location) that issued the sync; 0: none.
  uint32_t sync_line = 0;
  std::string sync_function = "log_loss";
};

// A Python call site of train.py: `function` at `line`.
uint32_t PythonSite(Timeline& t, const std::string& function, uint32_t line) {
  CallSite site;
  site.python = true;
  Frame f;
  f.kind = FrameKind::kPython;
  f.file = t.strings.Intern("train.py");
  f.function = t.strings.Intern(function);
  f.line = line;
  site.frames.push_back(f);
  t.call_sites.push_back(site);
  return static_cast<uint32_t>(t.call_sites.size() - 1);
}

Timeline Build(const RunShape& shape) {
  TimelineBuilder b;
  double t = 0;
  for (int i = 0; i < kSteps; ++i) {
    const double period = shape.period_us + 10.0 * (i % 3);
    b.Range("ProfilerStep#" + std::to_string(i), t, t + period,
            RangeSource::kProfilerStep);
    b.Launch(t, t + 5, t + 10, t + 600).name =
        b.timeline().strings.Intern("gemm");
    const double l = t + shape.second_launch_us;
    b.Launch(l, l + 5, l + 10, l + 10 + shape.second_us).name =
        b.timeline().strings.Intern(shape.second_kernel);
    if (shape.sync_after) b.Api("cudaStreamSynchronize", t + 900, t + 950);
    if (shape.sync_line != 0) {
      b.Range(absl::StrCat("train.py(", shape.sync_line,
                           "): ", shape.sync_function),
              t + 650, t + 1000, RangeSource::kPythonFunction);
      if (shape.sync_after) {
        b.timeline().api_calls.back().call_site =
            PythonSite(b.timeline(), shape.sync_function, shape.sync_line);
      }
    }
    if (shape.copy_after) {
      b.Copy("cudaMemcpyAsync", t + 900, t + 905, t + 910, t + 950,
             CopyKind::kHtoD, 1 << 20);
    }
    t += period;
  }
  return b.Take();
}

// With `fail_if_slower`, as `diff --fail-if-slower PCT`: the noise test
// one-sided and the gate decided.
Comparison CompareShapes(const RunShape& before, const RunShape& after,
                         std::optional<double> fail_if_slower = std::nullopt) {
  CompareOptions options;
  options.fail_if_slower_percent = fail_if_slower;
  absl::StatusOr<AnalyzedRun> b = AnalyzeForComparison(Build(before), options);
  absl::StatusOr<AnalyzedRun> a = AnalyzeForComparison(Build(after), options);
  EXPECT_TRUE(b.ok() && a.ok());
  if (!b.ok() || !a.ok()) return Comparison{};
  return Compare(*b, *a, options);
}

constexpr double kNsTolerance = 1;  // per step

void ExpectKernelsUnchanged(const Comparison& c) {
  for (const KernelChange& k : c.kernels.kernels) {
    EXPECT_EQ(k.presence, Presence::kBoth) << k.name;
    EXPECT_NEAR(k.time_per_unit_ns.delta, 0, kNsTolerance) << k.name;
    EXPECT_NEAR(k.count_per_unit.delta, 0, 1e-9) << k.name;
  }
  EXPECT_NEAR(c.launch.launches_per_unit.delta, 0, 1e-9);
}

void ExpectNoSyncOrCopyChange(const Comparison& c) {
  EXPECT_TRUE(c.syncs.added.empty());
  EXPECT_TRUE(c.syncs.vanished.empty());
  EXPECT_NEAR(c.syncs.blocked_per_unit_ns.delta, 0, kNsTolerance);
  EXPECT_NEAR(c.copies.bytes_per_unit.delta, 0, 1e-9);
  EXPECT_NEAR(c.copies.time_per_unit_ns.delta, 0, kNsTolerance);
}

TEST(CompareTest, RunAgainstItselfChangesNothing) {
  const Comparison c = CompareShapes({}, {});
  EXPECT_EQ(c.unit, "step");
  EXPECT_EQ(c.before.steps, static_cast<uint64_t>(kSteps));
  ASSERT_TRUE(c.step_time.available);
  EXPECT_DOUBLE_EQ(c.step_time.median_ns.delta, 0);
  EXPECT_EQ(c.step_time.before.median_ns, Us(1210));  // 1200/1210/1220
  ASSERT_TRUE(c.step_time.noise.judged);
  EXPECT_FALSE(c.step_time.noise.beyond_noise);
  EXPECT_DOUBLE_EQ(c.step_time.noise.test.p_value, 1.0);
  EXPECT_EQ(c.step_time.noise.alternative, Alternative::kTwoSided);
  // The differences of a run against itself (steps of 1200, 1210 and
  // 1220 µs, 4, 3 and 3 of them) are -20..20 µs around 0; the exact
  // 95 % order for 10 against 10 is k = 24: [D(24), D(77)] = [-10, 10] µs.
  const ShiftEstimate& shift = c.step_time.noise.shift_ns;
  EXPECT_DOUBLE_EQ(shift.estimate, 0);
  EXPECT_EQ(shift.order, 24u);
  EXPECT_DOUBLE_EQ(shift.low.value_or(0), -static_cast<double>(Us(10)));
  EXPECT_DOUBLE_EQ(shift.high.value_or(0), static_cast<double>(Us(10)));
  EXPECT_FALSE(c.gate);
  for (const IdleCauseChange& k : c.idle.causes) {
    EXPECT_DOUBLE_EQ(k.per_unit_ns.delta, 0) << k.name;
  }
  ExpectKernelsUnchanged(c);
  ExpectNoSyncOrCopyChange(c);
  EXPECT_FALSE(c.verdict.changed);
  EXPECT_TRUE(c.comparable);
  EXPECT_TRUE(c.platform.empty());
  EXPECT_EQ(c.headline.find("idle by cause unchanged; step time +0%"), 0u)
      << c.headline;
  EXPECT_NE(c.headline.find("within noise"), std::string::npos);
  // The gate at 0 %: one-sided, no slowdown (p = 0.516).
  const Comparison gated = CompareShapes({}, {}, 0);
  ASSERT_TRUE(gated.gate);
  EXPECT_EQ(gated.gate->outcome, GateOutcome::kPass);
  EXPECT_EQ(gated.step_time.noise.alternative, Alternative::kAfterLarger);
  EXPECT_NEAR(gated.step_time.noise.test.p_value, 0.5160312, 1e-6);
  EXPECT_NE(gated.headline.find("no slowdown beyond noise"), std::string::npos)
      << gated.headline;
}

TEST(CompareTest, OneIdleCauseGrows) {
  // The second launch starts 100 µs later in every step: 100 µs more host
  // wait per step (no CPU samples: cause unknown), the step 100 µs longer.
  RunShape after;
  after.period_us = 1300;
  after.second_launch_us = 700;
  const Comparison c = CompareShapes({}, after);
  const IdleCauseChange& top =
      c.idle.causes[static_cast<size_t>(c.idle.largest.front())];
  EXPECT_EQ(top.cause, IdleCause::kHostWaitUnknown);
  EXPECT_NEAR(top.per_unit_ns.delta, Us(100), kNsTolerance);
  for (const IdleCauseChange& k : c.idle.causes) {
    if (k.cause == IdleCause::kHostWaitUnknown) continue;
    EXPECT_NEAR(k.per_unit_ns.delta, 0, kNsTolerance) << k.name;
  }
  ExpectKernelsUnchanged(c);
  ExpectNoSyncOrCopyChange(c);
  EXPECT_DOUBLE_EQ(c.step_time.median_ns.delta, static_cast<double>(Us(100)));
  EXPECT_TRUE(c.step_time.noise.beyond_noise);
  EXPECT_EQ(c.headline.find("host wait (no CPU samples) rose from "), 0u)
      << c.headline;
  EXPECT_NE(c.headline.find("step time +8% (1.21 ms -> 1.31 ms median, "
                            "beyond noise)"),
            std::string::npos)
      << c.headline;
  // Two-sided (ties: the normal approximation) p = 1.49e-4; the shift
  // 100 µs, 95 % interval [90, 110] µs.
  EXPECT_NEAR(c.step_time.noise.test.p_value, 1.4851370e-4, 1e-10);
  EXPECT_DOUBLE_EQ(c.step_time.noise.shift_ns.estimate,
                   static_cast<double>(Us(100)));
  EXPECT_DOUBLE_EQ(c.step_time.noise.shift_ns.low.value_or(0),
                   static_cast<double>(Us(90)));
  EXPECT_DOUBLE_EQ(c.step_time.noise.shift_ns.high.value_or(0),
                   static_cast<double>(Us(110)));
  // The gate: one-sided p = 7.43e-5, +8.3 % against 5 % fails, against
  // 10 % passes; one-sided, the interval is the lower bound D(28) = 90 µs.
  const Comparison at5 = CompareShapes({}, after, 5);
  ASSERT_TRUE(at5.gate);
  EXPECT_EQ(at5.gate->outcome, GateOutcome::kSlower);
  EXPECT_NEAR(at5.step_time.noise.test.p_value, 7.4256852e-5, 1e-10);
  EXPECT_EQ(at5.step_time.noise.shift_ns.order, 28u);
  EXPECT_DOUBLE_EQ(at5.step_time.noise.shift_ns.low.value_or(0),
                   static_cast<double>(Us(90)));
  EXPECT_FALSE(at5.step_time.noise.shift_ns.high);
  EXPECT_NE(at5.headline.find("median, slower beyond noise)"),
            std::string::npos)
      << at5.headline;
  EXPECT_EQ(at5.gate->explanation,
            "AFTER is slower than BEFORE by more than 5% beyond noise: median "
            "step +8.3% (Hodges-Lehmann shift +100 µs, 95% lower bound +90 "
            "µs); one-sided Mann-Whitney U p = 7.43e-05 < 0.05");
  const Comparison at10 = CompareShapes({}, after, 10);
  EXPECT_EQ(at10.gate->outcome, GateOutcome::kPass);
  EXPECT_EQ(at10.gate->explanation.rfind("not more than 10% slower: ", 0), 0u)
      << at10.gate->explanation;
}

TEST(CompareTest, OneKernelSlower) {
  RunShape after;
  after.second_us = 340;  // softmax 50 µs longer, same step period
  const Comparison c = CompareShapes({}, after);
  ASSERT_EQ(c.kernels.gains.size(), 1u);
  EXPECT_EQ(c.kernels.gains[0].name, "softmax");
  EXPECT_NEAR(c.kernels.gains[0].time_per_unit_ns.delta, Us(50), 1e-6);
  EXPECT_TRUE(c.kernels.losses.empty());
  EXPECT_TRUE(c.kernels.added.empty());
  EXPECT_TRUE(c.kernels.vanished.empty());
  EXPECT_NEAR(c.launch.launches_per_unit.delta, 0, 1e-9);
  ExpectNoSyncOrCopyChange(c);
  EXPECT_DOUBLE_EQ(c.step_time.median_ns.delta, 0);
  EXPECT_FALSE(c.step_time.noise.beyond_noise);
}

TEST(CompareTest, OneKernelReplaced) {
  RunShape after;
  after.second_kernel = "fused_softmax";
  const Comparison c = CompareShapes({}, after);
  ASSERT_EQ(c.kernels.added.size(), 1u);
  EXPECT_EQ(c.kernels.added[0].name, "fused_softmax");
  EXPECT_NEAR(c.kernels.added[0].time_per_unit_ns.after, Us(290), 1e-6);
  ASSERT_EQ(c.kernels.vanished.size(), 1u);
  EXPECT_EQ(c.kernels.vanished[0].name, "softmax");
  EXPECT_TRUE(c.kernels.gains.empty());
  EXPECT_TRUE(c.kernels.losses.empty());
  for (const IdleCauseChange& k : c.idle.causes) {
    EXPECT_DOUBLE_EQ(k.per_unit_ns.delta, 0) << k.name;
  }
  ExpectNoSyncOrCopyChange(c);
  const std::string text = WriteTextDiff(c, {.details = false});
  EXPECT_NE(text.find("New kernels (1):\n  - fused_softmax: 290 µs per step"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("Vanished kernels (1):\n  - softmax: 290 µs per step"),
            std::string::npos);
}

TEST(CompareTest, OneSyncPointAdded) {
  RunShape after;
  after.sync_after = true;
  const Comparison c = CompareShapes({}, after);
  ASSERT_EQ(c.syncs.added.size(), 1u);
  const SyncPointChange& s = c.syncs.added[0];
  EXPECT_EQ(s.api, "cudaStreamSynchronize");
  EXPECT_EQ(s.presence, Presence::kNew);
  EXPECT_DOUBLE_EQ(s.count_per_unit.after, 1.0);
  EXPECT_NEAR(s.blocked_per_unit_ns.after, Us(50), kNsTolerance);
  EXPECT_TRUE(c.syncs.vanished.empty());
  EXPECT_EQ(c.syncs.points.size(), 1u);
  ExpectKernelsUnchanged(c);
  EXPECT_NEAR(c.copies.bytes_per_unit.delta, 0, 1e-9);
  // The idle after the second kernel is now partly spent in the sync.
  EXPECT_GT(c.idle.causes[static_cast<int>(IdleCause::kHostWaitSync)]
                .per_unit_ns.delta,
            0);
  EXPECT_NEAR(c.idle.idle_per_unit_ns.delta, 0, kNsTolerance);
}

TEST(CompareTest, LocationsAtAnotherLineOfTheSameFunctionMoved) {
  EXPECT_TRUE(compare::MovedLine("log (train.py:40)", "log (train.py:43)"));
  EXPECT_FALSE(compare::MovedLine("log (train.py:40)", "log (train.py:40)"));
  EXPECT_FALSE(compare::MovedLine("log (train.py:40)", "step (train.py:43)"));
  EXPECT_FALSE(compare::MovedLine("log (train.py:40)", "log (eval.py:43)"));
  EXPECT_FALSE(compare::MovedLine("cudaMalloc", "cudaFree"));
  EXPECT_FALSE(compare::MovedLine("f (app+0x10)", "f (app+0x20)"));
  EXPECT_FALSE(compare::MovedLine("f (a.py:1x)", "f (a.py:2)"));
}

// The sync's line moved from 40 to 43 of log_loss (lines added above it):
// one moved sync point, and the code locations moved with it.
TEST(CompareTest, ASyncWhoseLineMovedIsOneMovedRow) {
  RunShape before;
  before.sync_after = true;
  before.sync_line = 40;
  RunShape after = before;
  after.sync_line = 43;
  const Comparison c = CompareShapes(before, after);
  EXPECT_TRUE(c.syncs.added.empty());
  EXPECT_TRUE(c.syncs.vanished.empty());
  ASSERT_EQ(c.syncs.moved.size(), 1u);
  const SyncPointChange& s = c.syncs.moved[0];
  EXPECT_EQ(s.presence, Presence::kMoved);
  EXPECT_EQ(s.call_site, "log_loss (train.py:43)");
  EXPECT_EQ(s.moved_from, "log_loss (train.py:40)");
  EXPECT_NEAR(s.blocked_per_unit_ns.delta, 0, kNsTolerance);
  ASSERT_TRUE(c.code.available);
  // The launching thread spent 350 µs a step in log_loss: moved, the same.
  ASSERT_EQ(c.code.launching_lines.size(), 1u);
  const CodeLocationChange& line = c.code.launching_lines[0];
  EXPECT_EQ(line.presence, Presence::kMoved);
  EXPECT_EQ(line.location, "log_loss (train.py:43)");
  EXPECT_EQ(line.moved_from, "log_loss (train.py:40)");
  EXPECT_NEAR(line.per_unit_ns.before, Us(350), kNsTolerance);
  EXPECT_NEAR(line.per_unit_ns.delta, 0, kNsTolerance);
  for (const CodeLocationChange& row : c.code.idle) {
    EXPECT_EQ(row.presence, Presence::kMoved) << row.location;
  }
  const std::string text = WriteTextDiff(c, {.details = false});
  EXPECT_NE(text.find("Moved sync points:\n  - cudaStreamSynchronize ("),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("(moved from log_loss (train.py:40))"),
            std::string::npos);
  const std::string json = WriteJsonDiff(c);
  EXPECT_NE(json.find("\"moved_from\": \"log_loss (train.py:40)\""),
            std::string::npos);
  EXPECT_NE(json.find("\"launching_lines\": ["), std::string::npos);
}

// A sync issued from another function is a new sync point, and the old
// one vanished.
TEST(CompareTest, ASyncFromAnotherFunctionIsNewAndTheOldOneVanished) {
  RunShape before;
  before.sync_after = true;
  before.sync_line = 40;
  RunShape after = before;
  after.sync_function = "report";
  const Comparison c = CompareShapes(before, after);
  ASSERT_EQ(c.syncs.added.size(), 1u);
  ASSERT_EQ(c.syncs.vanished.size(), 1u);
  EXPECT_TRUE(c.syncs.moved.empty());
  EXPECT_EQ(c.syncs.added[0].call_site, "report (train.py:40)");
  EXPECT_EQ(c.syncs.vanished[0].call_site, "log_loss (train.py:40)");
  ASSERT_EQ(c.code.launching_lines.size(), 2u);
  for (const CodeLocationChange& row : c.code.launching_lines) {
    EXPECT_NE(row.presence, Presence::kMoved);
    EXPECT_NEAR(std::abs(row.per_unit_ns.delta), Us(350), kNsTolerance);
  }
}

TEST(CompareTest, NoCodeLocationsWithoutStacks) {
  const Comparison c = CompareShapes({}, {});
  EXPECT_FALSE(c.code.available);
  EXPECT_NE(WriteJsonDiff(c).find("\"code\": null"), std::string::npos);
}

TEST(CompareTest, OneCopyAdded) {
  RunShape after;
  after.copy_after = true;
  const Comparison c = CompareShapes({}, after);
  ASSERT_EQ(c.copies.directions.size(), 1u);
  const CopyDirectionChange& d = c.copies.directions[0];
  EXPECT_EQ(d.direction, CopyDirection::kHtoD);
  EXPECT_EQ(d.presence, Presence::kNew);
  EXPECT_DOUBLE_EQ(d.bytes_per_unit.after, 1 << 20);
  EXPECT_NEAR(d.time_per_unit_ns.after, Us(40), kNsTolerance);
  EXPECT_DOUBLE_EQ(d.pageable_share.after, 0);
  ExpectKernelsUnchanged(c);
  EXPECT_TRUE(c.syncs.added.empty());
  EXPECT_TRUE(c.syncs.vanished.empty());
}

// The diff command hands each run's timeline over (AnalyzeForComparison
// with a Timeline&&): the analysis frees the events the what-if replay does
// not read, and the comparison is the one of the timelines kept, with a
// step window too.
TEST(CompareTest, AConsumedTimelineComparesAsAKeptOne) {
  const Timeline before = Build({});
  const Timeline after = Build({.second_us = 390});
  CompareOptions options;
  options.steps = StepSelection{2, 8};
  absl::StatusOr<AnalyzedRun> kept_b = AnalyzeForComparison(before, options);
  absl::StatusOr<AnalyzedRun> kept_a = AnalyzeForComparison(after, options);
  ASSERT_TRUE(kept_b.ok() && kept_a.ok());
  ASSERT_TRUE(kept_b->report.what_if.available)
      << kept_b->report.what_if.unavailable_reason;

  Timeline given_before = before;
  Timeline given_after = after;
  absl::StatusOr<AnalyzedRun> b =
      AnalyzeForComparison(std::move(given_before), options);
  absl::StatusOr<AnalyzedRun> a =
      AnalyzeForComparison(std::move(given_after), options);
  ASSERT_TRUE(b.ok() && a.ok());
  // NOLINTNEXTLINE(bugprone-use-after-move): what the analysis left
  EXPECT_TRUE(given_before.ranges.empty());
  EXPECT_EQ(given_before.gpu_ops.size(), before.gpu_ops.size());
  ASSERT_EQ(b->kernels.size(), kept_b->kernels.size());
  for (size_t i = 0; i < b->kernels.size(); ++i) {
    EXPECT_EQ(b->kernels[i].name, kept_b->kernels[i].name);
    EXPECT_EQ(b->kernels[i].count, kept_b->kernels[i].count);
    EXPECT_EQ(b->kernels[i].total_ns, kept_b->kernels[i].total_ns);
  }
  const Comparison given = Compare(*b, *a, options);
  EXPECT_EQ(WriteJsonDiff(given),
            WriteJsonDiff(Compare(*kept_b, *kept_a, options)));
  EXPECT_TRUE(given.step_time.available);
  // Steps 2..8 of 10: 7 steps, each with one gemm (590 µs) and one
  // softmax (290 µs before, 390 µs after).
  EXPECT_EQ(given.step_time.before.count, 7u);
  ASSERT_EQ(b->kernels.size(), 2u);
  EXPECT_EQ(b->kernels[0].name, "gemm");
  EXPECT_EQ(b->kernels[0].count, 7u);
  EXPECT_EQ(b->kernels[0].total_ns, Us(7 * 590));
  EXPECT_EQ(b->kernels[1].total_ns, Us(7 * 290));
  EXPECT_EQ(a->kernels[1].total_ns, Us(7 * 390));
}

TEST(CompareTest, FewStepsCannotBeJudged) {
  CompareOptions options;
  options.steps = StepSelection{3, 5};  // 3 steps
  absl::StatusOr<AnalyzedRun> b = AnalyzeForComparison(Build({}), options);
  RunShape slow;
  slow.period_us = 2000;
  absl::StatusOr<AnalyzedRun> a = AnalyzeForComparison(Build(slow), options);
  ASSERT_TRUE(b.ok() && a.ok());
  EXPECT_EQ(b->report.steps.steps.size(), 3u);
  const Comparison c = Compare(*b, *a, options);
  EXPECT_FALSE(c.step_time.noise.judged);
  EXPECT_EQ(c.step_time.noise.explanation,
            "significance cannot be judged: 3 and 3 steps, a test needs 4 "
            "per run");
  EXPECT_GT(*c.step_time.median_ns.relative, 0.5);
  // The gate cannot decide (3 against 3 steps reach at best p = 1/20),
  // and says what to do rather than pass.
  options.fail_if_slower_percent = 0;
  const Comparison gated = Compare(*b, *a, options);
  ASSERT_TRUE(gated.gate);
  EXPECT_EQ(gated.gate->outcome, GateOutcome::kCannotDecide);
  EXPECT_EQ(gated.gate->explanation,
            "3 and 3 steps: the one-sided Mann-Whitney U test needs at least "
            "4 steps per run to reach p < 0.05 (k against k steps give at "
            "best p = 1 / C(2k, k)); record more steps");
}

TEST(CompareTest, StepSelectionOutOfRangeIsAnError) {
  CompareOptions options;
  options.steps = StepSelection{6, 20};
  absl::StatusOr<AnalyzedRun> r = AnalyzeForComparison(Build({}), options);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("has 10 steps"), std::string::npos);
}

TEST(CompareTest, DifferentGpuModelsAreNotComparable) {
  Timeline other = Build({});
  other.devices[0].name = "Other GPU";
  const CompareOptions options;
  absl::StatusOr<AnalyzedRun> b = AnalyzeForComparison(Build({}), options);
  absl::StatusOr<AnalyzedRun> a = AnalyzeForComparison(other, options);
  ASSERT_TRUE(b.ok() && a.ok());
  const Comparison c = Compare(*b, *a, options);
  EXPECT_FALSE(c.comparable);
  ASSERT_EQ(c.platform.size(), 1u);
  EXPECT_EQ(c.platform[0].what, "GPU model");
  ASSERT_EQ(c.warnings.size(), 1u);
  EXPECT_EQ(c.warnings[0],
            "the runs are not comparable: GPU model differs (Test GPU -> "
            "Other GPU)");
}

TEST(CompareTest, DevicesAreMatchedByRankNotByProcessOrder) {
  // Two ranks, one GPU each; AFTER's process ids list rank 1 first, so
  // matching by position would pair rank 0 with rank 1.
  auto run = [](int32_t pid_rank0, int32_t pid_rank1, int rank1_kernels) {
    TimelineBuilder b;
    b.timeline().processes.clear();
    b.timeline().devices.clear();
    for (const auto& [pid, rank] :
         {std::pair{pid_rank0, 0}, std::pair{pid_rank1, 1}}) {
      Process p;
      p.pid = pid;
      p.rank = rank;
      p.world_size = 2;
      b.timeline().processes.push_back(p);
      Device d;
      d.id = 0;
      d.pid = pid;
      d.name = "Test GPU";
      b.timeline().devices.push_back(d);
      const int kernels = rank == 1 ? rank1_kernels : 2;
      for (int k = 0; k < kernels; ++k) {
        const uint64_t corr =
            b.Api("cudaLaunchKernel", k * 100.0, k * 100.0 + 5, pid + 1, pid);
        b.Op(GpuOpKind::kKernel, k * 100.0 + 10, k * 100.0 + 60, corr, 7, 0,
             pid);
      }
    }
    return b.Take();
  };
  const CompareOptions options;
  absl::StatusOr<AnalyzedRun> b =
      AnalyzeForComparison(run(100, 200, 5), options);
  absl::StatusOr<AnalyzedRun> a =
      AnalyzeForComparison(run(400, 300, 5), options);
  ASSERT_TRUE(b.ok() && a.ok());
  const Comparison c = Compare(*b, *a, options);
  ASSERT_EQ(c.devices.size(), 2u);
  for (const DeviceChange& d : c.devices) {
    EXPECT_GE(d.rank, 0);
    EXPECT_EQ(d.presence, Presence::kBoth);
    // Each rank against itself: the same kernel count on both sides.
    EXPECT_GT(d.kernels_per_unit.before, 0.0);
    EXPECT_NEAR(d.kernels_per_unit.delta, 0.0, 1e-9 * d.kernels_per_unit.before)
        << "rank " << d.rank;
  }
  EXPECT_EQ(c.devices[0].rank, 0);
  EXPECT_EQ(c.devices[1].rank, 1);
}

}  // namespace
}  // namespace feedprof
