// The host side of the export: a process per traced process, a track per
// host thread with its ranges (NVTX, annotations, framework ops) and CUDA
// calls, marks, and the thread's scheduler state from host samples on a
// track beside it.
//
// Nesting rule (docs/export.md): a thread's CUDA calls stay on the thread's
// own track — the launch arrows start there and Kineto readers take the
// launching thread from it; calls that cross another call go to an
// "overlapping CUDA calls" track. A range joins the thread's track when it
// nests with every call and range there, else the first "overlapping
// ranges" track where it nests.
#include <algorithm>
#include <map>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "analysis/api_classifier.h"
#include "analysis/call_site_text.h"
#include "export/export_context.h"
#include "export/nesting_lanes.h"

namespace feedprof::exporter {
namespace {

struct ThreadEvents {
  std::vector<uint32_t> calls;
  std::vector<uint32_t> ranges;
  std::vector<uint32_t> marks;
  std::vector<uint32_t> stack_samples;
  std::vector<uint32_t> samples;
};

const char* RangeCategory(RangeSource source) {
  switch (source) {
    case RangeSource::kCpuOp:
      return "cpu_op";
    case RangeSource::kPythonFunction:
      return "python_function";
    case RangeSource::kNvtx:
    case RangeSource::kProfilerStep:
    case RangeSource::kUserAnnotation:
    case RangeSource::kDataLoader:
      break;
  }
  return "user_annotation";
}

const char* RangeSourceName(RangeSource source) {
  switch (source) {
    case RangeSource::kNvtx:
      return "nvtx";
    case RangeSource::kProfilerStep:
      return "profiler_step";
    case RangeSource::kUserAnnotation:
      return "user_annotation";
    case RangeSource::kCpuOp:
      return "cpu_op";
    case RangeSource::kPythonFunction:
      return "python_function";
    case RangeSource::kDataLoader:
      return "dataloader";
  }
  return "nvtx";
}

const char* StateName(ThreadState state) {
  switch (state) {
    case ThreadState::kRunning:
      return "running/runnable";
    case ThreadState::kSleeping:
      return "sleeping";
    case ThreadState::kDiskWait:
      return "disk wait (D)";
    case ThreadState::kStopped:
      return "stopped";
    case ThreadState::kZombie:
      return "zombie";
    case ThreadState::kIdle:
      return "idle";
    case ThreadState::kUnknown:
      break;
  }
  return "unknown";
}

template <typename T>
void SortByStart(const std::vector<T>& items, std::vector<uint32_t>* ids) {
  std::stable_sort(ids->begin(), ids->end(), [&](uint32_t a, uint32_t b) {
    return items[a].start != items[b].start ? items[a].start < items[b].start
                                            : items[a].end > items[b].end;
  });
}

// Lazily created tracks beside a thread ("<name> (overlapping ranges 1)").
class OverflowTracks {
 public:
  OverflowTracks(ExportContext& ctx, int64_t pid, int64_t tid,
                 std::string label)
      : ctx_(ctx), pid_(pid), tid_(tid), label_(std::move(label)) {}
  int64_t Tid(uint32_t lane, int64_t sort_base) {
    if (lane == 0) return tid_;
    while (tids_.size() < lane) {
      const int64_t tid = ctx_.NewTrackId();
      tids_.push_back(tid);
      WriteNameMetadata(ctx_.out, "thread_name", pid_, tid,
                        absl::StrCat(label_, " ", tids_.size()));
      WriteSortIndex(ctx_.out, "thread_sort_index", pid_, tid,
                     sort_base + static_cast<int64_t>(tids_.size()));
    }
    return tids_[lane - 1];
  }

 private:
  ExportContext& ctx_;
  int64_t pid_;
  int64_t tid_;
  std::string label_;
  std::vector<int64_t> tids_;
};

void WriteCall(ExportContext& ctx, uint32_t index, int64_t tid) {
  const Timeline& tl = ctx.tl;
  const ApiCall& c = tl.api_calls[index];
  TraceEventWriter& out = ctx.out;
  out.Begin("X", c.domain == ApiDomain::kDriver ? kCatDriver : kCatRuntime,
            tl.strings.Get(c.name), c.pid, tid);
  out.Ts(c.start);
  out.Dur(c.end - c.start);
  out.BeginArgs();
  if (c.correlation != 0) {
    out.ArgUint("correlation", ctx.Correlation(c.pid, c.correlation));
  }
  if (c.bytes != 0) out.ArgUint("bytes", c.bytes);
  auto note = ctx.sync_notes.find(index);
  if (note != ctx.sync_notes.end()) {
    out.Arg("sync_reason", analysis::SyncReasonText(note->second.reason));
    out.Arg("sync_kind",
            SyncKindName(analysis::SyncKindOf(note->second.reason)));
    out.Arg("gpu_idle_after_ns", note->second.idle_after_ns);
    out.ArgUint("idle_gaps_after", note->second.gaps_after);
  }
  if (c.call_site != 0) {
    const std::vector<std::string> frames =
        analysis::CallStackText(tl, c.call_site);
    if (!frames.empty()) {
      // The frame the report's sync points name.
      out.Arg("call_site", analysis::CallSiteText(tl, c.call_site));
      if (frames.size() > 1) {
        out.BeginArgList("call_stack");
        for (const std::string& f : frames) out.ListString(f);
        out.EndArgList();
      }
    }
  }
  out.EndArgs();
  out.End();
  ctx.api_track[index] = tid;
}

// A sampled stack as an instant on the thread's sample track, named by its
// innermost frame, its frames (innermost first) in `stack`.
void WriteStackSample(ExportContext& ctx, const StackSample& s, int64_t pid,
                      int64_t tid) {
  const std::vector<std::string> frames =
      analysis::CallStackText(ctx.tl, s.stack);
  ctx.out.Begin("i", "stack_sample", frames.empty() ? "sample" : frames.front(),
                pid, tid);
  ctx.out.Ts(s.ts);
  ctx.out.Field("s", "t");
  ctx.out.BeginArgs();
  if (s.weight_ns > 0) ctx.out.Arg("weight_ns", s.weight_ns);
  ctx.out.BeginArgList("stack");
  for (const std::string& f : frames) ctx.out.ListString(f);
  ctx.out.EndArgList();
  ctx.out.EndArgs();
  ctx.out.End();
}

void WriteRange(ExportContext& ctx, const Range& r, int64_t tid) {
  const Timeline& tl = ctx.tl;
  TraceEventWriter& out = ctx.out;
  out.Begin("X", RangeCategory(r.source), tl.strings.Get(r.name), r.pid, tid);
  out.Ts(r.start);
  out.Dur(r.end - r.start);
  out.BeginArgs();
  out.Arg("source", RangeSourceName(r.source));
  if (r.source == RangeSource::kNvtx && r.domain != 0) {
    out.Arg("domain", tl.strings.Get(r.domain));
  }
  out.EndArgs();
  out.End();
}

// Runs of one state between samples: the interval (ts[i-1], ts[i]] takes
// sample i's state and its CPU time delta.
void WriteStates(ExportContext& ctx, const std::vector<uint32_t>& samples,
                 int64_t pid, int64_t tid) {
  const Timeline& tl = ctx.tl;
  TraceEventWriter& out = ctx.out;
  size_t i = 1;
  while (i < samples.size()) {
    const ThreadSample& first = tl.thread_samples[samples[i]];
    const TimeNs start = tl.thread_samples[samples[i - 1]].ts;
    size_t j = i;
    while (j + 1 < samples.size() &&
           tl.thread_samples[samples[j + 1]].state == first.state) {
      ++j;
    }
    const ThreadSample& last = tl.thread_samples[samples[j]];
    const ThreadSample& before = tl.thread_samples[samples[i - 1]];
    const TimeNs end = last.ts;
    if (end > start && ctx.InWindow(start, end)) {
      const int64_t cpu =
          (last.user_ns + last.system_ns) - (before.user_ns + before.system_ns);
      out.Begin("X", kCatThreadState, StateName(first.state), pid, tid);
      out.Ts(start);
      out.Dur(end - start);
      out.BeginArgs();
      out.ArgDouble("cpu_share",
                    static_cast<double>(std::max<int64_t>(cpu, 0)) /
                        static_cast<double>(end - start));
      out.ArgUint("samples", j - i + 1);
      if (last.io_wait_ns > before.io_wait_ns) {
        out.Arg("io_wait_ns", last.io_wait_ns - before.io_wait_ns);
      }
      out.EndArgs();
      out.End();
    }
    i = j + 1;
  }
}

}  // namespace

void WriteProcessMetadata(ExportContext& ctx) {
  std::vector<const Process*> processes;
  for (const Process& p : ctx.tl.processes) {
    if (ctx.Selected(p.pid)) processes.push_back(&p);
  }
  std::stable_sort(processes.begin(), processes.end(),
                   [](const Process* a, const Process* b) {
                     return std::tie(a->rank, a->pid) <
                            std::tie(b->rank, b->pid);
                   });
  int64_t index = 0;
  for (const Process* p : processes) {
    std::string name =
        p->command.empty() ? absl::StrCat("process ", p->pid) : p->command;
    if (p->rank >= 0) absl::StrAppend(&name, " (rank ", p->rank, ")");
    WriteNameMetadata(ctx.out, "process_name", p->pid, 0, name);
    ctx.named_pids.insert(p->pid);
    WriteSortIndex(ctx.out, "process_sort_index", p->pid, 0, index++);
  }
  for (const auto& [key, gpu_pid] : ctx.gpu_pid) {
    const auto& [pid, device] = key;
    std::string name = absl::StrCat("GPU ", device);
    bool shared = false;
    for (const auto& [other, id] : ctx.gpu_pid) {
      shared |= other.second == device && other.first != pid;
    }
    const std::string label = name;
    if (shared) absl::StrAppend(&name, " (pid ", pid, ")");
    WriteNameMetadata(ctx.out, "process_name", gpu_pid, 0, name);
    WriteNameMetadata(ctx.out, "process_labels", gpu_pid, 0, label);
    WriteSortIndex(ctx.out, "process_sort_index", gpu_pid, 0,
                   5'000'000 + index++);
  }
}

void WriteHostThreads(ExportContext& ctx) {
  const Timeline& tl = ctx.tl;
  std::map<std::pair<int32_t, int32_t>, ThreadEvents> threads;
  for (const Thread& t : tl.threads) {
    if (ctx.Selected(t.pid)) threads[{t.pid, t.tid}];
  }
  for (uint32_t i = 0; i < tl.api_calls.size(); ++i) {
    const ApiCall& c = tl.api_calls[i];
    if (ctx.Selected(c.pid) && ctx.InWindow(c.start, c.end)) {
      threads[{c.pid, c.tid}].calls.push_back(i);
    }
  }
  for (uint32_t i = 0; i < tl.ranges.size(); ++i) {
    const Range& r = tl.ranges[i];
    if (ctx.Selected(r.pid) && ctx.InWindow(r.start, r.end)) {
      threads[{r.pid, r.tid}].ranges.push_back(i);
    }
  }
  for (uint32_t i = 0; i < tl.marks.size(); ++i) {
    const Mark& m = tl.marks[i];
    if (ctx.Selected(m.pid) && ctx.InWindow(m.ts, m.ts)) {
      threads[{m.pid, m.tid}].marks.push_back(i);
    }
  }
  for (uint32_t i = 0; i < tl.thread_samples.size(); ++i) {
    const ThreadSample& s = tl.thread_samples[i];
    if (ctx.Selected(s.pid)) threads[{s.pid, s.tid}].samples.push_back(i);
  }
  for (uint32_t i = 0; i < tl.stack_samples.size(); ++i) {
    const StackSample& s = tl.stack_samples[i];
    if (ctx.Selected(s.pid) && ctx.InWindow(s.ts, s.ts)) {
      threads[{s.pid, s.tid}].stack_samples.push_back(i);
    }
  }
  std::map<std::pair<int32_t, int32_t>, const Thread*> named;
  for (const Thread& t : tl.threads) named[{t.pid, t.tid}] = &t;

  int64_t sort_index = 0;
  for (auto& [key, events] : threads) {
    const auto [pid, tid] = key;
    ctx.EnsureProcessName(pid);
    auto found = named.find(key);
    std::string name = found != named.end() && !found->second->name.empty()
                           ? found->second->name
                           : absl::StrCat("thread ", tid);
    // Kineto readers take tids as they are; the name says which is which.
    const int64_t base = (sort_index += 100);
    WriteNameMetadata(ctx.out, "thread_name", pid, tid, name);
    WriteSortIndex(ctx.out, "thread_sort_index", pid, tid, base);

    SortByStart(tl.api_calls, &events.calls);
    SortByStart(tl.ranges, &events.ranges);
    NestingLanes call_lanes;
    CallForest forest;
    OverflowTracks call_tracks(ctx, pid, tid,
                               absl::StrCat(name, " (overlapping CUDA calls"));
    for (uint32_t index : events.calls) {
      const ApiCall& c = tl.api_calls[index];
      const NestingLanes::Placement p =
          call_lanes.Place(c.start, c.end, forest.last() + 1);
      if (p.lane == 0) forest.Add(c.start, c.end, p.parent);
      WriteCall(ctx, index, call_tracks.Tid(p.lane, base + 10));
    }
    NestingLanes range_lanes;
    OverflowTracks range_tracks(ctx, pid, tid,
                                absl::StrCat(name, " (overlapping ranges"));
    for (uint32_t index : events.ranges) {
      const Range& r = tl.ranges[index];
      const NestingLanes::Placement p = range_lanes.Place(
          r.start, r.end, index, !forest.Crosses(r.start, r.end));
      WriteRange(ctx, r, range_tracks.Tid(p.lane, base + 40));
    }
    for (uint32_t index : events.marks) {
      const Mark& m = tl.marks[index];
      const std::string_view domain = tl.strings.Get(m.domain);
      ctx.out.Begin("i", domain.empty() ? "mark" : domain,
                    tl.strings.Get(m.name), pid, tid);
      ctx.out.Ts(m.ts);
      ctx.out.Field("s", "t");
      ctx.out.End();
    }
    if (!events.stack_samples.empty()) {
      const int64_t stack_tid = ctx.NewTrackId();
      WriteNameMetadata(ctx.out, "thread_name", pid, stack_tid,
                        absl::StrCat(name, " stack samples"));
      WriteSortIndex(ctx.out, "thread_sort_index", pid, stack_tid, base + 2);
      for (uint32_t index : events.stack_samples) {
        WriteStackSample(ctx, tl.stack_samples[index], pid, stack_tid);
      }
    }
    if (events.samples.size() >= 2) {
      std::stable_sort(events.samples.begin(), events.samples.end(),
                       [&](uint32_t a, uint32_t b) {
                         return tl.thread_samples[a].ts <
                                tl.thread_samples[b].ts;
                       });
      const int64_t state_tid = ctx.NewTrackId();
      WriteNameMetadata(ctx.out, "thread_name", pid, state_tid,
                        absl::StrCat(name, " state"));
      WriteSortIndex(ctx.out, "thread_sort_index", pid, state_tid, base + 1);
      WriteStates(ctx, events.samples, pid, state_tid);
    }
  }
}

}  // namespace feedprof::exporter
