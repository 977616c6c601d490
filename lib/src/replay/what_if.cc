// Runs the what-if scenarios and fills Report::what_if (see what_if.h).
//
// In four stages: planning (is there anything to replay, and does its
// model fit in memory), building (each process's model, steps and
// recorded figures, and the parameters the scenarios are built with),
// running (each scenario of the table, and the unedited replay, on as
// many threads as fit) and checking (the unedited replay reproduces the
// recording, or no scenario is reported).
#include "replay/what_if.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "analysis/quantile.h"
#include "common/parallel_for.h"
#include "common/units.h"
#include "platform/available_memory.h"
#include "platform/usable_cores.h"
#include "replay/process_run.h"
#include "replay/rank_coupling.h"
#include "replay/replay_engine.h"
#include "replay/replay_memory.h"
#include "replay/replay_model.h"
#include "replay/scenario_table.h"
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
// A replay estimated below this peak runs without reading the machine's
// memory figures (small traces, the fuzzers: every Analyze would read
// procfs and the cgroup tree for nothing).
constexpr uint64_t kAskTheMachineFromBytes = uint64_t{64} << 20;

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

// What the stages share.
struct WhatIfRun {
  analysis::PreparedTimeline& prepared;
  const Report& report;
  const WhatIfOptions& options;
  ReplayPlan plan;
  size_t replay_threads = 1;
  size_t build_threads = 1;
  // What input_ready reads from the views' gaps, taken before the models.
  std::vector<std::vector<InputWait>> input_waits;
  std::vector<ProcessRun> runs;
  uint64_t events = 0;  // calls and ops of the models
  ScenarioParameters parameters;
  WhatIf w;
};

// Planning: whether there is anything to replay, what, and on how many
// threads its memory allows; the reason when not.
std::optional<std::string> Plan(WhatIfRun& run) {
  const Timeline& tl = run.prepared.timeline();
  const WhatIfOptions& options = run.options;
  if (!options.enabled) return "not computed (--no-what-if)";
  if (!run.report.has_gpu_activity) {
    return "no GPU activity in the analysed window";
  }
  if (!tl.available.api_calls || !tl.available.correlation) {
    return "the trace does not link GPU work to the CUDA calls that "
           "launched it (no API calls or no correlation ids), so the host "
           "cannot be replayed";
  }
  // Nothing below reads the host's records: where the caller let them go
  // (Analyze(Timeline&&)), they are freed before the memory left for the
  // replay is measured and its models are built.
  run.prepared.ReleaseUnreplayedEvents();
  // The replay's peak memory (replay_memory.h): it replays on as many
  // threads as fit in the memory available, and is not run when not even
  // one does.
  run.plan = PlanReplay(run.prepared, run.report, options);
  const ReplayCounts& counts = run.plan.counts;
  if (!FitsTheModel(counts)) {
    return absl::StrCat(
        "skipped: a process has more than ",
        uint64_t{ReplayEvent::kMaxIndex} + 1,
        " CUDA calls or GPU ops in the analysed window, more than the "
        "replay's model holds; analyse a shorter window (--from/--to)");
  }
  const bool big = counts.calls + counts.ops >= kParallelReplayMinEvents;
  run.replay_threads = common::ParallelWorkers(
      run.plan.pids.size() + Scenarios().size() - 1 + run.plan.groups.size(),
      big ? platform::UsableCores() : 1);
  const ReplayMemoryEstimate& estimate = run.plan.estimate;
  if (const std::optional<platform::AvailableMemory> available =
          MemoryForTheReplay(options, estimate.PeakBytes(run.replay_threads))) {
    run.replay_threads =
        ReplayThreadsThatFit(estimate, available->bytes, run.replay_threads);
    if (run.replay_threads == 0) {
      return MemoryShortReason(estimate.PeakBytes(1), *available,
                               run.plan.pids.size() > 1);
    }
  }
  // The processes' models are independent: on a big trace with several
  // processes they are built side by side.
  run.build_threads = big ? platform::UsableCores() : 1;
  return std::nullopt;
}

// Building: each process's model, steps and recorded figures; the reason
// when a process cannot be modelled.
std::optional<std::string> Build(WhatIfRun& run) {
  const Timeline& tl = run.prepared.timeline();
  const Report& report = run.report;
  const std::vector<int32_t>& pids = run.plan.pids;
  // What input_ready reads from the views' gaps, taken before the models
  // are built: the devices' busy intervals it needs are then not held
  // beside them.
  run.input_waits.resize(pids.size());
  common::ParallelFor(pids.size(), run.build_threads, [&](size_t p, size_t) {
    run.input_waits[p] = InputWaits(run.prepared, pids[p]);
  });
  std::vector<std::optional<ProcessRun>> built(pids.size());
  common::ParallelFor(pids.size(), run.build_threads, [&](size_t p, size_t) {
    built[p].emplace(
        ProcessRun{pids[p],
                   -1,
                   ReplayModel::Build(run.prepared, pids[p], run.plan.groups),
                   {},
                   {},
                   {},
                   {},
                   {},
                   0});
  });
  const bool steps_basis = report.steps.available;
  std::vector<ProcessRun>& runs = run.runs;
  runs.reserve(pids.size());
  for (size_t p = 0; p < pids.size(); ++p) {
    const int32_t pid = pids[p];
    ProcessRun& r = *built[p];
    for (const Process& proc : tl.processes) {
      if (proc.pid == pid) r.rank = proc.rank;
    }
    const int32_t main = r.model.MainThread();
    if (main < 0) {
      return absl::StrCat(
          "process ", pid,
          " ran GPU work but has no CUDA calls in the analysed window");
    }
    const double unlaunched =
        r.model.op_ns() > 0 ? static_cast<double>(r.model.unlaunched_ns()) /
                                  static_cast<double>(r.model.op_ns())
                            : 0.0;
    if (unlaunched > kMaxUnlaunchedShare) {
      return absl::StrCat(
          common::FormatPercent(unlaunched), " of process ", pid,
          "'s GPU time has no launching call in the trace (launched before "
          "the window, or correlation ids missing): the replay cannot move "
          "it");
    }
    if (steps_basis) {
      for (const StepInfo& s : report.steps.steps) {
        if (s.pid != pid) continue;
        r.steps.emplace_back(s.start, s.end);
        const ReplayThread* t = r.model.FindThread(s.tid);
        r.step_threads.push_back(
            t != nullptr ? static_cast<uint32_t>(t - r.model.threads().data())
                         : static_cast<uint32_t>(main));
      }
    }
    runs.push_back(std::move(r));
    built[p].reset();
  }
  // Steps are the basis only when every replayed process has some.
  const bool by_steps =
      std::all_of(runs.begin(), runs.end(),
                  [](const ProcessRun& r) { return !r.steps.empty(); });
  for (ProcessRun& r : runs) {
    if (!by_steps) {
      r.steps.clear();
      r.step_threads.clear();
    }
    run.events += r.model.calls().size() + r.model.ops().size();
  }
  common::ParallelFor(runs.size(), run.build_threads, [&](size_t p, size_t) {
    AssignOpsToSteps(&runs[p]);
    runs[p].observed = Measure(runs[p], ReplayEdits(), nullptr);
  });
  WhatIf& w = run.w;
  w.basis = by_steps ? WhatIfBasis::kSteps : WhatIfBasis::kSpan;
  w.coupled_ranks = SetCollectiveWaits(report, by_steps, &runs);
  for (const ProcessRun& r : runs) {
    w.steps += r.steps.size();
    w.observed_median_ns = std::max(w.observed_median_ns, r.observed.median);
    w.observed_mean_ns = std::max(w.observed_mean_ns, r.observed.mean);
  }
  return std::nullopt;
}

// The parameters the scenarios are built with, and what the models found
// (the launch queue, the input produced inline).
void ChooseParameters(WhatIfRun& run) {
  const WhatIfOptions& options = run.options;
  const Report& report = run.report;
  WhatIf& w = run.w;
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
  w.pinned_htod_gbps = PinnedGbps(run.prepared, CopyKind::kHtoD);
  w.pinned_dtoh_gbps = PinnedGbps(run.prepared, CopyKind::kDtoH);
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
  for (const ProcessRun& r : run.runs) {
    const LaunchQueue& q = r.model.launch_queue();
    w.launch_queue_depth = std::max(w.launch_queue_depth, q.depth);
    w.most_outstanding_ops =
        std::max(w.most_outstanding_ops, q.most_outstanding);
    w.enqueueing_calls += q.enqueueing_calls;
    w.queue_held_calls += q.held_calls;
    w.input_production_ns +=
        InputProductionTime(r.model, run.prepared.input_production());
  }
  run.parameters.what_if = &run.w;
  run.parameters.async_call_ns = AsyncCallCost(run.runs, report);
}

// The unedited replay of one process, for the check.
struct SelfCheck {
  Figures replayed;
  uint64_t out_of_order = 0;
};

// One scenario's job: its row, its sync group (remove_sync), and per
// process the edits built before the replay from what the views held
// (input_ready, pin_copies).
struct ScenarioJob {
  const ScenarioRow* row = nullptr;
  const SyncPoint* sync = nullptr;
  int32_t sync_group = -1;
  std::vector<ReplayEdits>* built = nullptr;
  WhatIfScenario scenario;
};

// Running: builds the edits that read what the views held (then frees the
// views), then replays the unedited model of each process (into
// `checks`) and every scenario of the table, each on its own slot; the
// scenarios not yet started are skipped once a self-check fails.
std::vector<WhatIfScenario> RunScenarios(WhatIfRun& run,
                                         std::vector<SelfCheck>* checks) {
  const Timeline& tl = run.prepared.timeline();
  std::vector<ProcessRun>& runs = run.runs;
  // The views are freed before the edits of input_ready (from the waits
  // taken before the models), pin_copies' or any replay array is taken.
  // Each process's two are built side by side, like those of several, and
  // moved out by the one job that replays them.
  run.prepared.ReleaseViews();
  std::vector<ReplayEdits> input_ready_edits(runs.size());
  std::vector<ReplayEdits> pin_copies_edits(runs.size());
  const WhatIf& w = run.w;
  common::ParallelFor(
      2 * runs.size(), run.build_threads, [&](size_t k, size_t) {
        const size_t p = k / 2;
        if (k % 2 == 0) {
          input_ready_edits[p] =
              InputReadyEdits(runs[p].model, run.input_waits[p],
                              run.prepared.input_production());
          std::vector<InputWait>().swap(run.input_waits[p]);
        } else {
          pin_copies_edits[p] =
              PinCopiesEdits(tl, runs[p].model, w.pinned_htod_gbps,
                             w.pinned_dtoh_gbps, run.parameters.async_call_ns);
        }
      });

  // The jobs, in the table's order (remove_sync once per group).
  std::vector<ScenarioJob> jobs;
  for (const ScenarioRow& row : Scenarios()) {
    std::vector<ReplayEdits>* built =
        row.id == WhatIfScenarioId::kInputReady  ? &input_ready_edits
        : row.id == WhatIfScenarioId::kPinCopies ? &pin_copies_edits
                                                 : nullptr;
    if (row.id != WhatIfScenarioId::kRemoveSync) {
      jobs.push_back({&row, nullptr, -1, built, {}});
      continue;
    }
    for (size_t g = 0; g < run.plan.groups.size(); ++g) {
      jobs.push_back(
          {&row, &run.plan.groups[g], static_cast<int32_t>(g), built, {}});
    }
  }
  for (ScenarioJob& job : jobs) {
    WhatIfScenario& s = job.scenario;
    s.id = job.row->id;
    s.title = job.row->title(run.parameters, job.sync);
    s.assumption = job.row->assumption(run.parameters, job.sync);
    if (job.sync != nullptr) {
      s.sync_api = job.sync->api;
      s.sync_reason = job.sync->reason;
      s.sync_call_site = job.sync->call_site;
    }
  }

  const auto replay_scenario = [&](ScenarioJob& job, ReplayTimes* times) {
    WhatIfScenario& s = job.scenario;
    for (size_t p = 0; p < runs.size(); ++p) {
      const ProcessRun& r = runs[p];
      ScenarioEditInputs in;
      in.timeline = &tl;
      in.model = &r.model;
      in.parameters = &run.parameters;
      in.sync_group = job.sync_group;
      in.built = job.built != nullptr ? &(*job.built)[p] : nullptr;
      const ReplayEdits edits = job.row->edits(in);
      s.edits += edits.edits;
      WhatIfRank rank{r.pid,
                      r.rank,
                      r.observed.median,
                      r.observed.mean,
                      r.observed.median,
                      r.observed.mean,
                      0};
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

  // The self-check (the unedited replay of each process) runs first, side
  // by side with the scenarios; the scenarios are dropped when it fails
  // (and those not yet started are skipped).
  checks->assign(runs.size(), SelfCheck{});
  std::atomic<bool> check_failed{false};
  const auto self_check = [&](size_t p, ReplayTimes* times) {
    const ProcessRun& r = runs[p];
    const ReplayEdits none;
    Replay(r.model, none, times);
    (*checks)[p].replayed = Measure(r, none, times);
    (*checks)[p].out_of_order = times->out_of_order;
    const double error =
        std::max(RelativeError((*checks)[p].replayed.median, r.observed.median),
                 RelativeError((*checks)[p].replayed.mean, r.observed.mean));
    if (error > kSelfCheckTolerance ||
        static_cast<double>(times->out_of_order) >
            kMaxOutOfOrderShare * static_cast<double>(run.events)) {
      check_failed = true;
    }
  };
  // Small models replay faster than threads start; big ones on as many
  // threads as their memory allows (replay_threads, from the plan).
  const size_t all_jobs = runs.size() + jobs.size();
  std::vector<ReplayTimes> worker_times(
      common::ParallelWorkers(all_jobs, run.replay_threads));
  common::ParallelFor(
      all_jobs, run.replay_threads, [&](size_t job, size_t worker) {
        if (job < runs.size()) {
          self_check(job, &worker_times[worker]);
        } else if (!check_failed) {
          replay_scenario(jobs[job - runs.size()], &worker_times[worker]);
        }
      });
  std::vector<WhatIfScenario> scenarios;
  scenarios.reserve(jobs.size());
  for (ScenarioJob& job : jobs) scenarios.push_back(std::move(job.scenario));
  return scenarios;
}

// Checking: the unedited replay must reproduce the recorded figures, and
// place its events in recorded order; the reason when it does not. Sets
// the self-check's figures either way.
std::optional<std::string> Check(WhatIfRun& run,
                                 const std::vector<SelfCheck>& checks) {
  WhatIf& w = run.w;
  uint64_t out_of_order = 0;
  for (size_t p = 0; p < run.runs.size(); ++p) {
    const ProcessRun& r = run.runs[p];
    const Figures& replayed = checks[p].replayed;
    w.self_check_error = std::max(
        {w.self_check_error, RelativeError(replayed.median, r.observed.median),
         RelativeError(replayed.mean, r.observed.mean)});
    out_of_order += checks[p].out_of_order;
    w.replayed_median_ns = std::max(w.replayed_median_ns, replayed.median);
  }
  if (run.events > 0 &&
      static_cast<double>(out_of_order) / static_cast<double>(run.events) >
          kMaxOutOfOrderShare) {
    return absl::StrCat(
        out_of_order, " of ", run.events,
        " calls and ops depend on work the trace records later (host and "
        "device clocks disagree): the replay cannot order them");
  }
  if (w.self_check_error > kSelfCheckTolerance) {
    return absl::StrCat(
        "the unedited replay reproduces the recorded ",
        w.basis == WhatIfBasis::kSteps ? "step times" : "span", " only within ",
        common::FormatPercent(w.self_check_error), " (at most ",
        common::FormatPercent(kSelfCheckTolerance), " is required)");
  }
  return std::nullopt;
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
  WhatIfRun run{prepared, report, options, {}, 1, 1, {}, {}, 0, {}, {}};
  run.w.gpu_speedup = options.gpu_speedup;
  const auto unavailable = [](WhatIf w, std::string reason) {
    w.available = false;
    w.unavailable_reason = std::move(reason);
    w.scenarios.clear();
    return w;
  };
  if (std::optional<std::string> why = Plan(run)) {
    return unavailable(std::move(run.w), std::move(*why));
  }
  if (std::optional<std::string> why = Build(run)) {
    return unavailable(std::move(run.w), std::move(*why));
  }
  // The report as it stands before the parameters, for a failed check.
  WhatIf unchecked = run.w;
  ChooseParameters(run);
  std::vector<SelfCheck> checks;
  std::vector<WhatIfScenario> scenarios = RunScenarios(run, &checks);
  if (std::optional<std::string> why = Check(run, checks)) {
    // Reported as before any parameter was chosen.
    unchecked.self_check_error = run.w.self_check_error;
    unchecked.replayed_median_ns = run.w.replayed_median_ns;
    return unavailable(std::move(unchecked), std::move(*why));
  }
  WhatIf& w = run.w;
  w.scenarios = std::move(scenarios);
  std::stable_sort(w.scenarios.begin(), w.scenarios.end(),
                   [](const WhatIfScenario& a, const WhatIfScenario& b) {
                     return a.saving_ns > b.saving_ns;
                   });
  w.available = true;
  return std::move(run.w);
}

}  // namespace feedprof::replay
