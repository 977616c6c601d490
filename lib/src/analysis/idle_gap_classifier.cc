// Idle-gap attribution (see idle_gap_classifier.h).
#include "analysis/idle_gap_classifier.h"

#include <algorithm>
#include <functional>

#include "analysis/time_sum.h"

namespace feedprof::analysis {

bool SplitHostWait(const PreparedTimeline& prepared, const ThreadView* thread,
                   TimeNs t0, TimeNs t1, IdleByCause* out) {
  if (t1 <= t0) return false;
  const TimeNs length = t1 - t0;
  if (thread == nullptr) {
    (*out)[IdleCause::kHostWaitUnknown] += length;
    return false;
  }
  // Time inside CUDA calls: the thread's top-level calls are sorted and
  // disjoint, so the first one ending after t0 is found by binary search.
  bool saw_sync = false;
  TimeNs in_calls = 0;
  const auto& calls = thread->calls;
  auto it =
      std::upper_bound(calls.begin(), calls.end(), t0,
                       [](TimeNs t, const ThreadCall& c) { return t < c.end; });
  for (; it != calls.end() && it->start < t1; ++it) {
    const TimeNs overlap = std::min(it->end, t1) - std::max(it->start, t0);
    if (overlap <= 0) continue;
    AddTime(&in_calls, overlap);
    if (it->sync != SyncReason::kNone) {
      AddTime(&(*out)[IdleCause::kHostWaitSync], overlap);
      saw_sync = true;
    } else {
      AddTime(&(*out)[IdleCause::kHostWaitCudaApi], overlap);
    }
  }
  const TimeNs residual = length - in_calls;
  if (residual <= 0) return saw_sync;

  // Outside CUDA calls: weigh the sample intervals overlapping [t0, t1] by
  // their CPU share (Δ(user+sys)/Δt) and, off-CPU, by the thread state.
  const auto& index = prepared.samples();
  const auto& samples = prepared.timeline().thread_samples;
  double cpu_w = 0, io_w = 0, covered = 0;
  if (thread->sample_end > thread->sample_begin + 1) {
    auto first = index.begin() + thread->sample_begin;
    auto last = index.begin() + thread->sample_end;
    auto k = std::upper_bound(
        first + 1, last, t0,
        [&samples](TimeNs t, uint32_t s) { return t < samples[s].ts; });
    for (; k != last && samples[*(k - 1)].ts < t1; ++k) {
      const ThreadSample& s0 = samples[*(k - 1)];
      const ThreadSample& s1 = samples[*k];
      const TimeNs dt = s1.ts - s0.ts;
      if (dt <= 0) continue;
      const TimeNs overlap = std::min(s1.ts, t1) - std::max(s0.ts, t0);
      if (overlap <= 0) continue;
      const double cpu = static_cast<double>((s1.user_ns + s1.system_ns) -
                                             (s0.user_ns + s0.system_ns)) /
                         static_cast<double>(dt);
      const double f = std::clamp(cpu, 0.0, 1.0);
      const double w = static_cast<double>(overlap);
      covered += w;
      cpu_w += w * f;
      // Off-CPU time in I/O: the block-I/O delay counter when the sampler
      // has it, else the thread state at the end of the interval.
      const int64_t io_delay = s1.io_wait_ns - s0.io_wait_ns;
      if (io_delay > 0) {
        io_w += w * std::min(1.0 - f, static_cast<double>(io_delay) /
                                          static_cast<double>(dt));
      } else if (s1.state == ThreadState::kDiskWait) {
        io_w += w * (1 - f);
      }
    }
  }
  if (covered <= 0) {
    (*out)[IdleCause::kHostWaitUnknown] += residual;
    return saw_sync;
  }
  const auto on_cpu =
      static_cast<TimeNs>(static_cast<double>(residual) * cpu_w / covered);
  const auto io =
      static_cast<TimeNs>(static_cast<double>(residual) * io_w / covered);
  (*out)[IdleCause::kHostWaitOnCpu] += on_cpu;
  (*out)[IdleCause::kHostWaitOffCpuIo] += io;
  (*out)[IdleCause::kHostWaitOffCpuWait] += residual - on_cpu - io;
  return saw_sync;
}

void ForEachGapOf(const PreparedTimeline& prepared, const DeviceView& device,
                  const BusyIntervals& busy,
                  const std::function<void(const IdleGap&)>& visit) {
  const auto& iv = busy.intervals();
  const auto& first_op = busy.first_op();
  const auto& calls = prepared.timeline().api_calls;
  const ThreadView* cached_thread = nullptr;
  for (size_t i = 1; i < iv.size(); ++i) {
    // Each gap asks for what it reads of the ending op's launching call,
    // a gap further on.
    if (const auto* ahead = ElementAhead(first_op, first_op[i])) {
      PrefetchLaunch(calls, device.ops[*ahead]);
      prepared.PrefetchFirstOpOfCall(device.ops[*ahead]);
    }
    const TimeNs a = iv[i - 1].end;
    const TimeNs b = iv[i].start;
    const TimeNs gap = b - a;
    if (gap <= 0) continue;
    IdleGap g;
    g.pid = device.pid;
    g.device = device.device;
    g.start = a;
    g.end = b;
    g.host_wait_end = a;
    const OpRef& op = device.ops[first_op[i]];
    g.ending_op = op.op;
    if (op.api < 0) {
      g.by_cause[IdleCause::kUnattributed] = gap;
    } else if (!prepared.FirstOpOfCall(op)) {
      // A later kernel of a graph launch: submitted with the graph, it
      // waited on the GPU side (its predecessors in the graph), not on a
      // launch of its own.
      g.by_cause[IdleCause::kQueueLatency] = gap;
    } else {
      const ApiCall& launch = calls[static_cast<size_t>(op.api)];
      if (launch.start >= a) {
        if (cached_thread == nullptr || cached_thread->pid != launch.pid ||
            cached_thread->tid != launch.tid) {
          cached_thread = prepared.FindThread(launch.pid, launch.tid);
        }
        g.host_wait_end = std::min(launch.start, b);
        g.launch_pid = launch.pid;
        g.launch_tid = launch.tid;
        g.after_sync = SplitHostWait(prepared, cached_thread, a,
                                     g.host_wait_end, &g.by_cause);
        if (launch.start < b) {
          g.by_cause[IdleCause::kLaunchOverhead] = b - launch.start;
        }
      } else if (launch.end <= a) {
        g.by_cause[IdleCause::kQueueLatency] = gap;
      } else {
        g.by_cause[IdleCause::kLaunchOverhead] = gap;  // launch in flight at a
      }
    }
    g.main_cause = IdleCause::kUnattributed;
    TimeNs most = -1;
    for (int c = 0; c < kIdleCauses; ++c) {
      if (g.by_cause.ns[static_cast<size_t>(c)] > most) {
        most = g.by_cause.ns[static_cast<size_t>(c)];
        g.main_cause = static_cast<IdleCause>(c);
      }
    }
    visit(g);
  }
}

IdleByCause ClassifyIdleGaps(
    const PreparedTimeline& prepared, const DeviceView& device,
    const BusyIntervals& busy, GapStats* gaps,
    const std::function<void(const IdleGap&)>& also_visit) {
  IdleByCause total;
  ForEachGapOf(prepared, device, busy, [&](const IdleGap& g) {
    const TimeNs gap = g.end - g.start;
    const auto bucket = static_cast<size_t>(GapBucketOf(gap));
    ++gaps->count;
    ++gaps->histogram[bucket];
    gaps->histogram_ns[bucket] += gap;
    total += g.by_cause;
    gaps->by_bucket[bucket] += g.by_cause;
    if (g.after_sync) {
      gaps->after_sync += g.by_cause;
      gaps->after_sync_by_bucket[bucket] += g.by_cause;
    }
    if (also_visit) also_visit(g);
  });
  return total;
}

}  // namespace feedprof::analysis

namespace feedprof {

absl::Status ForEachIdleGap(const Timeline& timeline,
                            const AnalysisOptions& options,
                            const std::function<void(const IdleGap&)>& visit) {
  absl::StatusOr<analysis::PreparedTimeline> prepared =
      analysis::PreparedTimeline::Build(timeline, options);
  if (!prepared.ok()) return prepared.status();
  for (const analysis::DeviceView& d : prepared->devices()) {
    if (d.ops.empty()) continue;
    analysis::ForEachGapOf(*prepared, d, analysis::BusyIntervals(d.ops), visit);
  }
  return absl::OkStatus();
}

}  // namespace feedprof
