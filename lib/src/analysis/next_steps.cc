// Next steps fitted to the verdict (DESIGN §1): what to try first, citing
// the report's own findings (the worst sync point, pageable copies) where
// they make the advice concrete.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "analysis/analysis_passes.h"
#include "analysis/units.h"

namespace feedprof::analysis {

std::vector<std::string> NextStepsFor(const Report& report) {
  const std::string& v = report.verdict.primary;
  std::vector<std::string> steps;
  if (v == "launch_bound") {
    steps = {
        "Launch fewer, larger kernels: fuse elementwise ops (torch.compile, "
        "fused optimizers, fused attention).",
        "Capture the steady-state step in a CUDA graph (torch.cuda.graphs, "
        "cudaStreamBeginCapture) so one launch replaces many.",
        "Increase the batch size so each kernel does more work per launch.",
        "Remove host syncs from the loop so the CPU can run ahead of the GPU.",
    };
  } else if (v == "preprocessing_bound") {
    steps = {
        "Add DataLoader workers (num_workers) until the CPU cores saturate or "
        "the workers contend; use persistent_workers and prefetch_factor.",
        "Vectorize or cache the transforms (decode once, store preprocessed "
        "tensors); avoid per-sample Python work.",
        "Move decoding and augmentation to the GPU (NVIDIA DALI, "
        "torchvision.io.decode_jpeg on device, GPU tokenizers).",
    };
  } else if (v == "io_bound") {
    steps = {
        "Read from faster storage or a local cache; stage the dataset on local "
        "NVMe or in RAM.",
        "Use larger sequential reads: pack samples into shards (WebDataset, "
        "TFRecord) instead of many small files.",
        "Prefetch ahead of the consumer: more loader workers or readahead, so "
        "I/O overlaps GPU work.",
    };
  } else if (v == "sync_bound") {
    steps = {
        "Remove synchronizations from the steady-state loop: avoid .item(), "
        ".cpu(), print of tensors and blocking cudaMemcpy inside the step; "
        "accumulate metrics on the GPU and read them every N steps.",
        "Use pinned host memory (pin_memory=True) and non_blocking copies so "
        "copies do not synchronize.",
        "Allocate once outside the loop (caching allocator, preallocated "
        "buffers) instead of cudaMalloc/cudaFree per step.",
    };
    if (!report.sync_points.empty()) {
      const SyncPoint& p = report.sync_points.front();
      steps.insert(
          steps.begin(),
          absl::StrCat(
              "Start with ", p.api, " (", p.reason, ")",
              p.call_site.empty() ? std::string() : " at " + p.call_site, ": ",
              p.count, " calls, ", FormatDuration(p.idle_after_ns),
              " of GPU idle after them."));
    }
  } else if (v == "transfer_bound") {
    steps = {
        "Copy from pinned memory (pin_memory=True, cudaHostAlloc) and overlap "
        "copies with compute on a separate stream.",
        "Move less data: keep tensors on the GPU across steps, send compact "
        "dtypes (uint8 images, fp16) and expand on the device.",
        "Check the PCIe link (generation, width, NUMA placement of the "
        "process relative to the GPU).",
    };
    if (report.copies.pageable_share > 0.1) {
      steps.insert(steps.begin(),
                   absl::StrCat(FormatPercent(report.copies.pageable_share),
                                " of copied bytes use pageable memory: pin "
                                "those buffers first."));
    }
  } else if (v == "gpu_bound") {
    steps = {
        "The CPU feeds the GPU fast enough: profile the kernels (Nsight "
        "Compute) and optimize the most expensive ones.",
        "Use mixed precision / tensor cores (bf16, fp16, TF32) and fused "
        "kernels to cut GPU time.",
        "Scale out (more GPUs) only after the per-kernel efficiency is known.",
    };
  } else if (v == "latency_bound") {
    steps = {
        "Give the GPU more parallel work: larger batches, or several "
        "independent requests/streams at once.",
        "Run independent work on separate streams so kernels overlap.",
        "Capture the dependent chain in a CUDA graph to cut per-kernel "
        "latency.",
    };
  } else if (!report.has_gpu_activity) {
    steps = {
        "Record with GPU collection enabled (feedprof record) and make sure "
        "the program actually used CUDA in the recorded window.",
    };
  } else {
    steps = {
        "Record a longer steady-state window (skip warm-up) and analyse it "
        "with --from/--to.",
        "Record with host sampling enabled so host waits can be split into "
        "CPU work, I/O and waiting.",
    };
  }
  return steps;
}

}  // namespace feedprof::analysis
