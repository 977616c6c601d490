// Why a trace has no GPU activity in the analysed window.
//
// "No GPU activity" alone leaves the user guessing: was there no GPU, no
// driver, did CUPTI refuse, did another profiler hold the injection
// variable, did the program simply never use CUDA, or is the work outside
// the window they chose? The trace usually knows: feedprof traces carry a
// platform snapshot (NVIDIA PCI devices, the loaded driver) and the
// library's own GPU-collection outcome per process; any trace knows where
// its GPU ops lie. This pass turns that into one cause, an explanation, a
// line on what the trace does hold, and the next step.
#include <algorithm>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "analysis/analysis_passes.h"
#include "common/units.h"

namespace feedprof::analysis {
namespace {

// "2 NVIDIA GPUs (PCI 0000:17:00.0, 0000:3b:00.0)"
std::string DeviceList(const std::vector<std::string>& bus_ids) {
  return absl::StrCat(bus_ids.size(), " NVIDIA GPU",
                      bus_ids.size() == 1 ? "" : "s", " (PCI ",
                      absl::StrJoin(bus_ids, ", "), ")");
}

// What the trace holds besides GPU work, in the window.
std::string RecordedSummary(const PreparedTimeline& prepared,
                            const HostReport& host) {
  const Timeline& tl = prepared.timeline();
  const Window& w = prepared.window();
  auto in_window = [&](TimeNs t0, TimeNs t1) {
    return t1 >= w.start && t0 <= w.end;
  };
  uint64_t processes = 0;
  for (const Process& p : tl.processes) processes += prepared.Selected(p.pid);
  uint64_t sampled_threads = 0;  // the program's: profilers' left out
  for (const ThreadReport& t : host.threads) sampled_threads += t.samples;
  const uint64_t ranges = prepared.range_digest().in_window;
  uint64_t api_calls = 0;
  for (const ApiCall& c : tl.api_calls) {
    api_calls += prepared.Selected(c.pid) && in_window(c.start, c.end);
  }
  std::vector<std::string> parts;
  if (processes > 0) {
    parts.push_back(
        absl::StrCat(processes, " process", processes == 1 ? "" : "es"));
  }
  if (sampled_threads > 0) {
    parts.push_back(absl::StrCat(sampled_threads, " thread",
                                 sampled_threads == 1 ? "" : "s",
                                 " with CPU time and state"));
  }
  parts.push_back(
      absl::StrCat(ranges, " NVTX/annotation range", ranges == 1 ? "" : "s"));
  parts.push_back(
      absl::StrCat(api_calls, " CUDA API call", api_calls == 1 ? "" : "s"));
  return absl::StrCat("The trace holds ", absl::StrJoin(parts, ", "), " over ",
                      common::FormatDuration(w.end - w.start), ".");
}

}  // namespace

NoGpuActivity ExplainNoGpuActivity(const PreparedTimeline& prepared,
                                   const HostReport& host) {
  const Timeline& tl = prepared.timeline();
  const Window& w = prepared.window();
  NoGpuActivity r;
  r.recorded = RecordedSummary(prepared, host);

  // 1. GPU work exists, just not in what was analysed.
  uint64_t selected_ops = 0;
  for (const GpuOp& op : tl.gpu_ops) selected_ops += prepared.Selected(op.pid);
  uint64_t excluded = 0;
  for (const DeviceView& d : prepared.devices()) excluded += d.excluded.size();
  if (excluded > 0) {
    r.cause = NoGpuCause::kPreWindowOnly;
    r.explanation = absl::StrCat(
        "All ", excluded,
        " GPU operations in the window were launched before "
        "recording began (no launch call in the trace matches them), and such "
        "work is left out by default.");
    r.next_step =
        "Analyse with --include-pre-window to count that work, or record "
        "from earlier so the launches are in the trace.";
    return r;
  }
  if (selected_ops > 0) {
    r.cause = NoGpuCause::kOutsideWindow;
    r.explanation =
        absl::StrCat("The trace has ", selected_ops,
                     " GPU operations, none of them in the "
                     "analysed window [",
                     common::FormatDuration(w.start - w.trace_start), ", ",
                     common::FormatDuration(w.end - w.trace_start), "].");
    r.next_step = "Widen --from/--to (or drop them) to take in the GPU work.";
    return r;
  }

  // 2. The recording machine had no GPU, or no driver.
  const Platform& platform = tl.platform;
  if (platform.nvidia_probed && platform.nvidia_driver_version.empty()) {
    if (platform.nvidia_pci_bus_ids.empty()) {
      r.cause = NoGpuCause::kNoGpuOnMachine;
      r.explanation =
          "No NVIDIA GPU or driver on the recording machine: its platform "
          "snapshot lists no NVIDIA PCI device and no loaded NVIDIA driver, "
          "so only the host side was recorded.";
      r.next_step =
          "Record on a machine with an NVIDIA GPU and driver ('nvidia-smi' "
          "lists the GPUs there); the same command then records kernels, "
          "copies, syncs and the CUDA calls behind them.";
    } else {
      r.cause = NoGpuCause::kNoDriver;
      r.explanation = absl::StrCat(
          "The recording machine has ", DeviceList(platform.nvidia_pci_bus_ids),
          " but no NVIDIA driver was loaded, so CUDA could not run and only "
          "the host side was recorded.");
      r.next_step =
          "Load the NVIDIA driver ('nvidia-smi' must list the GPU) and "
          "record again.";
    }
    return r;
  }

  // 3. The library's GPU collection was off, and it said why.
  bool collection_on = false;
  for (const Process& p : tl.processes) {
    if (!prepared.Selected(p.pid)) continue;
    if (p.gpu_collection == GpuCollectionState::kOff) {
      r.cause = NoGpuCause::kCollectionOff;
      r.explanation = absl::StrCat(
          "GPU activity was not recorded in process ", p.pid, ": ",
          p.gpu_collection_detail.empty() ? "GPU collection was off"
                                          : p.gpu_collection_detail,
          absl::EndsWith(p.gpu_collection_detail, ".") ? "" : ".");
      r.next_step =
          "Fix what the message above names (unset another tool's "
          "CUDA_INJECTION64_PATH, use a libcupti of the program's CUDA major "
          "version through FEEDPROF_CUPTI_PATH, allow GPU profiling) and "
          "record again.";
      return r;
    }
    collection_on |= p.gpu_collection == GpuCollectionState::kFull ||
                     p.gpu_collection == GpuCollectionState::kActivityOnly;
  }

  // 4. Collection ran, or could have: the program did no GPU work.
  if (collection_on) {
    r.cause = NoGpuCause::kNoGpuWork;
    r.explanation =
        "GPU collection was on, but the program launched no kernel, copy or "
        "memset while it was recorded.";
    r.next_step =
        "Make sure the recorded window covers the GPU part of the program "
        "(a process that exits before its first step, or work that runs in "
        "a process started outside 'feedprof record', is not seen).";
    return r;
  }
  if (platform.nvidia_probed) {
    r.cause = NoGpuCause::kCudaNotUsed;
    r.explanation =
        absl::StrCat("The recording machine has ",
                     platform.nvidia_pci_bus_ids.empty()
                         ? std::string("an NVIDIA driver")
                         : DeviceList(platform.nvidia_pci_bus_ids),
                     " (driver ", platform.nvidia_driver_version,
                     "), but no recorded process initialized CUDA.");
    r.next_step =
        "Check that the program runs on the GPU (torch.cuda.is_available(), "
        "device='cuda'), and that the GPU work is in a process started under "
        "'feedprof record'.";
    return r;
  }

  // 5. Other formats, and feedprof traces from before these facts existed.
  r.cause = NoGpuCause::kUnknown;
  r.explanation =
      "The trace has no GPU activity (no kernels, copies or memsets) in the "
      "analysed window.";
  r.next_step =
      "Record with GPU collection enabled (feedprof record) and make sure the "
      "program actually used CUDA in the recorded window.";
  return r;
}

}  // namespace feedprof::analysis
