// The timeline overview (Report::timeline) and the per-step breakdowns.
//
// A report must show *when* the GPU waited and what the host did then, but
// a multi-hour trace has hundreds of millions of events and a plot has a
// thousand pixels. So the analysed window is cut into at most
// kTimelineMaxBuckets buckets of one round width, and every quantity is
// spread into them as it is met in the passes that already walk the data:
// the busy union of each device, the idle gaps as the classifier emits them
// (no second classification), the thread samples and CUDA calls. The
// renderers then draw the buckets as they are; they never aggregate.
//
// Every spread is exact: a value v over [p0, p1) gives bucket [t0, t1) the
// share v·(t1 − p0)/len − v·(t0 − p0)/len, so the shares of consecutive
// buckets telescope to v and the buckets of a device add up to its busy
// and idle-by-cause totals to the nanosecond.
#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "analysis/analysis_passes.h"
#include "analysis/time_sum.h"

namespace feedprof::analysis {
namespace {

__extension__ typedef __int128 Wide;

// The part of `value`, spread evenly over [p0, p1), that lies before t.
TimeNs ShareBefore(TimeNs value, TimeNs p0, TimeNs p1, TimeNs t) {
  if (t <= p0) return 0;
  if (t >= p1) return value;
  return static_cast<TimeNs>(static_cast<Wide>(value) * (t - p0) / (p1 - p0));
}

// The smallest width of the form 1, 2 or 5 × 10^k ns that cuts `length`
// into at most `max_buckets` buckets.
TimeNs RoundBucketWidth(TimeNs length, uint32_t max_buckets) {
  // Division first: a damaged trace's window may be nearly 2^63 ns long.
  const TimeNs least = length / max_buckets + (length % max_buckets != 0);
  for (TimeNs decade = 1;; decade *= 10) {
    for (TimeNs mantissa : {1, 2, 5}) {
      if (mantissa * decade >= least) return mantissa * decade;
    }
  }
}

constexpr int kHostWaitCauses = 6;  // the first six IdleCause values

// Adds to `out` the part of gap `g`'s causes that falls in [t0, t1): the
// host-wait causes happened over [start, host_wait_end], the others
// (launch overhead, queue latency, unattributed) after it.
void AddGapShare(const IdleGap& g, TimeNs t0, TimeNs t1, IdleByCause* out) {
  if (t0 <= g.start && t1 >= g.end) {  // the whole gap: most gaps
    *out += g.by_cause;
    return;
  }
  for (int c = 0; c < kIdleCauses; ++c) {
    const TimeNs v = g.by_cause.ns[static_cast<size_t>(c)];
    if (v == 0) continue;
    const bool host_wait = c < kHostWaitCauses;
    const TimeNs p0 = host_wait ? g.start : g.host_wait_end;
    const TimeNs p1 = host_wait ? g.host_wait_end : g.end;
    if (p1 <= p0) continue;
    out->ns[static_cast<size_t>(c)] +=
        ShareBefore(v, p0, p1, t1) - ShareBefore(v, p0, p1, t0);
  }
}

}  // namespace

struct TimelineOverviewBuilder::State {
  const PreparedTimeline* prepared = nullptr;
  std::vector<StepInfo>* steps = nullptr;
  std::vector<bool> step_all_devices;  // the step's pid has no device
  TimeNs longest_step = 0;
  TimeNs end = 0;  // start + buckets × bucket_ns
  TimelineOverview out;
  size_t finish_hint = 0;  // ForEachBucket's last bucket, for Finish

  // Calls f(bucket, t0, t1) for every bucket [p0, p1) overlaps, with the
  // overlap [t0, t1). `*hint` is the caller's last bucket.
  template <typename F>
  void ForEachBucket(TimeNs p0, TimeNs p1, size_t* hint, F&& f) const {
    p0 = std::max(p0, out.start);
    p1 = std::min(p1, end);
    if (p1 <= p0) return;
    // Callers mostly go forward in time: try the last bucket and the next
    // one before dividing.
    size_t k = *hint;
    const TimeNs hint_start =
        out.start + static_cast<TimeNs>(k) * out.bucket_ns;
    if (p0 < hint_start || p0 >= hint_start + 2 * out.bucket_ns) {
      k = static_cast<size_t>((p0 - out.start) / out.bucket_ns);
    } else if (p0 >= hint_start + out.bucket_ns) {
      ++k;
    }
    for (TimeNs t = p0; t < p1; ++k) {
      const TimeNs t1 =
          std::min(out.start + static_cast<TimeNs>(k + 1) * out.bucket_ns, p1);
      f(k, t, t1);
      t = t1;
    }
    *hint = k - 1;
  }

  void Spread(TimeNs value, TimeNs p0, TimeNs p1,
              std::vector<TimeNs>* buckets) {
    if (value == 0 || p1 <= p0) return;
    ForEachBucket(p0, p1, &finish_hint, [&](size_t k, TimeNs t0, TimeNs t1) {
      (*buckets)[k] +=
          ShareBefore(value, p0, p1, t1) - ShareBefore(value, p0, p1, t0);
    });
  }

  bool StepCounts(size_t i, int32_t pid) const {
    return step_all_devices[i] || (*steps)[i].pid == pid;
  }

  // Calls f(i) for every step i of a device of process `pid` that overlaps
  // [a, b). Intervals of one device come in time order (start and end
  // rising), so `*cursor` (the first step starting at or after b) only
  // moves forward; no step starts before a − longest_step.
  template <typename F>
  void ForEachStepOverlapping(TimeNs a, TimeNs b, int32_t pid, size_t* cursor,
                              F&& f) const {
    while (*cursor < steps->size() && (*steps)[*cursor].start < b) ++*cursor;
    for (size_t i = *cursor; i-- > 0;) {
      const StepInfo& step = (*steps)[i];
      if (step.start + longest_step <= a) break;
      if (step.end > a && StepCounts(i, pid)) f(i);
    }
  }
};

TimelineOverviewBuilder::TimelineOverviewBuilder(
    const PreparedTimeline& prepared, std::vector<StepInfo>* steps)
    : state_(std::make_unique<State>()) {
  State& s = *state_;
  s.prepared = &prepared;
  s.steps = steps;
  const Window& w = prepared.window();
  s.out.start = w.start;
  const TimeNs length = w.end - w.start;
  if (length > 0) {
    s.out.bucket_ns = RoundBucketWidth(length, kTimelineMaxBuckets);
    s.out.buckets = static_cast<uint32_t>(length / s.out.bucket_ns +
                                          (length % s.out.bucket_ns != 0));
    // Rounded up to whole buckets, a window nearly 2^63 ns long (a damaged
    // trace) would pass the int64 range: it then loses its last, partial
    // bucket, so that every bucket bound (k * bucket_ns) stays in range.
    TimeNs covered =
        SaturatingMul(static_cast<TimeNs>(s.out.buckets), s.out.bucket_ns);
    if (covered == std::numeric_limits<TimeNs>::max()) {
      s.out.buckets = static_cast<uint32_t>(covered / s.out.bucket_ns);
      covered = static_cast<TimeNs>(s.out.buckets) * s.out.bucket_ns;
    }
    s.end = SaturatingAdd(s.out.start, covered);
  }
  // A step counts the busy time of its own process's devices; when the
  // process has none (GPU ops under a device pseudo process), every
  // device's (as ComputeSteps does).
  s.step_all_devices.resize(steps->size());
  for (size_t i = 0; i < steps->size(); ++i) {
    const StepInfo& step = (*steps)[i];
    bool has_device = false;
    for (const DeviceView& d : prepared.devices()) {
      has_device |= d.pid == step.pid;
    }
    s.step_all_devices[i] = !has_device;
    s.longest_step = std::max(s.longest_step, step.end - step.start);
  }
  s.out.step_stride = static_cast<uint32_t>(std::max<size_t>(
      1, (steps->size() + kTimelineMaxStepMarks - 1) / kTimelineMaxStepMarks));
}

TimelineOverviewBuilder::~TimelineOverviewBuilder() = default;

// What one device adds to the overview, kept apart until AddDevice.
struct TimelineOverviewBuilder::DevicePart::Data {
  int32_t pid = 0;
  TimelineDevice row;
  size_t hint = 0;        // ForEachBucket's last bucket
  size_t gap_cursor = 0;  // ForEachStepOverlapping's cursor for AddGap
  // Per step: kernel and copy time, idle time by cause (empty: no steps).
  std::vector<TimeNs> compute_ns;
  std::vector<TimeNs> copy_ns;
  std::vector<IdleByCause> idle;
};

TimelineOverviewBuilder::DevicePart::DevicePart()
    : data_(std::make_unique<Data>()) {}
TimelineOverviewBuilder::DevicePart::DevicePart(DevicePart&&) noexcept =
    default;
TimelineOverviewBuilder::DevicePart&
TimelineOverviewBuilder::DevicePart::operator=(DevicePart&&) noexcept = default;
TimelineOverviewBuilder::DevicePart::~DevicePart() = default;

TimelineOverviewBuilder::DevicePart TimelineOverviewBuilder::StartDevice(
    const DeviceView& device, const BusyIntervals& busy) const {
  const State& s = *state_;
  DevicePart part;
  DevicePart::Data& p = *part.data_;
  p.pid = device.pid;
  p.row.pid = device.pid;
  p.row.device = device.device;
  p.row.busy_ns.assign(s.out.buckets, 0);
  p.row.idle_ns.assign(s.out.buckets, IdleByCause{});
  for (const Interval& iv : busy.intervals()) {
    s.ForEachBucket(
        iv.start, iv.end, &p.hint,
        [&](size_t k, TimeNs t0, TimeNs t1) { p.row.busy_ns[k] += t1 - t0; });
  }
  if (s.steps->empty()) return part;
  p.compute_ns.assign(s.steps->size(), 0);
  p.copy_ns.assign(s.steps->size(), 0);
  p.idle.assign(s.steps->size(), IdleByCause{});
  if (device.ops.empty()) return part;
  // The kernels' union in one sweep (the merge rule of StartOrderedUnion:
  // touching intervals merge, empty ones are skipped), each merged interval
  // added to the steps it overlaps.
  size_t cursor = 0;
  auto add = [&](const Interval& iv) {
    s.ForEachStepOverlapping(
        iv.start, iv.end, device.pid, &cursor, [&](size_t i) {
          const StepInfo& step = (*s.steps)[i];
          p.compute_ns[i] +=
              std::min(step.end, iv.end) - std::max(step.start, iv.start);
        });
  };
  const auto& ops = s.prepared->timeline().gpu_ops;
  Interval open;
  bool have_open = false;
  for (const OpRef& op : device.ops) {
    PrefetchOpAhead(ops, device.ops, op);
    if (ops[op.op].kind != GpuOpKind::kKernel || op.end <= op.start) continue;
    if (have_open && op.start <= open.end) {
      open.end = std::max(open.end, op.end);
      continue;
    }
    if (have_open) add(open);
    open = Interval{op.start, op.end};
    have_open = true;
  }
  if (have_open) add(open);
  for (size_t i = 0; i < s.steps->size(); ++i) {
    if (!s.StepCounts(i, device.pid)) continue;
    const StepInfo& step = (*s.steps)[i];
    p.copy_ns[i] = busy.BusyIn(step.start, step.end) - p.compute_ns[i];
  }
  return part;
}

void TimelineOverviewBuilder::AddGap(DevicePart* part,
                                     const IdleGap& gap) const {
  const State& s = *state_;
  DevicePart::Data& p = *part->data_;
  std::vector<IdleByCause>& idle = p.row.idle_ns;
  s.ForEachBucket(gap.start, gap.end, &p.hint,
                  [&](size_t k, TimeNs t0, TimeNs t1) {
                    AddGapShare(gap, t0, t1, &idle[k]);
                  });
  s.ForEachStepOverlapping(
      gap.start, gap.end, p.pid, &p.gap_cursor, [&](size_t i) {
        const StepInfo& step = (*s.steps)[i];
        AddGapShare(gap, std::max(step.start, gap.start),
                    std::min(step.end, gap.end), &p.idle[i]);
      });
}

void TimelineOverviewBuilder::AddDevice(DevicePart part) {
  State& s = *state_;
  DevicePart::Data& p = *part.data_;
  s.out.devices.push_back(std::move(p.row));
  for (size_t i = 0; i < p.idle.size(); ++i) {
    StepInfo& step = (*s.steps)[i];
    if (s.StepCounts(i, p.pid)) {
      AddTime(&step.compute_ns, p.compute_ns[i]);
      AddTime(&step.copy_ns, p.copy_ns[i]);
    }
    step.idle_by_cause += p.idle[i];
  }
}

TimelineOverview TimelineOverviewBuilder::Finish(const HostReport& host) {
  State& s = *state_;
  const PreparedTimeline& prepared = *s.prepared;
  const Timeline& tl = prepared.timeline();
  const Window& w = prepared.window();
  const size_t n = s.out.buckets;

  s.out.threads_total = host.threads.size();
  for (size_t i = 0; i < host.threads.size() && i < kTimelineMaxThreads; ++i) {
    const ThreadReport& t = host.threads[i];
    TimelineThread row;
    row.pid = t.pid;
    row.tid = t.tid;
    row.name = t.name;
    row.samples = t.samples;
    row.cuda_api_ns.assign(n, 0);
    row.sync_ns.assign(n, 0);
    const ThreadView* view = prepared.FindThread(t.pid, t.tid);
    if (view != nullptr) {
      for (const ThreadCall& c : view->calls) {
        s.ForEachBucket(c.start, c.end, &s.finish_hint,
                        [&](size_t k, TimeNs t0, TimeNs t1) {
                          row.cuda_api_ns[k] += t1 - t0;
                          if (c.sync != SyncReason::kNone)
                            row.sync_ns[k] += t1 - t0;
                        });
      }
    }
    if (t.samples && view != nullptr) {
      row.cpu_ns.assign(n, 0);
      row.io_wait_ns.assign(n, 0);
      const auto& index = prepared.samples();
      for (uint32_t k = view->sample_begin + 1; k < view->sample_end; ++k) {
        const ThreadSample& s0 = tl.thread_samples[index[k - 1]];
        const ThreadSample& s1 = tl.thread_samples[index[k]];
        const TimeNs dt = s1.ts - s0.ts;
        if (dt <= 0) continue;
        const TimeNs cpu = std::clamp<TimeNs>(
            (s1.user_ns + s1.system_ns) - (s0.user_ns + s0.system_ns), 0, dt);
        // Off-CPU in I/O as the idle-gap classifier counts it: the block
        // I/O delay counter, else the state at the interval's end.
        const int64_t io_delay = s1.io_wait_ns - s0.io_wait_ns;
        const TimeNs io = io_delay > 0 ? std::min<TimeNs>(dt - cpu, io_delay)
                          : s1.state == ThreadState::kDiskWait ? dt - cpu
                                                               : 0;
        s.Spread(cpu, s0.ts, s1.ts, &row.cpu_ns);
        s.Spread(io, s0.ts, s1.ts, &row.io_wait_ns);
      }
    }
    s.out.threads.push_back(std::move(row));
  }

  // Every blocking call, then the longest kept, back in time order; names
  // only for the kept ones.
  struct BlockingCall {
    TimelineSync sync;
    uint32_t api = 0;  // the call that names the sync
  };
  std::vector<BlockingCall> calls;
  for (const ThreadView& tv : prepared.threads()) {
    for (const ThreadCall& c : tv.calls) {
      if (c.sync == SyncReason::kNone ||
          c.sync == SyncReason::kLegacyDefaultStream) {
        continue;
      }
      const TimeNs start = std::max(c.start, w.start);
      const TimeNs duration = std::min(c.end, w.end) - start;
      if (duration <= 0) continue;
      BlockingCall b;
      b.sync.start = start;
      b.sync.duration_ns = duration;
      b.sync.pid = tv.pid;
      b.sync.tid = tv.tid;
      b.api = prepared.SyncApiOf(c);
      calls.push_back(std::move(b));
    }
  }
  s.out.sync_calls = calls.size();
  if (calls.size() > kTimelineMaxSyncs) {
    std::nth_element(calls.begin(), calls.begin() + kTimelineMaxSyncs,
                     calls.end(),
                     [](const BlockingCall& a, const BlockingCall& b) {
                       return a.sync.duration_ns > b.sync.duration_ns;
                     });
    calls.resize(kTimelineMaxSyncs);
  }
  std::sort(calls.begin(), calls.end(),
            [](const BlockingCall& a, const BlockingCall& b) {
              return a.sync.start < b.sync.start;
            });
  std::vector<TimelineSync> syncs;
  syncs.reserve(calls.size());
  for (BlockingCall& b : calls) {
    b.sync.api = std::string(tl.strings.Get(tl.api_calls[b.api].name));
    syncs.push_back(std::move(b.sync));
  }
  s.out.syncs = std::move(syncs);
  return std::move(s.out);
}

}  // namespace feedprof::analysis
