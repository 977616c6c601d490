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
// Mann-Whitney U test over at least five steps per side says so.
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
  // Mann-Whitney needs this many steps on each side to judge a change.
  uint64_t min_steps_for_noise = 5;
  uint32_t bootstrap_resamples = 2000;
  uint64_t bootstrap_seed = 20240601;
  double significance = 0.05;  // two-sided p below this: beyond noise
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

// Mann-Whitney U on two samples (two-sided).
struct MannWhitneyResult {
  double u_before = 0;  // U of the first sample: pairs where it is larger
  double u_after = 0;
  double z = 0;        // normal approximation (0 when exact)
  double p_value = 1;  // two-sided
  bool exact = false;  // exact distribution (small samples without ties)
};
enum class MannWhitneyMethod : uint8_t { kAuto, kExact, kNormal };
// kAuto: exact when both samples have at most 20 values and there are no
// ties, else the normal approximation with tie and continuity correction.
MannWhitneyResult MannWhitneyU(
    const std::vector<double>& before, const std::vector<double>& after,
    MannWhitneyMethod method = MannWhitneyMethod::kAuto);

// Percentile bootstrap of median(after) - median(before): both samples
// resampled with replacement `resamples` times from a fixed seed, the 2.5th
// and 97.5th percentiles of the differences.
struct BootstrapInterval {
  double low = 0;
  double high = 0;
  uint32_t resamples = 0;
  uint64_t seed = 0;
};
BootstrapInterval BootstrapMedianDifference(const std::vector<double>& before,
                                            const std::vector<double>& after,
                                            uint32_t resamples, uint64_t seed);

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
  MannWhitneyResult test;
  BootstrapInterval median_difference_ns;  // set when judged
  bool beyond_noise = false;               // judged and p < significance
  double significance = 0.05;
  std::string explanation;  // one sentence for the summary
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
// directions whose pageable share fell, faster_gpu the kernel time.
struct CauseFall {
  std::string scenario;  // the WhatIfScenario::id it maps to
  // remove_sync: the sync point group, as in SyncPointChange.
  std::string sync_api, sync_reason, sync_call_site;
  std::string cause;            // what fell, in words
  double fall_per_unit_ns = 0;  // before - after; negative: it grew
};

struct ScenarioCheck {
  std::string scenario;  // WhatIfScenario::id
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
  bool available = false;          // BEFORE's what-if is available
  std::string unavailable_reason;  // BEFORE's, when it is not
  std::string basis;               // BEFORE's: "steps" or "span"
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
  static constexpr const char* kSchema = "feedprof.diff/1";
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
  std::vector<std::string> warnings;
  // Each run's full report, for writers that draw the runs themselves (the
  // HTML diff's device timelines); the JSON writer leaves them out.
  Report before_report, after_report;
};

// Compares two analysed runs (AnalyzeForComparison).
Comparison Compare(const AnalyzedRun& before, const AnalyzedRun& after,
                   const CompareOptions& options);

// Whether AFTER is slower than BEFORE by more than `percent` of BEFORE's
// median step time with the change beyond noise: the CI gate of
// `diff --fail-if-slower`. False when significance cannot be judged.
bool SlowerBeyondNoise(const Comparison& comparison, double percent);

}  // namespace feedprof

#endif  // FEEDPROF_COMPARE_H_
