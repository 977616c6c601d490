// Host statistics: per thread, CPU time and state from the sampler, time
// inside CUDA calls and blocked in syncs; the worker processes a run forked
// (DataLoader workers) and their CPU time.
//
// CPU time is the difference of cumulative counters between the first and
// last sample (inside --from/--to when given; the sampler also covers time
// before the first CUDA call, which belongs to the run); states are the share
// of samples in each state. Where the trace has no samples the thread is marked
// so and the writers print "not available".
//
// The profiler's own threads ("feedprof-writer", "feedprof-sample", ...,
// and other profilers' threads in their traces) are not the program: their CPU
// time is reported apart as profiler overhead and never counts as the program's
// CPU time, CUDA time or worker CPU time, so it cannot pose as preprocessing
// work.
#include <algorithm>
#include <string>
#include <unordered_map>

#include "analysis/analysis_passes.h"
#include "analysis/time_sum.h"

namespace feedprof::analysis {
namespace {

// feedprof's own threads: names cut to 15 characters by the kernel
// ("feedprof-sample" for the sampler), so the prefix identifies them. The
// threads of other profilers in their traces (Nsight Systems' "[NSys]",
// "[NSys Comms]"; CUPTI's worker, feedprof's included) are overhead alike.
bool IsProfilerThread(const std::string& name) {
  return name.starts_with("feedprof-") || name.starts_with("[NSys") ||
         name == "CUPTI worker thread";
}

}  // namespace

HostReport ComputeHostStats(const PreparedTimeline& prepared) {
  const Timeline& tl = prepared.timeline();
  const Window& w = prepared.window();
  const TimeNs wall = std::max<TimeNs>(1, w.end - w.start);
  HostReport r;
  r.samples_available = tl.available.host_samples;

  std::unordered_map<uint64_t, const Thread*> names;
  for (const Thread& t : tl.threads) names[ThreadKey(t.pid, t.tid)] = &t;

  const auto& index = prepared.samples();
  const auto& samples = tl.thread_samples;
  double max_blocked_share = 0;
  for (const ThreadView& tv : prepared.threads()) {
    ThreadReport t;
    t.pid = tv.pid;
    t.tid = tv.tid;
    if (auto it = names.find(ThreadKey(tv.pid, tv.tid)); it != names.end()) {
      t.name = it->second->name;
    }
    t.api_calls = tv.api_count;
    for (const ThreadCall& c : tv.calls) {
      const TimeNs d = std::min(c.end, w.end) - std::max(c.start, w.start);
      if (d <= 0) continue;
      AddTime(&t.cuda_api_ns, d);
      if (c.sync != SyncReason::kNone) AddTime(&t.sync_blocked_ns, d);
    }
    const ThreadSample* first = nullptr;
    const ThreadSample* last = nullptr;
    uint64_t n = 0, running = 0, sleeping = 0, disk = 0;
    for (uint32_t k = tv.sample_begin; k < tv.sample_end; ++k) {
      const ThreadSample& s = samples[index[k]];
      if (w.restricted && (s.ts < w.start || s.ts > w.end)) continue;
      if (first == nullptr) first = &s;
      last = &s;
      ++n;
      running += s.state == ThreadState::kRunning;
      sleeping +=
          s.state == ThreadState::kSleeping || s.state == ThreadState::kIdle;
      disk += s.state == ThreadState::kDiskWait;
    }
    if (n > 0) {
      t.samples = true;
      t.cpu_user_ns = last->user_ns - first->user_ns;
      t.cpu_system_ns = last->system_ns - first->system_ns;
      const TimeNs dt = last->ts - first->ts;
      if (dt > 0) {
        t.cpu_share = static_cast<double>(t.cpu_user_ns + t.cpu_system_ns) /
                      static_cast<double>(dt);
      }
      const auto total = static_cast<double>(n);
      t.running_share = static_cast<double>(running) / total;
      t.sleeping_share = static_cast<double>(sleeping) / total;
      t.disk_wait_share = static_cast<double>(disk) / total;
    }
    if (IsProfilerThread(t.name)) {
      r.profiler_cpu_ns += t.cpu_user_ns + t.cpu_system_ns;
      r.profiler_threads.push_back(std::move(t));
      continue;
    }
    r.program_cpu_ns += t.cpu_user_ns + t.cpu_system_ns;
    AddTime(&r.cuda_api_ns, t.cuda_api_ns);
    AddTime(&r.sync_blocked_ns, t.sync_blocked_ns);
    max_blocked_share =
        std::max(max_blocked_share, static_cast<double>(t.sync_blocked_ns) /
                                        static_cast<double>(wall));
    r.threads.push_back(std::move(t));
  }
  r.sync_blocked_share = max_blocked_share;
  r.profiler_core_share =
      static_cast<double>(r.profiler_cpu_ns) / static_cast<double>(wall);
  auto by_cuda_then_cpu = [](const ThreadReport& a, const ThreadReport& b) {
    if (a.cuda_api_ns != b.cuda_api_ns) return a.cuda_api_ns > b.cuda_api_ns;
    return a.cpu_user_ns + a.cpu_system_ns > b.cpu_user_ns + b.cpu_system_ns;
  };
  std::sort(r.threads.begin(), r.threads.end(), by_cuda_then_cpu);
  std::sort(r.profiler_threads.begin(), r.profiler_threads.end(),
            by_cuda_then_cpu);

  r.dataloader_ranges = prepared.range_digest().dataloader_ranges;
  r.dataloader_ns = prepared.range_digest().dataloader_ns;

  // Worker processes: forked children of an analysed process.
  for (const Process& p : tl.processes) {
    if (!prepared.Selected(p.pid)) continue;
    bool child = p.origin == "fork";
    for (const Process& parent : tl.processes) {
      if (parent.pid == p.ppid && parent.pid != p.pid &&
          prepared.Selected(parent.pid)) {
        child = true;
      }
    }
    if (!child) continue;
    WorkerProcess worker;
    worker.pid = p.pid;
    worker.ppid = p.ppid;
    worker.command = p.command;
    const ProcessSample* first = nullptr;
    const ProcessSample* last = nullptr;
    for (const ProcessSample& s : tl.process_samples) {
      if (s.pid != p.pid) continue;
      if (w.restricted && (s.ts < w.start || s.ts > w.end)) continue;
      if (first == nullptr || s.ts < first->ts) first = &s;
      if (last == nullptr || s.ts > last->ts) last = &s;
    }
    if (first != nullptr) {
      worker.samples = true;
      worker.cpu_user_ns = last->user_ns - first->user_ns;
      worker.cpu_system_ns = last->system_ns - first->system_ns;
      // Process counters include the profiler's threads in the worker.
      for (const ThreadReport& t : r.profiler_threads) {
        if (t.pid != p.pid || !t.samples) continue;
        worker.cpu_user_ns =
            std::max<TimeNs>(0, worker.cpu_user_ns - t.cpu_user_ns);
        worker.cpu_system_ns =
            std::max<TimeNs>(0, worker.cpu_system_ns - t.cpu_system_ns);
      }
    } else {
      // No process counters: add up the worker's thread samples.
      for (const ThreadReport& t : r.threads) {
        if (t.pid != p.pid || !t.samples) continue;
        worker.samples = true;
        worker.cpu_user_ns += t.cpu_user_ns;
        worker.cpu_system_ns += t.cpu_system_ns;
      }
    }
    r.workers_cpu_ns += worker.cpu_user_ns + worker.cpu_system_ns;
    r.workers.push_back(std::move(worker));
  }
  return r;
}

}  // namespace feedprof::analysis
