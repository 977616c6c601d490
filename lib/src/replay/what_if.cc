// Runs the what-if scenarios and fills Report::what_if (see what_if.h).
#include "replay/what_if.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "analysis/device_busy.h"
#include "analysis/quantile.h"
#include "common/parallel_for.h"
#include "common/units.h"
#include "platform/available_memory.h"
#include "platform/usable_cores.h"
#include "replay/replay_engine.h"
#include "replay/replay_memory.h"
#include "replay/replay_model.h"
#include "replay/scenarios.h"

namespace feedprof::replay {
namespace {

using common::FormatDuration;
using common::FormatPercent;

// GPU time without a launching call above this share: the replay cannot
// move it, so it does not predict.
constexpr double kMaxUnlaunchedShare = 0.10;
// Constraints met out of recorded order above this share of events.
constexpr double kMaxOutOfOrderShare = 0.01;
// Pinned copies of one direction needed to measure their bandwidth.
constexpr uint64_t kMinPinnedBytes = 1 << 20;
// pin_copies without pinned copies or a known link: a PCIe 4.0 x16 link's
// typical pinned rate (its nominal rate is 31.5 GB/s per direction).
constexpr double kDefaultPinnedGbps = 25.0;
// An async call's cost when the trace has no other figure.
constexpr TimeNs kDefaultAsyncCallNs = 5'000;
// Below this many calls and GPU operations in the models, the scenarios
// replay on the calling thread: starting threads would cost more.
constexpr uint64_t kParallelReplayMinEvents = 100'000;
// The scenarios replayed besides one per sync group: input_ready,
// cheaper_launches, pin_copies, faster_gpu (as ComputeWhatIf lists them).
constexpr size_t kScenariosBesideSyncGroups = 4;
// A replay estimated below this peak runs without reading the machine's
// memory figures (small traces, the fuzzers: every Analyze would read
// procfs and the cgroup tree for nothing).
constexpr uint64_t kAskTheMachineFromBytes = uint64_t{64} << 20;

// A process's step times (or its span, one sample), in step order, with
// their median and mean.
struct Figures {
  std::vector<TimeNs> samples;
  TimeNs median = 0;
  TimeNs mean = 0;
};

Figures FiguresOf(std::vector<TimeNs> samples) {
  Figures f;
  if (!samples.empty()) {
    long double sum = 0;  // exact for any realistic count of steps
    for (TimeNs v : samples) sum += static_cast<long double>(v);
    f.mean = static_cast<TimeNs>(
        std::llround(sum / static_cast<long double>(samples.size())));
    f.median = analysis::Quantile(samples, 0.5);
  }
  f.samples = std::move(samples);
  return f;
}

// A scenario's median as the recorded one less the median of the steps'
// own savings, each step against its replay. Steps of two kinds (a long
// one every other step) put the median of the step times between two
// clusters, where a small change to either flips it from one to the
// other; each step's saving does not depend on which cluster the median
// falls in.
TimeNs PredictedMedian(const Figures& recorded, const Figures& replayed) {
  if (recorded.samples.size() != replayed.samples.size() ||
      recorded.samples.empty()) {
    return replayed.median;
  }
  std::vector<TimeNs> savings(recorded.samples.size());
  for (size_t k = 0; k < savings.size(); ++k) {
    savings[k] = recorded.samples[k] - replayed.samples[k];
  }
  return recorded.median - analysis::Quantile(savings, 0.5);
}

// One process as the what-if replays it.
struct ProcessRun {
  int32_t pid = 0;
  int32_t rank = -1;
  ReplayModel model;
  std::vector<std::pair<TimeNs, TimeNs>> steps;  // recorded [start, end]
  // Per step, the thread whose calls map its times: the thread the step's
  // range was recorded on when it makes CUDA calls, else the main one.
  std::vector<uint32_t> step_threads;
  // The ops of each step (those whose launching call started in its host
  // range), in ops() order: step k's are step_ops[step_first[k] ..
  // step_first[k + 1]). Empty without steps.
  std::vector<uint32_t> step_first;
  std::vector<uint32_t> step_ops;
  Figures observed;
  // What it waited inside collectives for later ranks, per step (or over
  // the span): 0 unless the ranks are coupled.
  TimeNs collective_wait = 0;
};

// Each process's wait inside collectives per step (or over the span), from
// its rank's row; whether the ranks are coupled: they waited at
// collectives whose ends line up, and each replayed process is a rank of
// its own.
bool SetCollectiveWaits(const Report& report, bool by_steps,
                        std::vector<ProcessRun>* runs) {
  const CollectivesReport& c = report.collectives;
  if (runs->size() < 2 || !c.available || !c.clocks_aligned || c.wait_ns <= 0) {
    return false;
  }
  std::vector<TimeNs> waits;
  for (const ProcessRun& r : *runs) {
    const RankReport* row = nullptr;
    for (const RankReport& k : report.ranks) {
      if (std::find(k.pids.begin(), k.pids.end(), r.pid) != k.pids.end()) {
        row = &k;
      }
    }
    if (row == nullptr || row->pids.size() != 1) return false;
    const size_t units = by_steps ? r.steps.size() : 1;
    waits.push_back(
        units > 0 ? row->collective_wait_ns / static_cast<TimeNs>(units) : 0);
  }
  for (size_t i = 0; i < runs->size(); ++i) {
    (*runs)[i].collective_wait = waits[i];
  }
  return true;
}

// The job's figures for a scenario whose per-rank predictions are in
// `s.ranks`: each rank's time without its waits is what it needs; the job
// takes the slowest of those, recorded and predicted, and its change is
// the scenario's change of the job.
void CoupleRanks(const std::vector<ProcessRun>& runs, WhatIfScenario* s) {
  TimeNs base_median = 0, base_mean = 0, median = 0, mean = 0;
  TimeNs observed_median = 0, observed_mean = 0;
  for (size_t i = 0; i < runs.size() && i < s->ranks.size(); ++i) {
    WhatIfRank& k = s->ranks[i];
    const TimeNs wait = runs[i].collective_wait;
    k.collective_wait_ns = wait;
    base_median = std::max(base_median, k.observed_median_ns - wait);
    base_mean = std::max(base_mean, k.observed_mean_ns - wait);
    median = std::max(median, k.predicted_median_ns - wait);
    mean = std::max(mean, k.predicted_mean_ns - wait);
    observed_median = std::max(observed_median, k.observed_median_ns);
    observed_mean = std::max(observed_mean, k.observed_mean_ns);
  }
  s->predicted_median_ns =
      observed_median - std::max<TimeNs>(0, base_median - median);
  s->predicted_mean_ns = observed_mean - std::max<TimeNs>(0, base_mean - mean);
}

// Groups the ops by the step in which their launching call started.
void AssignOpsToSteps(ProcessRun* run) {
  const auto& ops = run->model.ops();
  const auto& calls = run->model.calls();
  run->step_first.clear();
  run->step_ops.clear();
  if (run->steps.empty()) return;
  const auto& steps = run->steps;
  std::vector<int32_t> step_of_op(ops.size(), -1);
  const size_t n = steps.size();
  // Launches come nearly in time order: the step found last is tried
  // before a search.
  const bool sorted = std::is_sorted(
      steps.begin(), steps.end(),
      [](const std::pair<TimeNs, TimeNs>& a,
         const std::pair<TimeNs, TimeNs>& b) { return a.first < b.first; });
  size_t hint = 0;  // upper bound found last (0: none)
  for (size_t i = 0; i < ops.size(); ++i) {
    if (ops[i].call < 0 || ops[i].excluded) continue;
    const TimeNs t = calls[static_cast<size_t>(ops[i].call)].start;
    // The first step starting after t.
    size_t upper = 0;
    if (sorted && hint > 0 && steps[hint - 1].first <= t &&
        (hint == n || t < steps[hint].first)) {
      upper = hint;
    } else {
      upper = static_cast<size_t>(
          std::upper_bound(steps.begin(), steps.end(), t,
                           [](TimeNs v, const std::pair<TimeNs, TimeNs>& s) {
                             return v < s.first;
                           }) -
          steps.begin());
      hint = upper;
    }
    if (upper == 0) continue;
    if (t < steps[upper - 1].second) {
      step_of_op[i] = static_cast<int32_t>(upper - 1);
    }
  }
  run->step_first.assign(n + 1, 0);
  for (int32_t s : step_of_op) {
    if (s >= 0) ++run->step_first[static_cast<size_t>(s) + 1];
  }
  for (size_t k = 0; k < n; ++k) run->step_first[k + 1] += run->step_first[k];
  run->step_ops.resize(run->step_first[n]);
  std::vector<uint32_t> fill(run->step_first.begin(),
                             run->step_first.end() - 1);
  for (size_t i = 0; i < ops.size(); ++i) {
    const int32_t s = step_of_op[i];
    if (s >= 0) {
      run->step_ops[fill[static_cast<size_t>(s)]++] = static_cast<uint32_t>(i);
    }
  }
}

// The step times (or span) of `run`, recorded (`times` null) or replayed.
// A step lasts the longer of its host range and the GPU time (busy union)
// of the work it launched: in a steady loop a host that runs ahead waits
// for the GPU.
Figures Measure(const ProcessRun& run, const ReplayEdits& edits,
                const ReplayTimes* times) {
  const auto& ops = run.model.ops();
  auto op_start = [&](size_t i) {
    return times != nullptr ? times->op_start[i] : ops[i].start;
  };
  auto op_end = [&](size_t i) {
    return times != nullptr ? ReplayedOpEnd(run.model, edits, *times, i)
                            : ops[i].end;
  };
  constexpr TimeNs kMax = std::numeric_limits<TimeNs>::max();
  constexpr TimeNs kMin = std::numeric_limits<TimeNs>::min();
  std::vector<TimeNs> samples;
  if (!run.steps.empty()) {
    // The GPU time of each step's work: the union of its ops' intervals.
    // The union (a sort of the step's ops by start) is needed only where
    // their summed time exceeds the host range, since the union is never
    // longer than the sum.
    const size_t n = run.steps.size();
    const std::vector<uint32_t>& first = run.step_first;
    const std::vector<uint32_t>& members = run.step_ops;
    std::vector<std::pair<TimeNs, TimeNs>> intervals;
    samples.reserve(n);
    for (size_t k = 0; k < n; ++k) {
      const auto [start, end] = run.steps[k];
      TimeNs host = end - start;
      if (times != nullptr) {
        const uint32_t thread = run.step_threads[k];
        host = MapHostTime(run.model, edits, *times, thread, end) -
               MapHostTime(run.model, edits, *times, thread, start);
      }
      TimeNs summed = 0;
      for (uint32_t m = first[k]; m < first[k + 1]; ++m) {
        summed += op_end(members[m]) - op_start(members[m]);
      }
      TimeNs device = 0;
      if (summed > host) {
        intervals.clear();
        for (uint32_t m = first[k]; m < first[k + 1]; ++m) {
          intervals.emplace_back(op_start(members[m]), op_end(members[m]));
        }
        if (!std::is_sorted(intervals.begin(), intervals.end())) {
          std::sort(intervals.begin(), intervals.end());
        }
        analysis::StartOrderedUnion busy;
        for (const auto& [s0, s1] : intervals) busy.Add(s0, s1);
        device = busy.Total();
      }
      samples.push_back(std::max(host, device));
    }
  } else {
    // The span of the ops the analysis counts.
    TimeNs first = kMax, last = kMin;
    for (size_t i = 0; i < ops.size(); ++i) {
      if (ops[i].excluded) continue;
      first = std::min(first, op_start(i));
      last = std::max(last, op_end(i));
    }
    if (last >= first) samples.push_back(last - first);
  }
  return FiguresOf(std::move(samples));
}

double RelativeError(TimeNs replayed, TimeNs recorded) {
  if (recorded <= 0) return replayed == recorded ? 0.0 : 1.0;
  return std::abs(static_cast<double>(replayed - recorded)) /
         static_cast<double>(recorded);
}

// Bandwidth of the trace's pinned copies of one direction, 0 when there
// are too few bytes to tell.
double PinnedGbps(const analysis::PreparedTimeline& prepared, CopyKind kind) {
  const Timeline& tl = prepared.timeline();
  uint64_t bytes = 0;
  TimeNs time = 0;
  for (const analysis::DeviceView& d : prepared.devices()) {
    for (const analysis::OpRef& ref : d.ops) {
      analysis::PrefetchOpAhead(tl.gpu_ops, d.ops, ref);
      const GpuOp& g = tl.gpu_ops[ref.op];
      if (g.kind != GpuOpKind::kMemcpy || g.copy_kind != kind) continue;
      const MemoryKind host = kind == CopyKind::kHtoD ? g.src_kind : g.dst_kind;
      if (host != MemoryKind::kPinned) continue;
      bytes += g.bytes;
      time += g.end - g.start;
    }
  }
  return bytes >= kMinPinnedBytes && time > 0
             ? static_cast<double>(bytes) / static_cast<double>(time)
             : 0.0;
}

// Median cost of the model's non-blocking async copy calls, else the
// median launch call, else the default.
TimeNs AsyncCallCost(const std::vector<ProcessRun>& runs,
                     const Report& report) {
  std::vector<TimeNs> costs;
  for (const ProcessRun& run : runs) {
    for (const ReplayCall& c : run.model.calls()) {
      if (c.api_class == analysis::ApiClass::kMemcpyAsync &&
          c.sync == analysis::SyncReason::kNone) {
        costs.push_back(c.end - c.start);
      }
    }
  }
  if (!costs.empty()) return analysis::Quantile(costs, 0.5);
  if (report.launch.median_api_ns > 0) return report.launch.median_api_ns;
  return kDefaultAsyncCallNs;
}

WhatIfScenario Scenario(std::string id, std::string title,
                        std::string assumption) {
  WhatIfScenario s;
  s.id = std::move(id);
  s.title = std::move(title);
  s.assumption = std::move(assumption);
  return s;
}

// The memory the replay may use: the options' figure, else what this
// machine has available now when a replay of `peak_bytes` is worth asking
// about; nullopt when neither is known (or not asked).
std::optional<platform::AvailableMemory> MemoryForTheReplay(
    const WhatIfOptions& options, uint64_t peak_bytes) {
  if (options.available_memory_bytes) {
    return platform::AvailableMemory{*options.available_memory_bytes, ""};
  }
  if (peak_bytes < kAskTheMachineFromBytes) return std::nullopt;
  return platform::ReadAvailableMemory(platform::MachineRoot("/"));
}

// Why the replay is not run when its peak does not fit: both figures, and
// how to make the replay smaller.
std::string MemoryShortReason(uint64_t needed,
                              const platform::AvailableMemory& available,
                              bool several_processes) {
  const bool cgroup =
      !available.limited_by.empty() && available.limited_by != "MemAvailable";
  return absl::StrCat("skipped: the replay would need about ",
                      common::FormatBytes(needed), " of memory, more than ",
                      absl::StrFormat("%.0f%%", kReplayMemoryShare * 100),
                      " of the ", common::FormatBytes(available.bytes),
                      " available",
                      cgroup ? absl::StrCat(" under the cgroup memory limit (",
                                            available.limited_by, ")")
                             : "",
                      "; analyse a shorter window (--from/--to)",
                      several_processes ? " or one rank (--rank N)" : "");
}

std::string SyncTitle(const SyncPoint& p) {
  return absl::StrCat("remove ", p.api, " (", p.reason, ")",
                      p.call_site.empty() ? "" : " at " + p.call_site);
}

}  // namespace

ReplayPlan PlanReplay(const analysis::PreparedTimeline& prepared,
                      const Report& report, const WhatIfOptions& options) {
  ReplayPlan plan;
  for (const SyncPoint& p : report.sync_points) {
    if (p.blocks_host && plan.groups.size() < options.max_sync_groups) {
      plan.groups.push_back(p);
    }
  }
  for (const analysis::DeviceView& d : prepared.devices()) {
    if (!d.ops.empty() && std::find(plan.pids.begin(), plan.pids.end(),
                                    d.pid) == plan.pids.end()) {
      plan.pids.push_back(d.pid);
    }
  }
  plan.counts = CountReplayEvents(prepared, plan.pids);
  plan.estimate = EstimateReplayMemory(plan.counts, plan.groups.size());
  return plan;
}

WhatIf ComputeWhatIf(analysis::PreparedTimeline& prepared, const Report& report,
                     const WhatIfOptions& options) {
  WhatIf w;
  w.gpu_speedup = options.gpu_speedup;
  const Timeline& tl = prepared.timeline();
  auto unavailable = [&w](std::string reason) {
    w.available = false;
    w.unavailable_reason = std::move(reason);
    w.scenarios.clear();
    return w;
  };
  if (!options.enabled) return unavailable("not computed (--no-what-if)");
  if (!report.has_gpu_activity) {
    return unavailable("no GPU activity in the analysed window");
  }
  if (!tl.available.api_calls || !tl.available.correlation) {
    return unavailable(
        "the trace does not link GPU work to the CUDA calls that launched "
        "it (no API calls or no correlation ids), so the host cannot be "
        "replayed");
  }
  // Nothing below reads the host's records: where the caller let them go
  // (Analyze(Timeline&&)), they are freed before the memory left for the
  // replay is measured and its models are built.
  prepared.ReleaseUnreplayedEvents();
  // The replay's peak memory (replay_memory.h): it replays on as many
  // threads as fit in the memory available, and is not run when not even
  // one does.
  const ReplayPlan plan = PlanReplay(prepared, report, options);
  const std::vector<int32_t>& pids = plan.pids;
  const std::vector<SyncPoint>& groups = plan.groups;
  const ReplayCounts& counts = plan.counts;
  if (!FitsTheModel(counts)) {
    return unavailable(absl::StrCat(
        "skipped: a process has more than ",
        uint64_t{ReplayEvent::kMaxIndex} + 1,
        " CUDA calls or GPU ops in the analysed window, more than the "
        "replay's model holds; analyse a shorter window (--from/--to)"));
  }
  size_t replay_threads = common::ParallelWorkers(
      pids.size() + kScenariosBesideSyncGroups + groups.size(),
      counts.calls + counts.ops >= kParallelReplayMinEvents
          ? platform::UsableCores()
          : 1);
  const ReplayMemoryEstimate& estimate = plan.estimate;
  if (const std::optional<platform::AvailableMemory> available =
          MemoryForTheReplay(options, estimate.PeakBytes(replay_threads))) {
    replay_threads =
        ReplayThreadsThatFit(estimate, available->bytes, replay_threads);
    if (replay_threads == 0) {
      return unavailable(MemoryShortReason(estimate.PeakBytes(1), *available,
                                           pids.size() > 1));
    }
  }

  const bool steps_basis = report.steps.available;
  // The processes' models are independent: on a big trace with several
  // processes they are built side by side, each with its steps grouped and
  // its recorded figures measured.
  const size_t build_threads =
      counts.calls + counts.ops >= kParallelReplayMinEvents
          ? platform::UsableCores()
          : 1;
  // What input_ready reads from the views' gaps, taken before the models
  // are built: the devices' busy intervals it needs are then not held
  // beside them.
  std::vector<std::vector<InputWait>> input_waits(pids.size());
  common::ParallelFor(pids.size(), build_threads, [&](size_t p, size_t) {
    input_waits[p] = InputWaits(prepared, pids[p]);
  });
  std::vector<std::optional<ProcessRun>> built(pids.size());
  common::ParallelFor(pids.size(), build_threads, [&](size_t p, size_t) {
    built[p].emplace(ProcessRun{pids[p],
                                -1,
                                ReplayModel::Build(prepared, pids[p], groups),
                                {},
                                {},
                                {},
                                {},
                                {}});
  });
  std::vector<ProcessRun> runs;
  runs.reserve(pids.size());
  for (size_t p = 0; p < pids.size(); ++p) {
    const int32_t pid = pids[p];
    ProcessRun& run = *built[p];
    for (const Process& proc : tl.processes) {
      if (proc.pid == pid) run.rank = proc.rank;
    }
    const int32_t main = run.model.MainThread();
    if (main < 0) {
      return unavailable(absl::StrCat(
          "process ", pid,
          " ran GPU work but has no CUDA calls in the analysed window"));
    }
    const double unlaunched =
        run.model.op_ns() > 0 ? static_cast<double>(run.model.unlaunched_ns()) /
                                    static_cast<double>(run.model.op_ns())
                              : 0.0;
    if (unlaunched > kMaxUnlaunchedShare) {
      return unavailable(absl::StrCat(
          common::FormatPercent(unlaunched), " of process ", pid,
          "'s GPU time has no launching call in the trace (launched before "
          "the window, or correlation ids missing): the replay cannot move "
          "it"));
    }
    if (steps_basis) {
      for (const StepInfo& s : report.steps.steps) {
        if (s.pid != pid) continue;
        run.steps.emplace_back(s.start, s.end);
        const ReplayThread* t = run.model.FindThread(s.tid);
        run.step_threads.push_back(
            t != nullptr ? static_cast<uint32_t>(t - run.model.threads().data())
                         : static_cast<uint32_t>(main));
      }
    }
    runs.push_back(std::move(run));
    built[p].reset();
  }
  built.clear();
  // Steps are the basis only when every replayed process has some.
  const bool by_steps =
      std::all_of(runs.begin(), runs.end(),
                  [](const ProcessRun& r) { return !r.steps.empty(); });
  uint64_t events = 0;
  for (ProcessRun& r : runs) {
    if (!by_steps) {
      r.steps.clear();
      r.step_threads.clear();
    }
    events += r.model.calls().size() + r.model.ops().size();
  }
  common::ParallelFor(runs.size(), build_threads, [&](size_t p, size_t) {
    AssignOpsToSteps(&runs[p]);
    runs[p].observed = Measure(runs[p], ReplayEdits(), nullptr);
  });
  w.basis = by_steps ? "steps" : "span";
  w.coupled_ranks = SetCollectiveWaits(report, by_steps, &runs);
  for (const ProcessRun& r : runs) w.steps += r.steps.size();
  for (const ProcessRun& r : runs) {
    w.observed_median_ns = std::max(w.observed_median_ns, r.observed.median);
    w.observed_mean_ns = std::max(w.observed_mean_ns, r.observed.mean);
  }

  // The report as it stands before the parameters, for a failed self-check.
  WhatIf unchecked = w;

  // Parameters.
  if (options.launch_cost_fraction) {
    w.launch_cost_fraction = *options.launch_cost_fraction;
    w.launch_cost_source = "given (--what-if-launch-cost)";
  } else if (options.launch_cost_ns) {
    w.launch_cost_ns = *options.launch_cost_ns;
    w.launch_cost_source = "given (--what-if-launch-cost)";
  } else {
    w.launch_cost_ns = kGraphKernelLaunchNs;
    w.launch_cost_source =
        "a kernel's host cost when a captured CUDA graph replays it "
        "(docs/what-if.md)";
  }
  w.pinned_htod_gbps = PinnedGbps(prepared, CopyKind::kHtoD);
  w.pinned_dtoh_gbps = PinnedGbps(prepared, CopyKind::kDtoH);
  const double fallback_gbps = report.copies.link_known
                                   ? report.copies.link_theoretical_gbps
                                   : kDefaultPinnedGbps;
  const bool measured = w.pinned_htod_gbps > 0 || w.pinned_dtoh_gbps > 0;
  w.pinned_source =
      measured ? "the trace's pinned copies"
      : report.copies.link_known
          ? absl::StrFormat("the link's nominal rate (PCIe gen %g x%u)",
                            report.copies.link_gen, report.copies.link_width)
          : "a PCIe 4.0 x16 link's typical pinned rate (the trace has no "
            "pinned copies and no link)";
  if (measured && (w.pinned_htod_gbps <= 0 || w.pinned_dtoh_gbps <= 0)) {
    w.pinned_source += " (the other direction: the same rate)";
  }
  if (w.pinned_htod_gbps <= 0) {
    w.pinned_htod_gbps = measured ? w.pinned_dtoh_gbps : fallback_gbps;
  }
  if (w.pinned_dtoh_gbps <= 0) {
    w.pinned_dtoh_gbps = measured ? w.pinned_htod_gbps : fallback_gbps;
  }
  const TimeNs async_call = AsyncCallCost(runs, report);
  for (const ProcessRun& r : runs) {
    const LaunchQueue& q = r.model.launch_queue();
    w.launch_queue_depth = std::max(w.launch_queue_depth, q.depth);
    w.most_outstanding_ops =
        std::max(w.most_outstanding_ops, q.most_outstanding);
    w.enqueueing_calls += q.enqueueing_calls;
    w.queue_held_calls += q.held_calls;
    w.input_production_ns +=
        InputProductionTime(r.model, prepared.input_production());
  }

  // The views are freed before the edits of input_ready (from the waits
  // taken before the models), pin_copies' or any replay array is taken.
  // Each process's two are built side by side, like those of several, and
  // moved out by the one job that replays them.
  prepared.ReleaseViews();
  std::vector<ReplayEdits> input_ready_edits(runs.size());
  std::vector<ReplayEdits> pin_copies_edits(runs.size());
  common::ParallelFor(2 * runs.size(), build_threads, [&](size_t k, size_t) {
    const size_t p = k / 2;
    if (k % 2 == 0) {
      input_ready_edits[p] = InputReadyEdits(runs[p].model, input_waits[p],
                                             prepared.input_production());
      std::vector<InputWait>().swap(input_waits[p]);
    } else {
      pin_copies_edits[p] =
          PinCopiesEdits(tl, runs[p].model, w.pinned_htod_gbps,
                         w.pinned_dtoh_gbps, async_call);
    }
  });
  const auto index_of = [&runs](const ProcessRun& r) {
    return static_cast<size_t>(&r - runs.data());
  };

  // The scenarios: each one edit of every rank's model, replayed. They are
  // independent, so they run on as many cores as there are, each thread
  // with its own replay arrays; each scenario's result goes to its own slot
  // and they are listed in this order whatever the scheduling.
  struct ScenarioJob {
    WhatIfScenario scenario;
    std::function<ReplayEdits(const ProcessRun&)> edits_of;
  };
  std::vector<ScenarioJob> jobs;
  auto run_scenario = [&jobs](WhatIfScenario s, auto&& edits_of) {
    jobs.push_back({std::move(s), std::forward<decltype(edits_of)>(edits_of)});
  };
  auto replay_scenario = [&](ScenarioJob& job, ReplayTimes* times) {
    WhatIfScenario& s = job.scenario;
    std::vector<TimeNs> medians, means;
    for (const ProcessRun& r : runs) {
      const ReplayEdits edits = job.edits_of(r);
      s.edits += edits.edits;
      WhatIfRank rank{r.pid,
                      r.rank,
                      r.observed.median,
                      r.observed.mean,
                      r.observed.median,
                      r.observed.mean};
      if (edits.edits > 0) {
        Replay(r.model, edits, times);
        const Figures f = Measure(r, edits, times);
        rank.predicted_median_ns = PredictedMedian(r.observed, f);
        rank.predicted_mean_ns = f.mean;
      }
      s.predicted_median_ns =
          std::max(s.predicted_median_ns, rank.predicted_median_ns);
      s.predicted_mean_ns =
          std::max(s.predicted_mean_ns, rank.predicted_mean_ns);
      if (runs.size() > 1) s.ranks.push_back(rank);
    }
    if (w.coupled_ranks) CoupleRanks(runs, &s);
    s.saving_ns = w.observed_median_ns - s.predicted_median_ns;
    s.saving_share = w.observed_median_ns > 0
                         ? static_cast<double>(s.saving_ns) /
                               static_cast<double>(w.observed_median_ns)
                         : 0.0;
  };

  run_scenario(
      Scenario(
          "input_ready", "next batch always ready (input wait removed)",
          absl::StrCat(
              "the launching thread no longer waits for input in GPU idle "
              "gaps: its on-CPU and unknown host time in gaps over 100 µs "
              "and its off-CPU I/O and waiting in any gap are cut",
              w.input_production_ns > 0
                  ? absl::StrCat(
                        ", and so is the time it spent producing batches "
                        "itself (DataLoader operators, input annotations, "
                        "data-loading code: ",
                        common::FormatDuration(w.input_production_ns),
                        " in the window) wherever the GPU was")
                  : std::string(),
              " (more DataLoader workers, prefetching, faster storage); the "
              "CPU work that moves elsewhere is not modelled")),
      [&](const ProcessRun& r) {
        return std::move(input_ready_edits[index_of(r)]);
      });

  const std::string launch_cost =
      w.launch_cost_fraction > 0
          ? absl::StrFormat("%g× their recorded time", w.launch_cost_fraction)
          : common::FormatDuration(w.launch_cost_ns);
  run_scenario(
      Scenario(
          "cheaper_launches",
          absl::StrCat("cheaper kernel launches (", launch_cost, " each)"),
          absl::StrCat("every kernel launch call costs ", launch_cost, ", ",
                       w.launch_cost_source,
                       "; the host code between launches (Python, framework) "
                       "keeps its time")),
      [&](const ProcessRun& r) {
        return CheaperLaunchEdits(
            r.model, w.launch_cost_ns,
            w.launch_cost_fraction > 0
                ? std::optional<double>(w.launch_cost_fraction)
                : std::nullopt);
      });

  for (size_t g = 0; g < groups.size(); ++g) {
    const SyncPoint& p = groups[g];
    WhatIfScenario s = Scenario(
        "remove_sync", SyncTitle(p),
        absl::StrCat("its ", common::Counted(p.count, "call"),
                     " return without waiting for the GPU and the host "
                     "issues the next work at once; assumes the program "
                     "does not need the synchronized result there"));
    s.sync_api = p.api;
    s.sync_reason = p.reason;
    s.sync_call_site = p.call_site;
    run_scenario(std::move(s), [g](const ProcessRun& r) {
      return RemoveSyncEdits(r.model, static_cast<int32_t>(g));
    });
  }

  run_scenario(
      Scenario("pin_copies", "pageable copies pinned",
               absl::StrFormat(
                   "copies from or to pageable host memory run at %.1f GB/s "
                   "host to device and %.1f GB/s device to host (%s) and their "
                   "calls return like async copies (%s)",
                   w.pinned_htod_gbps, w.pinned_dtoh_gbps, w.pinned_source,
                   common::FormatDuration(async_call))),
      [&](const ProcessRun& r) {
        return std::move(pin_copies_edits[index_of(r)]);
      });

  const std::string speedup = common::FormatPercent(options.gpu_speedup);
  run_scenario(
      Scenario("faster_gpu", absl::StrCat("kernels ", speedup, " faster"),
               absl::StrCat("every kernel takes ", speedup,
                            " less time (better kernels, mixed precision, a "
                            "faster GPU); copies and the host keep theirs")),
      [&](const ProcessRun& r) {
        return FasterGpuEdits(r.model, options.gpu_speedup);
      });

  // The self-check (the unedited replay of each process) runs first, side
  // by side with the scenarios; the scenarios are dropped when it fails
  // (and those not yet started are skipped).
  struct SelfCheck {
    Figures replayed;
    uint64_t out_of_order = 0;
  };
  std::vector<SelfCheck> checks(runs.size());
  std::atomic<bool> check_failed{false};
  const auto self_check = [&](size_t p, ReplayTimes* times) {
    const ProcessRun& r = runs[p];
    const ReplayEdits none;
    Replay(r.model, none, times);
    checks[p].replayed = Measure(r, none, times);
    checks[p].out_of_order = times->out_of_order;
    const double error =
        std::max(RelativeError(checks[p].replayed.median, r.observed.median),
                 RelativeError(checks[p].replayed.mean, r.observed.mean));
    if (error > kSelfCheckTolerance ||
        static_cast<double>(times->out_of_order) >
            kMaxOutOfOrderShare * static_cast<double>(events)) {
      check_failed = true;
    }
  };
  // Small models replay faster than threads start; big ones on as many
  // threads as their memory allows (replay_threads, chosen above).
  const size_t all_jobs = runs.size() + jobs.size();
  std::vector<ReplayTimes> worker_times(
      common::ParallelWorkers(all_jobs, replay_threads));
  common::ParallelFor(all_jobs, replay_threads, [&](size_t job, size_t worker) {
    if (job < runs.size()) {
      self_check(job, &worker_times[worker]);
    } else if (!check_failed) {
      replay_scenario(jobs[job - runs.size()], &worker_times[worker]);
    }
  });
  worker_times.clear();

  // Self-check: the unedited replay reproduces the recording.
  uint64_t out_of_order = 0;
  for (size_t p = 0; p < runs.size(); ++p) {
    const ProcessRun& r = runs[p];
    const Figures& replayed = checks[p].replayed;
    w.self_check_error = std::max(
        {w.self_check_error, RelativeError(replayed.median, r.observed.median),
         RelativeError(replayed.mean, r.observed.mean)});
    out_of_order += checks[p].out_of_order;
    w.replayed_median_ns = std::max(w.replayed_median_ns, replayed.median);
  }
  const bool too_out_of_order =
      events > 0 &&
      static_cast<double>(out_of_order) / static_cast<double>(events) >
          kMaxOutOfOrderShare;
  if (too_out_of_order || w.self_check_error > kSelfCheckTolerance) {
    // Reported as before any parameter was chosen.
    const double self_check_error = w.self_check_error;
    const TimeNs replayed_median_ns = w.replayed_median_ns;
    w = std::move(unchecked);
    w.self_check_error = self_check_error;
    w.replayed_median_ns = replayed_median_ns;
    if (too_out_of_order) {
      return unavailable(absl::StrCat(
          out_of_order, " of ", events,
          " calls and ops depend on work the trace records later (host and "
          "device clocks disagree): the replay cannot order them"));
    }
    return unavailable(absl::StrCat(
        "the unedited replay reproduces the recorded ",
        by_steps ? "step times" : "span", " only within ",
        common::FormatPercent(w.self_check_error), " (at most ",
        common::FormatPercent(kSelfCheckTolerance), " is required)"));
  }
  for (ScenarioJob& job : jobs) w.scenarios.push_back(std::move(job.scenario));

  std::stable_sort(w.scenarios.begin(), w.scenarios.end(),
                   [](const WhatIfScenario& a, const WhatIfScenario& b) {
                     return a.saving_ns > b.saving_ns;
                   });
  w.available = true;
  return w;
}

void PriceNextSteps(const std::vector<analysis::TaggedNextStep>& steps,
                    const WhatIf& what_if, Verdict* verdict) {
  struct Priced {
    const analysis::TaggedNextStep* step;
    const WhatIfScenario* scenario;
  };
  std::vector<Priced> priced, rest;
  for (const analysis::TaggedNextStep& s : steps) {
    const WhatIfScenario* match = nullptr;
    if (what_if.available && !s.scenario.empty()) {
      for (const WhatIfScenario& sc : what_if.scenarios) {
        if (sc.id != s.scenario || sc.edits == 0) continue;
        if (sc.id == "remove_sync" && (sc.sync_api != s.sync_api ||
                                       sc.sync_call_site != s.sync_call_site)) {
          continue;
        }
        match = &sc;
        break;
      }
    }
    (match != nullptr ? priced : rest).push_back({&s, match});
  }
  std::stable_sort(priced.begin(), priced.end(),
                   [](const Priced& a, const Priced& b) {
                     return a.scenario->saving_ns > b.scenario->saving_ns;
                   });
  verdict->next_steps.clear();
  verdict->next_step_estimates.clear();
  const std::string per =
      what_if.basis == "steps" ? " per step" : " of the span";
  for (const Priced& p : priced) {
    const WhatIfScenario& sc = *p.scenario;
    NextStepEstimate e;
    e.step = verdict->next_steps.size();
    e.scenario = sc.id;
    e.sync_api = sc.sync_api;
    e.sync_call_site = sc.sync_call_site;
    e.saving_ns = sc.saving_ns;
    e.saving_share = sc.saving_share;
    verdict->next_step_estimates.push_back(std::move(e));
    verdict->next_steps.push_back(absl::StrCat(
        p.step->text, " Worth up to ~",
        common::FormatDuration(std::max<TimeNs>(0, sc.saving_ns)), per, " (",
        common::FormatPercent(std::max(0.0, sc.saving_share)),
        ") by the what-if replay."));
  }
  for (const Priced& p : rest) verdict->next_steps.push_back(p.step->text);
}

}  // namespace feedprof::replay
