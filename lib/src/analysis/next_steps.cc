// Next steps fitted to the verdict (docs/verdict-rules.md): what to try first,
// citing the report's own findings (the worst sync point, pageable copies)
// where they make the advice concrete.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "analysis/analysis_passes.h"
#include "analysis/api_classifier.h"
#include "analysis/io_evidence.h"
#include "analysis/time_sum.h"
#include "analysis/verdict_signals.h"
#include "common/units.h"

namespace feedprof::analysis {
namespace {

constexpr size_t kNamedLocations = 3;

double Share(TimeNs part, TimeNs whole) {
  return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole)
                   : 0.0;
}

// "A (120 ms, 34% of GPU idle), B (...)": where the GPU waited for the
// host; empty without locations.
std::string IdleLocationsText(const IdleByCode& idle) {
  std::vector<std::string> parts;
  for (size_t i = 0; i < idle.top.size() && i < kNamedLocations; ++i) {
    const CodeIdle& row = idle.top[i];
    parts.push_back(absl::StrCat(
        row.location, " (", common::FormatDuration(row.idle_ns), ", ",
        common::FormatPercent(row.idle_share), " of GPU idle)"));
  }
  return absl::StrJoin(parts, ", ");
}

// The same for the lines of the user's code a role's time went to.
std::string UserLinesText(const HostCode& code, ThreadRole role) {
  const RoleCodeProfile* r = code.Role(role);
  if (r == nullptr) return "";
  std::vector<std::string> parts;
  for (size_t i = 0; i < r->user_lines.size() && i < kNamedLocations; ++i) {
    const CodeLocationTime& row = r->user_lines[i];
    parts.push_back(absl::StrCat(
        row.location, " (", common::FormatDuration(row.self_ns), ", ",
        common::FormatPercent(Share(row.self_ns, r->located_ns)), ")"));
  }
  return absl::StrJoin(parts, ", ");
}

// Where the host kept the GPU waiting, as a step's first sentence: the
// idle time by location, else where the launching thread's time went;
// empty when the trace holds no stacks.
std::string HostLocationsSentence(const Report& report) {
  const std::string idle = IdleLocationsText(report.idle_by_code);
  if (!idle.empty()) {
    return absl::StrCat(
        "While the GPU waited for the host, the launching "
        "thread was in ",
        idle);
  }
  const std::string lines =
      UserLinesText(report.host_code, ThreadRole::kLaunching);
  if (!lines.empty()) {
    return absl::StrCat("The launching thread's time went most to ", lines);
  }
  return "";
}

}  // namespace

std::vector<TaggedNextStep> NextStepsFor(const Report& report,
                                         const VerdictSignals& signals) {
  const VerdictClass v = report.verdict.primary;
  std::vector<TaggedNextStep> steps;
  // The what-if scenario that prices a step (replay/scenario_table.h).
  const auto tagged = [](std::vector<std::string> texts,
                         std::optional<WhatIfScenarioId> scenario) {
    std::vector<TaggedNextStep> out;
    for (std::string& t : texts) out.push_back({std::move(t), scenario});
    return out;
  };
  const SyncPoint* top_sync = TopHostSyncPoint(report.sync_points);
  const auto remove_sync = [top_sync](std::string text) {
    TaggedNextStep s{std::move(text),
                     top_sync != nullptr
                         ? std::optional(WhatIfScenarioId::kRemoveSync)
                         : std::nullopt};
    if (top_sync != nullptr) {
      s.sync_api = top_sync->api;
      s.sync_call_site = top_sync->call_site;
    }
    return s;
  };
  if (v == VerdictClass::kLaunchBound) {
    steps = tagged(
        {
            "Launch fewer, larger kernels: fuse elementwise ops "
            "(torch.compile, fused optimizers, fused attention).",
            "Capture the steady-state step in a CUDA graph (torch.cuda.graphs, "
            "cudaStreamBeginCapture) so one launch replaces many.",
        },
        WhatIfScenarioId::kCheaperLaunches);
    steps.push_back(
        {"Increase the batch size so each kernel does more work per launch."});
    steps.push_back(
        {"Remove host syncs from the loop so the CPU can run ahead of the "
         "GPU.",
         WhatIfScenarioId::kRemoveAllSyncs});
    const LaunchStats& l = report.launch;
    if (l.count > 0 && !report.host.threads.empty()) {
      // The thread with the most CUDA API time issues the launches.
      steps.insert(
          steps.begin(),
          {absl::StrCat(ThreadName(report.host.threads.front()), " made ",
                        common::Counted(l.count, "launch call"), " (median ",
                        common::FormatDuration(l.median_api_ns),
                        ") for kernels of median ",
                        common::FormatDuration(l.median_kernel_ns),
                        ": cut the number of launches on that thread first."),
           WhatIfScenarioId::kCheaperLaunches});
    }
    if (!l.sites.empty()) {
      std::vector<std::string> sites;
      for (size_t i = 0; i < l.sites.size() && i < kNamedLocations; ++i) {
        sites.push_back(absl::StrCat(l.sites[i].location, " (",
                                     common::Counted(l.sites[i].count, "call"),
                                     ")"));
      }
      steps.insert(
          steps.begin() + 1,
          {absl::StrCat("Most launches come from ", absl::StrJoin(sites, ", "),
                        ": fuse or capture the work of these lines first."),
           WhatIfScenarioId::kCheaperLaunches});
    }
  } else if (v == VerdictClass::kPreprocessingBound) {
    // DataLoader advice fits PyTorch runs; other programs get the general
    // form of it.
    const bool pytorch = report.source_format == SourceFormat::kKineto ||
                         report.host.dataloader_ranges > 0 ||
                         !report.host.workers.empty();
    if (pytorch) {
      steps = tagged(
          {
              "Add DataLoader workers (num_workers) until the CPU cores "
              "saturate "
              "or the workers contend; use persistent_workers and "
              "prefetch_factor.",
              "Vectorize or cache the transforms (decode once, store "
              "preprocessed tensors); avoid per-sample Python work.",
              "Move decoding and augmentation to the GPU (NVIDIA DALI, "
              "torchvision.io.decode_jpeg on device, GPU tokenizers).",
          },
          WhatIfScenarioId::kInputReady);
    } else {
      steps = tagged(
          {
              "Move the host work off the launching thread: prepare the next "
              "batch in other threads or processes while the GPU runs the "
              "current one (double buffering with pinned memory and async "
              "copies).",
              "Speed up or cache the host computation between launches, or "
              "move "
              "it to the GPU.",
          },
          WhatIfScenarioId::kInputReady);
    }
    const std::string where = HostLocationsSentence(report);
    if (!where.empty()) {
      steps.insert(
          steps.begin(),
          {absl::StrCat(where, ": move that work off the launching thread ",
                        pytorch ? "(into DataLoader workers or "
                                  "another thread)"
                                : "(into other threads or processes)",
                        " or make it cheaper."),
           WhatIfScenarioId::kInputReady});
    } else if (const ThreadReport* t = BusiestProgramThread(report.host)) {
      steps.insert(
          steps.begin(),
          {absl::StrCat("Profile what ", ThreadName(*t),
                        " does between launches (perf record -t ", t->tid,
                        ", or py-spy for Python): the busiest program "
                        "thread, on-CPU ",
                        common::FormatPercent(t->cpu_share),
                        " of its sampled time."),
           WhatIfScenarioId::kInputReady});
    }
    if (!report.available.host_samples) {
      steps.insert(steps.begin(),
                   {"This trace has no host CPU samples: record the run with "
                    "'feedprof record' to see whether the launching thread "
                    "computes, waits for I/O or waits for other threads "
                    "before acting on this."});
    }
  } else if (v == VerdictClass::kIoBound) {
    steps = IoNextSteps(report.io);
    // The reading line: where the input pipeline's time went, else where
    // the launching thread was while the GPU waited.
    const std::string loader =
        UserLinesText(report.host_code, ThreadRole::kDataLoader);
    const std::string where =
        loader.empty()
            ? HostLocationsSentence(report)
            : absl::StrCat("The input pipeline's time went most to ", loader);
    if (!where.empty()) {
      // After the step the read pattern calls for, when there is one.
      steps.insert(
          report.io.pattern == IoPattern::kUnknown ? steps.begin()
                                                   : steps.begin() + 1,
          {absl::StrCat(where, ": start with the reads these lines make."),
           WhatIfScenarioId::kInputReady});
    }
  } else if (v == VerdictClass::kSyncBound) {
    steps.push_back(
        {"Remove synchronizations from the steady-state loop: avoid .item(), "
         ".cpu(), print of tensors and blocking cudaMemcpy inside the step; "
         "accumulate metrics on the GPU and read them every N steps.",
         WhatIfScenarioId::kRemoveAllSyncs});
    steps.push_back(
        {"Use pinned host memory (pin_memory=True) and non_blocking copies so "
         "copies do not synchronize.",
         WhatIfScenarioId::kPinCopies});
    // Priced by the largest group of allocation syncs, when there is one.
    TaggedNextStep alloc{
        "Allocate once outside the loop (caching allocator, preallocated "
        "buffers) instead of cudaMalloc/cudaFree per step."};
    for (const SyncPoint& p : report.sync_points) {
      if (p.blocks_host &&
          p.reason == SyncReasonText(SyncReason::kSteadyStateAlloc)) {
        alloc.scenario = WhatIfScenarioId::kRemoveSync;
        alloc.sync_api = p.api;
        alloc.sync_call_site = p.call_site;
        break;
      }
    }
    steps.push_back(std::move(alloc));
    if (top_sync != nullptr) {
      const SyncPoint& p = *top_sync;
      steps.insert(
          steps.begin(),
          remove_sync(absl::StrCat(
              "Start with ", p.api, " (", p.reason, ")",
              p.call_site.empty() ? std::string() : " at " + p.call_site, ": ",
              common::Counted(p.count, "call"), ", ",
              common::FormatDuration(p.idle_after_ns),
              " of GPU idle after them.")));
    }
  } else if (v == VerdictClass::kTransferBound) {
    steps = {
        {"Copy from pinned memory (pin_memory=True, cudaHostAlloc) and "
         "overlap copies with compute on a separate stream.",
         WhatIfScenarioId::kPinCopies},
        {"Move less data: keep tensors on the GPU across steps, send compact "
         "dtypes (uint8 images, fp16) and expand on the device."},
        {"Check the PCIe link (generation, width, NUMA placement of the "
         "process relative to the GPU)."},
    };
    if (report.copies.pageable_share > 0.1) {
      steps.insert(
          steps.begin(),
          {absl::StrCat(common::FormatPercent(report.copies.pageable_share),
                        " of copied bytes use pageable memory: pin "
                        "those buffers first."),
           WhatIfScenarioId::kPinCopies});
    }
  } else if (v == VerdictClass::kGpuBound) {
    steps = tagged(
        {
            "The CPU feeds the GPU fast enough: profile the kernels (Nsight "
            "Compute) and optimize the most expensive ones.",
            "Use mixed precision / tensor cores (bf16, fp16, TF32) and fused "
            "kernels to cut GPU time.",
        },
        WhatIfScenarioId::kFasterGpu);
    steps.push_back(
        {"Scale out (more GPUs) only after the per-kernel "
         "efficiency is known."});
    if (!report.launch.top_kernels.empty()) {
      const KernelTotal& k = report.launch.top_kernels.front();
      const TimeNs busy = signals.busy_ns;
      steps.insert(
          steps.begin(),
          {absl::StrCat("Start with the kernel that takes the most GPU time: ",
                        common::ShortKernelName(k.name), " (",
                        common::Counted(k.count, "launch", "launches"), ", ",
                        common::FormatDuration(k.total_ns),
                        busy > 0
                            ? absl::StrCat(", ",
                                           common::FormatPercent(
                                               static_cast<double>(k.total_ns) /
                                               static_cast<double>(busy)),
                                           " of GPU busy time")
                            : std::string(),
                        ")."),
           WhatIfScenarioId::kFasterGpu});
    }
  } else if (v == VerdictClass::kLatencyBound) {
    steps = {
        {"Give the GPU more parallel work: larger batches, or several "
         "independent requests/streams at once."},
        {"Run independent work on separate streams so kernels overlap."},
        {"Capture the dependent chain in a CUDA graph to cut per-kernel "
         "latency.",
         WhatIfScenarioId::kCheaperLaunches},
    };
    const TimeNs queued = signals.idle[IdleCause::kQueueLatency];
    if (queued > signals.small_grid_ns) {
      steps.insert(
          steps.begin(),
          {absl::StrCat(
              "The GPU sat idle ", common::FormatDuration(queued),
              " with work already queued: find what that work waited for",
              report.gpu_side_waits > 0
                  ? absl::StrCat(" (", report.gpu_side_waits,
                                 " cudaStreamWaitEvent cross-stream waits)")
                  : std::string(),
              ", events, collectives with other ranks, or a serial chain of "
              "dependent kernels; the per-stream breakdown below shows which "
              "streams wait.")});
    }
  } else if (!report.has_gpu_activity) {
    steps = {{report.no_gpu_activity
                  ? report.no_gpu_activity->next_step
                  : std::string("Record with GPU collection enabled (feedprof "
                                "record) and make sure the program actually "
                                "used CUDA in the recorded window.")}};
  } else {
    steps = tagged(
        {
            "Record a longer steady-state window (skip warm-up) and analyse it "
            "with --from/--to.",
            "Record with host sampling enabled so host waits can be split into "
            "CPU work, I/O and waiting.",
        },
        std::nullopt);
  }
  // Whatever the verdict: GPU work held back by the legacy default stream
  // for 1% of the window or more.
  uint64_t legacy_ops = 0;
  TimeNs legacy_held = 0;
  double legacy_share = 0;
  for (const SyncPoint& p : report.sync_points) {
    if (p.blocks_host) continue;
    legacy_ops += p.count;
    AddTime(&legacy_held, p.blocked_ns);
    legacy_share += p.wall_share;
  }
  if (legacy_share >= 0.01) {
    steps.push_back({absl::StrCat(
        "Work on the legacy default stream (",
        common::Counted(legacy_ops, "operation"), ") waited ",
        common::FormatDuration(legacy_held),
        " for other streams and made them wait: launch it on a stream "
        "created with cudaStreamNonBlocking, or build with nvcc "
        "--default-stream per-thread.")});
  }
  return steps;
}

}  // namespace feedprof::analysis
