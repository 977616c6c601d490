// The what-if scenarios as model edits (see scenarios.h).
#include "replay/scenarios.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "analysis/api_classifier.h"
#include "analysis/device_busy.h"
#include "analysis/idle_gap_classifier.h"
#include "analysis/verdict_signals.h"

namespace feedprof::replay {
namespace {

// The part of a gap's host wait the preprocessing and I/O rules count
// (verdict_signals.cc).
TimeNs InputWaitOf(const IdleGap& g) {
  const auto bucket = static_cast<size_t>(GapBucketOf(g.end - g.start));
  if (g.after_sync && bucket < analysis::kRefillBuckets) return 0;
  TimeNs wait = g.by_cause[IdleCause::kHostWaitOffCpuIo] +
                g.by_cause[IdleCause::kHostWaitOffCpuWait];
  if (bucket >= analysis::kShortBuckets) {
    wait += g.by_cause[IdleCause::kHostWaitOnCpu] +
            g.by_cause[IdleCause::kHostWaitUnknown];
  }
  return wait;
}

void Resize(std::vector<TimeNs>* v, size_t n) {
  if (v->empty()) v->assign(n, ReplayEdits::kKeep);
}

// Host time removed by the cuts in `e`, merged: a cut removes the end of
// the gap before its call (replay_engine.h).
analysis::BusyIntervals RemovedTime(const ReplayModel& model,
                                    const ReplayEdits& e) {
  const auto& calls = model.calls();
  std::vector<analysis::Interval> removed;
  for (size_t k = 0; k < calls.size(); ++k) {
    const TimeNs cut = e.gap_cut_ns[k];
    if (cut == ReplayEdits::kKeep || cut <= 0) continue;
    removed.push_back({calls[k].start - cut, calls[k].start});
  }
  return analysis::BusyIntervals(std::move(removed));
}

// The time removed from the waiting threads is removed from the others too.
// While the main thread waited for its batch, a thread it sets going was
// between calls as well (PyTorch's autograd thread, which backward() wakes,
// launches the backward pass): had the batch been ready, that thread would
// have been woken as much earlier. Each gap of another thread, and the time
// before a thread's first call, loses the removed time it spans; else those
// threads' calls keep their recorded times, the moved thread waits for their
// work, and its steps come out longer than recorded.
void RemoveTheSameTimeFromOtherThreads(const ReplayModel& model,
                                       ReplayEdits* e) {
  if (e->gap_cut_ns.empty()) return;
  const analysis::BusyIntervals removed = RemovedTime(model, *e);
  if (removed.intervals().empty()) return;
  const auto& calls = model.calls();
  for (size_t k = 0; k < calls.size(); ++k) {
    TimeNs& cut = e->gap_cut_ns[k];
    if (cut != ReplayEdits::kKeep) continue;  // a waiting thread's own gap
    const TimeNs take =
        calls[k].first_of_thread
            ? removed.BusyIn(removed.span_start(), calls[k].start)
            : std::min(removed.BusyIn(calls[k - 1].end, calls[k].start),
                       model.GapBefore(k));
    if (take <= 0) continue;
    cut = take;
    ++e->edits;
  }
}

// The time of the spans [first, last) (sorted, disjoint) inside [lo, hi).
TimeNs SpanTimeIn(const analysis::InputSpan* first,
                  const analysis::InputSpan* last, TimeNs lo, TimeNs hi) {
  const auto* it = std::lower_bound(
      first, last, lo,
      [](const analysis::InputSpan& s, TimeNs t) { return s.end <= t; });
  TimeNs in = 0;
  for (; it != last && it->start < hi; ++it) {
    in += std::min(it->end, hi) - std::max(it->start, lo);
  }
  return in;
}

// Cuts each thread's own input production from the gaps it lies in, where
// it is more than the gap's input wait already cut.
void CutInputProduction(const ReplayModel& model,
                        const analysis::InputProduction& production,
                        ReplayEdits* e) {
  const auto& calls = model.calls();
  for (const ReplayThread& t : model.threads()) {
    const auto [first, last] = production.Of(model.pid(), t.tid);
    if (first == last) continue;
    for (uint32_t k = t.call_begin + 1; k < t.call_end; ++k) {
      const TimeNs made =
          SpanTimeIn(first, last, calls[k - 1].end, calls[k].start);
      if (made <= 0) continue;
      Resize(&e->gap_cut_ns, calls.size());
      TimeNs& cut = e->gap_cut_ns[k];
      const TimeNs take = std::min(made, model.GapBefore(k));
      if (cut != ReplayEdits::kKeep && cut >= take) continue;
      if (cut == ReplayEdits::kKeep) ++e->edits;
      cut = take;
    }
  }
}

}  // namespace

TimeNs InputProductionTime(const ReplayModel& model,
                           const analysis::InputProduction& production) {
  TimeNs total = 0;
  const auto& calls = model.calls();
  for (const ReplayThread& t : model.threads()) {
    if (t.call_end - t.call_begin < 2) continue;
    const auto [first, last] = production.Of(model.pid(), t.tid);
    total += SpanTimeIn(first, last, calls[t.call_begin].end,
                        calls[t.call_end - 1].start);
  }
  return total;
}

std::vector<InputWait> InputWaits(const analysis::PreparedTimeline& prepared,
                                  int32_t pid) {
  std::vector<InputWait> waits;
  for (const analysis::DeviceView& d : prepared.devices()) {
    if (d.pid != pid || d.ops.empty()) continue;
    const analysis::BusyIntervals busy(d.ops);
    analysis::ForEachGapOf(prepared, d, busy, [&](const IdleGap& g) {
      const TimeNs wait = InputWaitOf(g);
      if (wait > 0) {
        waits.push_back({g.ending_op, g.start, g.host_wait_end, wait});
      }
    });
  }
  return waits;
}

ReplayEdits InputReadyEdits(const ReplayModel& model,
                            const std::vector<InputWait>& waits,
                            const analysis::InputProduction& production) {
  ReplayEdits e;
  const auto& calls = model.calls();
  for (const InputWait& w : waits) {
    const int32_t op = model.OpOfTimelineOp(w.ending_op);
    if (op < 0) continue;
    const int32_t launch = model.ops()[static_cast<size_t>(op)].call;
    if (launch < 0) continue;
    TimeNs remaining = w.wait_ns;
    const ReplayThread& thread =
        model.threads()[model.ThreadOfCall(static_cast<uint32_t>(launch))];
    // Cut from the host time between calls inside [gap start, host-wait
    // end], latest first: the wait ends when the input arrives.
    for (auto k = static_cast<uint32_t>(launch);
         k > thread.call_begin && remaining > 0; --k) {
      const TimeNs lo = std::max(calls[k - 1].end, w.gap_start);
      const TimeNs hi = std::min(calls[k].start, w.host_wait_end);
      if (calls[k].start <= w.gap_start) break;
      if (hi <= lo) continue;
      Resize(&e.gap_cut_ns, calls.size());
      TimeNs& cut = e.gap_cut_ns[k];
      const TimeNs already = cut == ReplayEdits::kKeep ? 0 : cut;
      const TimeNs take =
          std::min({remaining, hi - lo, model.GapBefore(k) - already});
      if (take <= 0) continue;
      if (already == 0) ++e.edits;
      cut = already + take;
      remaining -= take;
    }
  }
  CutInputProduction(model, production, &e);
  RemoveTheSameTimeFromOtherThreads(model, &e);
  return e;
}

ReplayEdits CheaperLaunchEdits(const ReplayModel& model, TimeNs cost_ns,
                               std::optional<double> fraction) {
  ReplayEdits e;
  const auto& calls = model.calls();
  for (size_t i = 0; i < calls.size(); ++i) {
    const ReplayCall& c = calls[i];
    if (c.api_class != analysis::ApiClass::kKernelLaunch) continue;
    const TimeNs recorded = c.end - c.start;
    const TimeNs cost =
        fraction ? static_cast<TimeNs>(
                       std::llround(static_cast<double>(recorded) * *fraction))
                 : std::min(recorded, cost_ns);
    if (cost == recorded || cost < 0) continue;
    Resize(&e.call_ns, calls.size());
    e.call_ns[i] = cost;
    ++e.edits;
  }
  return e;
}

namespace {

// The blocking calls `removed` picks return without waiting.
template <typename Removed>
ReplayEdits NoWaitEdits(const ReplayModel& model, const Removed& removed) {
  ReplayEdits e;
  for (const ReplayCall& c : model.calls()) {
    if (!Blocking(c) || !removed(c)) continue;
    Resize(&e.no_wait_ns, model.waits().size());
    e.no_wait_ns[c.wait] =
        c.blocked ? model.waits()[c.wait].wake_ns : c.end - c.start;
    ++e.edits;
  }
  return e;
}

}  // namespace

ReplayEdits RemoveSyncEdits(const ReplayModel& model, int32_t group) {
  return NoWaitEdits(
      model, [group](const ReplayCall& c) { return c.sync_group == group; });
}

ReplayEdits RemoveAllSyncEdits(const ReplayModel& model) {
  return NoWaitEdits(model, [](const ReplayCall&) { return true; });
}

ReplayEdits PinCopiesEdits(const Timeline& timeline, const ReplayModel& model,
                           double htod_gbps, double dtoh_gbps,
                           TimeNs async_call_ns) {
  ReplayEdits e;
  const Timeline& tl = timeline;
  const auto& calls = model.calls();
  const auto& ops = model.ops();
  for (size_t i = 0; i < ops.size(); ++i) {
    const GpuOp& g = tl.gpu_ops[ops[i].op];
    if (!analysis::IsPageableHostCopy(g)) continue;
    const double gbps = g.copy_kind == CopyKind::kHtoD ? htod_gbps : dtoh_gbps;
    if (gbps <= 0) continue;
    const TimeNs recorded = ops[i].end - ops[i].start;
    // GB/s is bytes per ns.
    const auto pinned =
        static_cast<TimeNs>(std::ceil(static_cast<double>(g.bytes) / gbps));
    bool changed = false;
    if (pinned < recorded) {
      Resize(&e.op_ns, ops.size());
      e.op_ns[i] = pinned;
      changed = true;
    }
    if (ops[i].call >= 0) {
      const auto k = static_cast<size_t>(ops[i].call);
      const ReplayCall& c = calls[k];
      if (Blocking(c) && c.blocked) {
        Resize(&e.no_wait_ns, model.waits().size());
        e.no_wait_ns[c.wait] = std::min(c.end - c.start, async_call_ns);
        changed = true;
      }
    }
    if (changed) ++e.edits;
  }
  return e;
}

ReplayEdits FasterGpuEdits(const ReplayModel& model, double speedup) {
  ReplayEdits e;
  const auto& ops = model.ops();
  for (size_t i = 0; i < ops.size(); ++i) {
    if (ops[i].kind != GpuOpKind::kKernel) continue;
    const TimeNs recorded = ops[i].end - ops[i].start;
    const auto faster = static_cast<TimeNs>(
        std::llround(static_cast<double>(recorded) * (1.0 - speedup)));
    if (faster == recorded) continue;
    Resize(&e.op_ns, ops.size());
    e.op_ns[i] = faster;
    ++e.edits;
  }
  return e;
}

}  // namespace feedprof::replay
