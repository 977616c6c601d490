// Counter tracks ("ph":"C"): per process the CPU it used (from thread
// samples), per device the share of each bucket the GPU was busy, and the
// GPU counters the trace recorded (NVML).
//
// Buckets keep counter tracks small on long traces: 1 ms for GPU busy and
// 10 ms for CPU use by default, widened so a track never has more than
// ExportOptions::max_counter_buckets of them (a day-long trace would
// otherwise add 86 million counter events per device).
#include <algorithm>
#include <map>

#include "absl/strings/str_cat.h"
#include "analysis/time_sum.h"
#include "export/export_context.h"

namespace feedprof::exporter {
namespace {

struct Buckets {
  TimeNs start = 0;
  TimeNs width = 1;
  std::vector<double> ns;  // time (busy, or CPU) per bucket

  Buckets(TimeNs window_start, TimeNs window_end, TimeNs min_width,
          uint32_t max_buckets)
      : start(window_start) {
    // Divisions rounded up without `length + divisor - 1`: a damaged
    // trace's window may be nearly 2^63 ns long.
    const TimeNs length = std::max<TimeNs>(1, window_end - window_start);
    const TimeNs cap = std::max<uint32_t>(1, max_buckets);
    width =
        std::max<TimeNs>({1, min_width, length / cap + (length % cap != 0)});
    ns.assign(static_cast<size_t>(length / width + (length % width != 0)), 0.0);
  }

  // Where bucket `i` starts (the end of the last one may pass INT64_MAX).
  TimeNs BucketStart(size_t i) const {
    return analysis::SaturatingAdd(
        start, analysis::SaturatingMul(width, static_cast<TimeNs>(i)));
  }

  // Spreads `amount` evenly over [a, b], clipped to the buckets.
  void Add(TimeNs a, TimeNs b, double amount) {
    if (b <= a || ns.empty()) {
      if (b == a && a >= start) {
        const auto i = static_cast<size_t>((a - start) / width);
        if (i < ns.size()) ns[i] += amount;
      }
      return;
    }
    const double per_ns = amount / static_cast<double>(b - a);
    const TimeNs end = BucketStart(ns.size());
    const TimeNs lo = std::max(a, start);
    const TimeNs hi = std::min(b, end);
    for (TimeNs t = lo; t < hi;) {
      const auto i = static_cast<size_t>((t - start) / width);
      const TimeNs bucket_end = BucketStart(i + 1);
      const TimeNs next = std::min(hi, bucket_end);
      ns[i] += per_ns * static_cast<double>(next - t);
      t = next;
    }
  }
};

void WriteCounterTrack(TraceEventWriter& out, int64_t pid,
                       std::string_view name, std::string_view key,
                       const Buckets& b, double scale) {
  for (size_t i = 0; i < b.ns.size(); ++i) {
    out.Begin("C", "", name, pid, 0);
    out.Ts(b.BucketStart(i));
    out.BeginArgs();
    out.ArgDouble(key, b.ns[i] * scale);
    out.EndArgs();
    out.End();
  }
}

}  // namespace

void WriteCounters(ExportContext& ctx) {
  const Timeline& tl = ctx.tl;
  const ExportOptions& o = ctx.options;
  // CPU use per process: each thread's (user + sys) delta between two
  // samples, spread over the interval, in cores.
  std::map<int32_t, Buckets> cpu;
  std::map<std::pair<int32_t, int32_t>, const ThreadSample*> previous;
  std::vector<uint32_t> order;
  for (uint32_t i = 0; i < tl.thread_samples.size(); ++i) {
    if (ctx.Selected(tl.thread_samples[i].pid)) order.push_back(i);
  }
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    return tl.thread_samples[a].ts < tl.thread_samples[b].ts;
  });
  for (uint32_t i : order) {
    const ThreadSample& s = tl.thread_samples[i];
    const ThreadSample*& prev = previous[{s.pid, s.tid}];
    if (prev != nullptr && s.ts > prev->ts) {
      const int64_t delta =
          (s.user_ns + s.system_ns) - (prev->user_ns + prev->system_ns);
      auto it = cpu.find(s.pid);
      if (it == cpu.end()) {
        it = cpu.emplace(s.pid, Buckets(ctx.window_start, ctx.window_end,
                                        o.cpu_bucket_ns, o.max_counter_buckets))
                 .first;
      }
      if (delta > 0) {
        it->second.Add(prev->ts, s.ts, static_cast<double>(delta));
      }
    }
    prev = &s;
  }
  for (const auto& [pid, b] : cpu) {
    ctx.EnsureProcessName(pid);
    WriteCounterTrack(ctx.out, pid, "CPU use", "cores", b,
                      1.0 / static_cast<double>(b.width));
  }

  // GPU busy share per device: the union of its ops (launched in the
  // trace, as the report counts them) per bucket.
  std::map<int64_t, std::vector<std::pair<TimeNs, TimeNs>>> busy;
  for (const GpuOp& op : tl.gpu_ops) {
    if (!ctx.Selected(op.pid) || !ctx.InWindow(op.start, op.end)) continue;
    if (!ctx.analysis.include_pre_window &&
        (op.correlation == 0 ||
         ctx.launches.count({op.pid, op.correlation}) == 0)) {
      continue;
    }
    busy[ctx.GpuPid(op.pid, op.device)].emplace_back(op.start, op.end);
  }
  for (auto& [pid, intervals] : busy) {
    std::sort(intervals.begin(), intervals.end());
    Buckets b(ctx.window_start, ctx.window_end, o.busy_bucket_ns,
              o.max_counter_buckets);
    TimeNs run_start = intervals.front().first;
    TimeNs run_end = intervals.front().second;
    for (const auto& [s, e] : intervals) {
      if (s > run_end) {
        b.Add(run_start, run_end, static_cast<double>(run_end - run_start));
        run_start = s;
      }
      run_end = std::max(run_end, e);
    }
    b.Add(run_start, run_end, static_cast<double>(run_end - run_start));
    WriteCounterTrack(ctx.out, pid, "GPU busy", "busy_share", b,
                      1.0 / static_cast<double>(b.width));
  }

  // Recorded GPU counters, as they are (already sampled at their own rate).
  for (const CounterSample& c : tl.counters) {
    if (!ctx.Selected(c.pid) || !ctx.InWindow(c.ts, c.ts)) continue;
    ctx.out.Begin("C", "", tl.strings.Get(c.name), ctx.GpuPid(c.pid, c.device),
                  0);
    ctx.out.Ts(c.ts);
    ctx.out.BeginArgs();
    ctx.out.ArgDouble("value", c.value);
    ctx.out.EndArgs();
    ctx.out.End();
  }
}

}  // namespace feedprof::exporter
