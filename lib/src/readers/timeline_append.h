// Appends one file's partial timeline to the timeline of a multi-file read.
//
// A session directory or a multi-rank run is read file by file into partial
// timelines (one per worker thread), each with its own string table and
// call-site table. Appending a partial re-interns its strings in id order
// and shifts its call-site indices past those already there. Appended in
// file order, that gives exactly the ids one table fed every file in turn
// gives: a string's id is fixed by the first Intern of it, and re-interning
// a partial's table in id order interns its new strings in the order the
// file first interned them; strings an earlier file already interned keep
// their ids either way.
//
// Threads, devices, the platform and the availability flags are left to the
// caller: feedprof sessions and Kineto runs merge those differently.
#ifndef FEEDPROF_READERS_TIMELINE_APPEND_H_
#define FEEDPROF_READERS_TIMELINE_APPEND_H_

#include "feedprof/timeline.h"

namespace feedprof::readers {

// Moves the strings, call sites, every event vector, the processes, streams,
// NVTX category names, warnings and drop counts of `part` to the end of
// `into`'s, with string ids and call-site indices rewritten to `into`'s.
// Each of `part`'s vectors is freed once moved. Into a timeline that holds
// nothing yet the vectors are moved whole, without a copy.
void AppendTimelineEvents(Timeline& part, Timeline* into);

// After `bytes_read` of the `total_bytes` of a multi-file read were
// appended to `into`, reserves room in each event vector for the rest at
// the same events per byte (plus 5 %), so that the appends of the files to
// come do not copy the vectors again each time they outgrow them. Reserved
// room that is never filled costs address space, not memory.
void ReserveForTheRest(Timeline* into, uint64_t bytes_read,
                       uint64_t total_bytes);

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
  for (CounterSample& e : t.counters) visit(e.pid);
  for (NvtxCategoryName& e : t.nvtx_categories) visit(e.pid);
  for (StreamInfo& e : t.streams) visit(e.pid);
  for (Platform::NvmlDevice& e : t.platform.nvml_devices) visit(e.pid);
}

}  // namespace feedprof::readers

#endif  // FEEDPROF_READERS_TIMELINE_APPEND_H_
