// Puts the partial timelines of a multi-file read together.
//
// A session directory or a multi-rank run is read file by file into partial
// timelines (one per worker thread), each with its own string, call-site
// and launch-shape tables. Appending a partial re-interns its strings and
// launch shapes in id order and shifts its call-site indices past those
// already there. Appended in
// file order, that gives exactly the ids one table fed every file in turn
// gives: a string's id is fixed by the first Intern of it, and re-interning
// a partial's table in id order interns its new strings in the order the
// file first interned them; strings an earlier file already interned keep
// their ids either way.
//
// The event vectors are kept apart (PartEvents) until every file is there,
// then merged vector by vector into the timeline in one pass each
// (common/merge_sorted_runs.h), their ids rewritten as they move: appending
// them as each file came and merging the runs afterwards moved every event
// several times.
//
// Threads, devices, the platform and the availability flags are left to the
// caller: feedprof sessions and Kineto runs merge those differently.
#ifndef FEEDPROF_TIMELINE_TIMELINE_APPEND_H_
#define FEEDPROF_TIMELINE_TIMELINE_APPEND_H_

#include <cstddef>
#include <cstdint>
#include <tuple>
#include <utility>
#include <vector>

#include "common/merge_sorted_runs.h"
#include "feedprof/timeline.h"

namespace feedprof::timeline {

// How one part's string ids and call-site indices become the merged
// timeline's.
struct PartIds {
  std::vector<StringId> strings;   // part id -> merged id; empty: the same
  std::vector<uint32_t> launches;  // part launch shape -> merged; empty: same
  uint32_t call_site_offset = 0;

  void Fix(GpuOp& e) const {
    Id(e.name);
    if (!launches.empty()) e.launch = launches[e.launch];
  }
  void Fix(ApiCall& e) const {
    Id(e.name);
    if (e.call_site != 0) e.call_site += call_site_offset;
  }
  void Fix(Range& e) const {
    Id(e.name);
    Id(e.domain);
  }
  void Fix(Mark& e) const {
    Id(e.name);
    Id(e.domain);
  }
  void Fix(CounterSample& e) const { Id(e.name); }
  void Fix(DiskSample& e) const { Id(e.device); }
  void Fix(NfsSample& e) const { Id(e.mount_point); }
  void Fix(StackSample& e) const {
    if (e.stack != 0) e.stack += call_site_offset;
  }
  // Syncs and samples name nothing. (Each type is listed: an event type
  // added later does not compile here until its ids are considered.)
  void Fix(SyncRecord&) const {}
  void Fix(ThreadSample&) const {}
  void Fix(ProcessSample&) const {}
  void Fix(SystemSample&) const {}

 private:
  void Id(StringId& s) const {
    if (!strings.empty()) s = strings[s];
  }
};

// The event vectors of one part, moved out of it to wait for the other
// parts, and the ids they still have.
struct PartEvents {
  std::tuple<std::vector<GpuOp>, std::vector<ApiCall>, std::vector<SyncRecord>,
             std::vector<Range>, std::vector<Mark>, std::vector<ThreadSample>,
             std::vector<ProcessSample>, std::vector<SystemSample>,
             std::vector<DiskSample>, std::vector<NfsSample>,
             std::vector<CounterSample>, std::vector<StackSample>>
      events;
  PartIds ids;

  template <typename T>
  std::vector<T>& Of() {
    return std::get<std::vector<T>>(events);
  }
};

// Moves the strings, call sites, native modules, launch shapes, processes,
// streams, NVTX
// category names, warnings and drop counts of `part` to the end of
// `into`'s, with string ids and call-site indices rewritten to `into`'s,
// and returns `part`'s
// event vectors with what their ids still need (AppendPartEvents or
// MergePartEvents puts them in `into` once every part is taken).
PartEvents TakeTimelineTables(Timeline& part, Timeline* into);

// How many events of type T the parts hold together.
template <typename T>
size_t PartEventCount(std::vector<PartEvents>& parts) {
  size_t count = 0;
  for (PartEvents& part : parts) count += part.Of<T>().size();
  return count;
}

// Moves the events of type T of every part, in part order, to the end of
// `*into`, ids rewritten; the parts' vectors are freed.
template <typename T>
void AppendPartEvents(std::vector<PartEvents>& parts, std::vector<T>* into) {
  into->reserve(into->size() + PartEventCount<T>(parts));
  for (PartEvents& part : parts) {
    std::vector<T>& events = part.Of<T>();
    for (T& e : events) {
      into->push_back(std::move(e));
      part.ids.Fix(into->back());
    }
    std::vector<T>().swap(events);
  }
}

// The same for parts whose events of type T are each sorted by `less`,
// into an empty `*into`: one sorted vector, the earlier part's events first
// on ties, as std::stable_sort of the appended vector would order them.
// Merged on up to `threads` threads when the parts hold enough events
// (common/merge_sorted_runs.h).
template <typename T, typename Less>
void MergePartEvents(std::vector<PartEvents>& parts, std::vector<T>* into,
                     Less less, unsigned threads = 1) {
  std::vector<std::vector<T>*> runs;
  for (PartEvents& part : parts) runs.push_back(&part.Of<T>());
  common::MergeSortedRunsOnThreads(
      runs, into, less, [&parts](size_t run, T& e) { parts[run].ids.Fix(e); },
      threads);
}

// Calls `visit(int32_t& pid)` on every process id `timeline` holds: its
// processes, threads, devices, events, samples, streams and NVML facts (not
// Platform::pid, which is 0 where no snapshot named a process).
template <typename Visit>
void ForEachPid(Timeline& timeline, Visit visit) {
  Timeline& t = timeline;
  for (Process& e : t.processes) visit(e.pid);
  for (Thread& e : t.threads) visit(e.pid);
  for (Device& e : t.devices) visit(e.pid);
  for (GpuOp& e : t.gpu_ops) visit(e.pid);
  for (ApiCall& e : t.api_calls) visit(e.pid);
  for (SyncRecord& e : t.syncs) visit(e.pid);
  for (Range& e : t.ranges) visit(e.pid);
  for (Mark& e : t.marks) visit(e.pid);
  for (ThreadSample& e : t.thread_samples) visit(e.pid);
  for (ProcessSample& e : t.process_samples) visit(e.pid);
  for (SystemSample& e : t.system_samples) visit(e.pid);
  for (DiskSample& e : t.disk_samples) visit(e.pid);
  for (NfsSample& e : t.nfs_samples) visit(e.pid);
  for (CounterSample& e : t.counters) visit(e.pid);
  for (StackSample& e : t.stack_samples) visit(e.pid);
  for (NvtxCategoryName& e : t.nvtx_categories) visit(e.pid);
  for (StreamInfo& e : t.streams) visit(e.pid);
  for (Platform::NvmlDevice& e : t.platform.nvml_devices) visit(e.pid);
}

// Calls `visit(TimeNs& t)` on every time `timeline` holds: its events',
// samples' and counters' times, and its processes' start and end where
// they are known (not both 0).
template <typename Visit>
void ForEachTime(Timeline& timeline, Visit visit) {
  Timeline& t = timeline;
  auto span = [&visit](auto& events) {
    for (auto& e : events) {
      visit(e.start);
      visit(e.end);
    }
  };
  auto instant = [&visit](auto& events) {
    for (auto& e : events) visit(e.ts);
  };
  span(t.gpu_ops);
  span(t.api_calls);
  span(t.syncs);
  span(t.ranges);
  instant(t.marks);
  instant(t.thread_samples);
  instant(t.process_samples);
  instant(t.system_samples);
  instant(t.disk_samples);
  instant(t.nfs_samples);
  instant(t.counters);
  instant(t.stack_samples);
  for (Process& p : t.processes) {
    if (p.start == 0 && p.end == 0) continue;
    visit(p.start);
    visit(p.end);
  }
}

// Moves every time of `timeline` (ForEachTime) by `shift`, onto another
// file's clock, when all of them stay within ±kMaxAbsTimeNs
// (timeline/time_limits.h); returns false, leaving `timeline` as it was, when
// one would not.
bool ShiftTimes(Timeline& timeline, TimeNs shift);

}  // namespace feedprof::timeline

#endif  // FEEDPROF_TIMELINE_TIMELINE_APPEND_H_
