// Comparing two runs: did a change to the program make it faster, and did it
// remove the cause the first run's verdict named?
//
// A user who fixes a sync point or pins a copy wants to see that the step
// got faster and that the idle time it caused went away, not two reports
// side by side. `feedprof diff` analyses both runs the same way, matches
// them by rank, device and step, and keeps every figure as a before/after
// pair normalized per step (when both runs have steps) or per second of the
// analysed window, so runs of different lengths compare. Step times are
// tested for noise (docs/diff.md): a change is called real only when a
// Mann-Whitney U test over at least four steps per side says so, and its
// size is the Hodges-Lehmann shift with a distribution-free interval.
//
// The comparison model is plain data computed here; the text and JSON
// writers (feedprof/report.h) only render it.
#ifndef FEEDPROF_COMPARE_H_
#define FEEDPROF_COMPARE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "feedprof/analysis_report.h"
#include "feedprof/timeline.h"

namespace feedprof {

// Steps first..last of a run, counted from 1 as the report lists them,
// inclusive (as `export --steps`; see WindowOfSteps).
struct StepSelection {
  uint64_t first = 1;
  uint64_t last = 1;
};

struct CompareOptions {
  AnalysisOptions analysis;  // rank, step range name, window: both runs
  std::optional<StepSelection> steps;
  // Mann-Whitney needs this many steps on each side to judge a change: k
  // against k steps give at best a one-sided p of 1 / C(2k, k), 1/70 for 4
  // (below 0.05) and 1/20 for 3 (not below).
  uint64_t min_steps_for_noise = 4;
  // p below this: beyond noise; the shift's interval is at 1 - significance.
  double significance = 0.05;
  // The CI gate of `diff --fail-if-slower PCT` (docs/diff.md, "The gate"):
  // when set, the noise test asks the gate's one-sided question (is AFTER
  // slower?) instead of the two-sided one, and Compare decides the gate.
  std::optional<double> fail_if_slower_percent;
};

// One run, analysed for comparison: its report, every kernel name's total
// (the report keeps only the top five) and the platform it ran on.
struct AnalyzedRun {
  Report report;
  std::vector<KernelTotal> kernels;  // every kernel name, by total time
  Platform platform;
  std::vector<Device> machine_devices;  // Timeline::devices
};

// Analyses `timeline` as `diff` does: with --steps, a second analysis over
// the window from the first selected step's start to the last one's end.
// Errors: those of Analyze, and a step selection the run does not have.
absl::StatusOr<AnalyzedRun> AnalyzeForComparison(const Timeline& timeline,
                                                 const CompareOptions& options);
// The same for a timeline the caller has no further use for: the events
// the analysis no longer needs are freed as it goes (Analyze(Timeline&&)).
absl::StatusOr<AnalyzedRun> AnalyzeForComparison(Timeline&& timeline,
                                                 const CompareOptions& options);

// A figure before and after; delta = after - before, relative = delta /
// before (unset when before is 0).
struct Change {
  double before = 0;
  double after = 0;
  double delta = 0;
  std::optional<double> relative;
};
Change MakeChange(double before, double after);

// Whether a keyed row (kernel, copy direction, sync point) is in both runs.
// kMoved: a code location (a sync point's call site, a hot line) that is
// in both runs at another line of the same function and file: the code
// around it changed, not the call.
enum class Presence : uint8_t { kBoth, kNew, kVanished, kMoved };
// "both" | "new" | "vanished" | "moved"
const char* PresenceName(Presence presence);

// The question a Mann-Whitney U test answers. The diff's description of a
// change is two-sided (did the step time change, either way?); the CI gate
// asks in advance about one direction (kAfterLarger: are AFTER's steps
// longer?), which a one-sided test answers with half the p-value of the
// two-sided one when the change goes that way.
enum class Alternative : uint8_t { kTwoSided, kAfterLarger, kAfterSmaller };
// "two_sided" | "after_larger" | "after_smaller"
const char* AlternativeName(Alternative alternative);

// Mann-Whitney U on two samples.
struct MannWhitneyResult {
  Alternative alternative = Alternative::kTwoSided;
  double u_before = 0;  // U of the first sample: pairs where it is larger
  double u_after = 0;
  double z = 0;        // normal approximation (0 when exact)
  double p_value = 1;  // for `alternative`
  // The smallest p any data of these sizes (and ties) could give: a test
  // whose smallest p is not below the significance cannot find a change.
  double smallest_p_value = 1;
  bool exact = false;  // exact distribution (small samples without ties)
};
enum class MannWhitneyMethod : uint8_t { kAuto, kExact, kNormal };
// kAuto: exact when both samples have at most 20 values and there are no
// ties, else the normal approximation with tie and continuity correction.
MannWhitneyResult MannWhitneyU(
    const std::vector<double>& before, const std::vector<double>& after,
    Alternative alternative,
    MannWhitneyMethod method = MannWhitneyMethod::kAuto);

// The size of a change: the Hodges-Lehmann shift, the median of the
// N = n1 * n2 differences after_j - before_i, with its distribution-free
// (Moses) interval from their order statistics D(1) <= ... <= D(N), the
// dual of the Mann-Whitney test with the same alternative: without ties
// the interval leaves out 0 exactly when the exact test's p is at most
// 1 - confidence.
// Two-sided: [D(k), D(N + 1 - k)], k the largest order with
// P(U <= k - 1) <= (1 - confidence) / 2. One-sided, AFTER larger: the
// lower bound D(k) alone, k the largest with P(U <= k - 1) <=
// 1 - confidence (AFTER smaller: the upper bound D(N + 1 - k)). P is the
// exact U distribution when both samples have at most 20 values (kAuto),
// else the normal approximation, k = floor(n1 n2 / 2 - z sqrt(n1 n2
// (n1 + n2 + 1) / 12) + 0.5) with z the normal quantile of 1 - the tail;
// k is at least 1.
struct ShiftEstimate {
  Alternative alternative = Alternative::kTwoSided;
  double estimate = 0;  // the Hodges-Lehmann shift
  // Unset: unbounded on that side (a one-sided interval).
  std::optional<double> low;   // D(k)
  std::optional<double> high;  // D(N + 1 - k)
  double confidence = 0;       // the level asked for
  // The interval's coverage: exact, 1 - P(outside) from the U distribution
  // (at least the level asked for, unless even k = 1 falls short of it);
  // normal approximation, the level asked for.
  double coverage = 0;
  uint64_t order = 0;  // k
  bool exact = false;  // k from the exact U distribution
};
ShiftEstimate HodgesLehmannShift(
    const std::vector<double>& before, const std::vector<double>& after,
    double confidence, Alternative alternative,
    MannWhitneyMethod method = MannWhitneyMethod::kAuto);

struct StepTimeStats {
  uint64_t count = 0;
  TimeNs median_ns = 0;
  TimeNs p10_ns = 0;
  TimeNs p90_ns = 0;
  double mean_ns = 0;
};

struct NoiseVerdict {
  bool judged = false;  // both runs have min_steps_for_noise steps
  std::string method;   // "mann_whitney_u"
  // kTwoSided without a gate; kAfterLarger with --fail-if-slower.
  Alternative alternative = Alternative::kTwoSided;
  MannWhitneyResult test;
  // Step time after - before (ns), its interval at 1 - significance with
  // the test's alternative; set when judged.
  ShiftEstimate shift_ns;
  bool beyond_noise = false;  // judged and p < significance
  double significance = 0.05;
  std::string explanation;  // one sentence for the summary
  // When judged: "median step +39.0% (Hodges-Lehmann shift +1.95 ms, 95%
  // lower bound +1.9 ms); one-sided Mann-Whitney U p = 0.0325".
  std::string effect;
};

struct StepTimeComparison {
  bool available = false;  // both runs have steps
  std::string before_source, after_source;
  StepTimeStats before, after;
  Change median_ns, p10_ns, p90_ns, mean_ns;
  NoiseVerdict noise;
  Change gpu_busy_share;  // Σ busy / Σ span over the devices
  Change span_ns;         // the analysed window's length
};

struct IdleCauseChange {
  IdleCause cause = IdleCause::kUnattributed;
  std::string name;  // IdleCauseName
  Change per_unit_ns;
};

struct IdleComparison {
  Change idle_per_unit_ns;
  Change host_wait_per_unit_ns;
  Change idle_share;
  std::vector<IdleCauseChange> causes;  // IdleCause order
  std::vector<int> largest;  // indices into causes by |delta|, largest first
};

struct VerdictComparison {
  VerdictClass before_primary = VerdictClass::kInconclusive;
  VerdictClass after_primary = VerdictClass::kInconclusive;
  std::optional<VerdictClass> before_runner_up, after_runner_up;
  Change confidence;
  std::string before_label, after_label;
  bool changed = false;
  // The score (share of span) of the rule the BEFORE verdict named, in both
  // runs; shrank when it went down. Unset for an inconclusive BEFORE.
  std::optional<Change> named_cause_score;
  std::optional<bool> named_cause_shrank;
};

struct LaunchComparison {
  Change launches_per_unit;
  Change kernels_per_unit;
  Change median_launch_api_ns;
  Change median_kernel_ns;
  Change launch_overhead_share;  // Σ launch-overhead idle / Σ span
};

struct KernelChange {
  std::string name;
  Presence presence = Presence::kBoth;
  Change count_per_unit;
  Change time_per_unit_ns;
};

struct KernelComparison {
  std::vector<KernelChange> kernels;  // every name, by |time delta|
  std::vector<KernelChange> gains;    // present in both, most time added
  std::vector<KernelChange> losses;   // present in both, most time removed
  std::vector<KernelChange> added;    // new in AFTER, by time
  std::vector<KernelChange> vanished;
  uint64_t names_before = 0, names_after = 0;
};

struct CopyDirectionChange {
  CopyDirection direction = CopyDirection::kOther;
  Presence presence = Presence::kBoth;
  Change count_per_unit;
  Change bytes_per_unit;
  Change time_per_unit_ns;
  Change achieved_gbps;
  Change pageable_share;
};

struct CopyComparison {
  Change count_per_unit;
  Change bytes_per_unit;
  Change time_per_unit_ns;
  std::vector<CopyDirectionChange> directions;
};

struct SyncPointChange {
  std::string api, reason, call_site;
  std::string moved_from;  // kMoved: the call site in BEFORE
  std::string kind;        // SyncKindName
  Presence presence = Presence::kBoth;
  Change count_per_unit;
  Change blocked_per_unit_ns;
  Change idle_after_per_unit_ns;
};

struct SyncComparison {
  Change blocked_per_unit_ns;           // every host-blocking sync point
  std::vector<SyncPointChange> points;  // by |blocked delta|
  std::vector<SyncPointChange> added;
  std::vector<SyncPointChange> vanished;
  std::vector<SyncPointChange> moved;
};

// A code location's time in both runs (docs/diff.md, "Code locations").
struct CodeLocationChange {
  std::string location;    // "function (file:line)", AFTER's when moved
  std::string moved_from;  // kMoved: the location in BEFORE
  Presence presence = Presence::kBoth;
  Change per_unit_ns;
};
struct CodeComparison {
  // Either run says where its code was (Report::idle_by_code,
  // Report::host_code).
  bool available = false;
  // GPU idle time by the launching thread's location, by |delta|.
  std::vector<CodeLocationChange> idle;
  // The launching threads' time by the innermost line of the user's code,
  // by |delta|.
  std::vector<CodeLocationChange> launching_lines;
};

struct HostComparison {
  bool samples_before = false, samples_after = false;
  // CPU (user + sys) per unit; meaningful where samples_* says so.
  Change launching_threads_cpu_per_unit_ns;  // threads with CUDA calls
  Change other_threads_cpu_per_unit_ns;
  Change workers_cpu_per_unit_ns;
  Change cuda_api_per_unit_ns;
  Change sync_blocked_per_unit_ns;
};

struct DeviceChange {
  // Matched by (rank, device index) when both runs know every device's
  // rank; else by position in the reports, and `rank` is -1.
  int32_t rank = -1;
  int32_t device = 0;  // the device index, or the position
  std::string before_name, after_name;
  Presence presence = Presence::kBoth;
  Change busy_share;
  Change idle_per_unit_ns;
  Change kernels_per_unit;
};

struct RankChange {
  int32_t rank = -1;
  Presence presence = Presence::kBoth;
  Change median_step_ns;
  Change idle_share;
  Change sync_blocked_ns;
  Change collective_wait_ns;  // waited inside collectives for later ranks
  // One of the ranks the others wait for (RankReport::straggler), in each
  // run.
  bool straggler_before = false;
  bool straggler_after = false;
};

// The rank(s) the others wait for (Report::straggler), run against run:
// kBoth the same ranks, kMoved other ranks, kVanished none any more, kNew
// none before.
struct StragglerChange {
  bool available = false;  // either run names one
  Presence presence = Presence::kBoth;
  std::vector<int32_t> before_ranks;
  std::vector<int32_t> after_ranks;
  // The job's waiting at collectives (CollectivesReport::wait_ns).
  Change wait_ns;
};

struct PlatformDifference {
  std::string what;  // "GPU model", "PCIe link", "logical CPUs", ...
  std::string before, after;
  bool hardware = false;  // hardware differs: runs are not comparable
};

// BEFORE's what-if predictions against what AFTER measured (docs/diff.md,
// "Predicted and measured"): each BEFORE scenario's predicted change of the
// step time next to the measured change of the same figure, and the
// scenario that stands for the cause that fell most between the runs.
//
// A cause a scenario edits, sized by how much its time fell per unit:
// input_ready the host wait in gaps over 100 µs (on CPU, in I/O, waiting,
// without samples), cheaper_launches the launch-overhead idle or the time
// in launch calls (median call × calls), remove_sync one sync point
// group's blocked time, pin_copies the pageable copy time of the
// directions whose pageable share fell, faster_gpu the kernel time,
// remove_all_syncs the blocked time of every host-blocking group.
struct CauseFall {
  WhatIfScenarioId scenario = WhatIfScenarioId::kInputReady;  // it maps to
  // remove_sync: the sync point group, as in SyncPointChange.
  std::string sync_api, sync_reason, sync_call_site;
  std::string cause;            // what fell, in words
  double fall_per_unit_ns = 0;  // before - after; negative: it grew
};

struct ScenarioCheck {
  WhatIfScenarioId scenario = WhatIfScenarioId::kInputReady;
  std::string title;
  std::string sync_api, sync_reason, sync_call_site;
  uint64_t edits = 0;
  TimeNs predicted_median_ns = 0;
  // BEFORE's prediction as a relative change: -saving_share.
  double predicted_change = 0;
  // The scenario of the cause that fell most (at most one is).
  bool matches_largest_fall = false;
};

struct WhatIfCheck {
  bool available = false;                   // BEFORE's what-if is available
  std::string unavailable_reason;           // BEFORE's, when it is not
  WhatIfBasis basis = WhatIfBasis::kSteps;  // BEFORE's
  // The measured change of the predicted figure: the median step time,
  // when both runs have steps and BEFORE's what-if is per step. Spans of
  // runs of different lengths do not compare: then only the prediction is
  // shown and `not_comparable_reason` says why.
  bool measured_comparable = false;
  double measured_change = 0;  // AFTER / BEFORE median step - 1
  std::string not_comparable_reason;
  std::vector<ScenarioCheck> scenarios;  // BEFORE's order
  std::vector<CauseFall> falls;          // largest fall first
  // A fall counts when it is at least this much per unit (1 % of BEFORE's
  // median step, or of a second).
  double min_fall_per_unit_ns = 0;
  bool has_largest_fall = false;  // falls.front() counts
};

// The CI gate of `diff --fail-if-slower PCT` (docs/diff.md, "The gate").
// It fails when AFTER's median step time is more than PCT percent above
// BEFORE's and the one-sided Mann-Whitney U test says AFTER is slower; it
// cannot decide when the runs do not both have enough steps for the test
// to reach the significance.
enum class GateOutcome : uint8_t { kPass, kSlower, kCannotDecide };
// "pass" | "slower" | "cannot_decide"
const char* GateOutcomeName(GateOutcome outcome);

struct SlowerGate {
  double threshold_percent = 0;
  GateOutcome outcome = GateOutcome::kCannotDecide;
  // One sentence: the change, the test and why the gate decided so (or
  // what to record so it can).
  std::string explanation;
};

struct RunSide {
  std::string source_path;
  SourceFormat source_format = SourceFormat::kUnknown;
  uint64_t events = 0;
  uint64_t steps = 0;
  TimeNs window_ns = 0;
  double divisor = 0;  // steps, or seconds of the window
  std::optional<int32_t> rank_filter;
};

struct Comparison {
  static constexpr const char* kSchema = "feedprof.diff/2";
  RunSide before, after;
  std::string unit;  // "step" or "second": what *_per_unit is per
  std::string headline;
  bool comparable = true;  // false: the hardware differs
  StepTimeComparison step_time;
  IdleComparison idle;
  VerdictComparison verdict;
  LaunchComparison launch;
  KernelComparison kernels;
  CopyComparison copies;
  SyncComparison syncs;
  CodeComparison code;
  HostComparison host;
  std::vector<DeviceChange> devices;  // when either run has several
  std::vector<RankChange> ranks;      // when both runs have several
  StragglerChange straggler;
  std::vector<PlatformDifference> platform;
  WhatIfCheck what_if;
  std::optional<SlowerGate> gate;  // CompareOptions::fail_if_slower_percent
  std::vector<std::string> warnings;
  // Each run's full report, for writers that draw the runs themselves (the
  // HTML diff's device timelines); the JSON writer leaves them out.
  Report before_report, after_report;
};

// Compares two analysed runs (AnalyzeForComparison); with
// options.fail_if_slower_percent, also decides the gate.
Comparison Compare(const AnalyzedRun& before, const AnalyzedRun& after,
                   const CompareOptions& options);

}  // namespace feedprof

#endif  // FEEDPROF_COMPARE_H_
