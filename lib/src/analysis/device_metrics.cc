// Per-device span, busy, idle and their breakdowns (docs/metrics.md).
//
// Busy is the union over all streams, TraceLens-compatible; compute, copy
// and memset time are unions of their own kind; "exposed" copy time is copy
// time no kernel overlaps (copy engines busy while SMs idle), the signal of
// transfer-bound runs. Communication kernels (kernel_classifier.h) are part
// of compute time and also counted apart: their union, and their exposed
// part, which no other kernel overlaps.
#include <algorithm>

#include "analysis/analysis_passes.h"
#include "analysis/idle_gap_classifier.h"
#include "analysis/kernel_classifier.h"
#include "analysis/time_sum.h"

namespace feedprof::analysis {

const BusyIntervals* PrimaryBusyOf(const std::vector<DeviceBusy>& all,
                                   int32_t pid) {
  const BusyIntervals* best = nullptr;
  for (const DeviceBusy& d : all) {
    if (d.pid == pid && (best == nullptr || d.busy.busy() > best->busy())) {
      best = &d.busy;
    }
  }
  return best;
}

TimeNs ProcessBusyIn(const std::vector<DeviceBusy>& all, int32_t pid, TimeNs t0,
                     TimeNs t1) {
  TimeNs sum = 0;
  for (const DeviceBusy& d : all) {
    if (d.pid == pid) AddTime(&sum, d.busy.BusyIn(t0, t1));
  }
  return sum;
}

DeviceReport ComputeDeviceReport(
    const PreparedTimeline& prepared, const DeviceView& device,
    const BusyIntervals& busy,
    const std::function<void(const IdleGap&)>& also_visit) {
  const Timeline& tl = prepared.timeline();
  DeviceReport r;
  r.device = device.device;
  r.pid = device.pid;
  uint32_t sm_count = 0;
  for (const Device& d : tl.devices) {
    if (d.id != device.device) continue;
    if (r.name.empty() || d.pid == device.pid) {
      r.name = d.name;
      sm_count = d.sm_count;
    }
  }

  // A grid with fewer blocks than SMs leaves SMs idle. Without the SM
  // count, fewer than 8 blocks is small on any current data-center GPU.
  constexpr uint32_t kSmallGridWithoutSmCount = 8;
  const uint64_t small_grid_blocks =
      sm_count > 0 ? sm_count : kSmallGridWithoutSmCount;
  r.excluded_ops.count = device.excluded.size();
  StartOrderedUnion excluded;
  for (const OpRef& op : device.excluded) excluded.Add(op.start, op.end);
  r.excluded_ops.busy_ns = excluded.Total();
  if (device.ops.empty()) return r;

  // Counts and per-kind unions in one sweep over the start-sorted ops.
  // Exposed copy time is |copies ∪ kernels| − |kernels|: copy time no
  // kernel overlaps.
  // Exposed communication is |kernels| − |compute kernels| likewise.
  StartOrderedUnion kernels, copies, memsets, kernels_or_copies;
  StartOrderedUnion communication, other_kernels;
  KernelKinds kernel_kinds(tl.strings);
  TimeNs last_end = device.ops.front().end;
  for (const OpRef& op : device.ops) {
    PrefetchOpAhead(tl.gpu_ops, device.ops, op);
    last_end = std::max(last_end, op.end);
    const GpuOp& g = tl.gpu_ops[op.op];
    switch (g.kind) {
      case GpuOpKind::kKernel: {
        ++r.kernel_count;
        const uint32_t* grid = tl.LaunchOf(g).grid;
        const uint64_t blocks = uint64_t{grid[0]} * grid[1] * grid[2];
        if (blocks > 0 && blocks < small_grid_blocks) {
          AddTime(&r.small_grid_kernel_ns, op.end - op.start);
        }
        kernels.Add(op.start, op.end);
        kernels_or_copies.Add(op.start, op.end);
        if (kernel_kinds.Of(g.name) == KernelKind::kCommunication) {
          ++r.communication_kernel_count;
          communication.Add(op.start, op.end);
        } else {
          other_kernels.Add(op.start, op.end);
        }
        break;
      }
      case GpuOpKind::kMemcpy:
        ++r.memcpy_count;
        copies.Add(op.start, op.end);
        kernels_or_copies.Add(op.start, op.end);
        break;
      case GpuOpKind::kMemset:
        ++r.memset_count;
        memsets.Add(op.start, op.end);
        break;
    }
  }
  r.span_start = device.ops.front().start;
  r.span_end = last_end;
  r.span_ns = r.span_end - r.span_start;
  r.busy_ns = busy.busy();
  r.idle_ns = r.span_ns - r.busy_ns;
  r.idle_share = r.span_ns > 0 ? static_cast<double>(r.idle_ns) /
                                     static_cast<double>(r.span_ns)
                               : 0.0;

  r.compute_ns = kernels.Total();
  r.memcpy_ns = copies.Total();
  r.memset_ns = memsets.Total();
  r.exposed_memcpy_ns = kernels_or_copies.Total() - r.compute_ns;
  r.communication_ns = communication.Total();
  r.exposed_communication_ns = r.compute_ns - other_kernels.Total();

  r.idle_by_cause =
      ClassifyIdleGaps(prepared, device, busy, &r.gaps, also_visit);
  r.launch_overhead_share =
      r.span_ns > 0
          ? static_cast<double>(r.idle_by_cause[IdleCause::kLaunchOverhead]) /
                static_cast<double>(r.span_ns)
          : 0.0;
  r.streams = ComputeHtaStreamBreakdown(prepared, device);
  return r;
}

}  // namespace feedprof::analysis
