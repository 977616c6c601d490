// The recorder: the one internal API every producer inside libfeedprof.so
// uses (NVTX injection, host sampler, CUPTI hooks).
//
// Producers hand it events; it owns the per-thread buffers, the string
// intern table, the single writer thread and the trace file. Hot-path
// functions (Record*) do not allocate, lock or make syscalls beyond reading
// the clock; when a buffer is full the event is dropped and counted.
// Everything here is safe to call before the recorder started or after it
// stopped: calls then do nothing.
#ifndef FEEDPROF_PRELOAD_RECORDER_H_
#define FEEDPROF_PRELOAD_RECORDER_H_

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "preload/event_records.h"
#include "preload/trace_clock.h"

namespace feedprof::preload {

// NowNs(), the one clock of the trace, is in trace_clock.h.

// System thread id of the caller (gettid), cached per thread.
uint32_t CurrentTid();

// True while this process records.
bool RecordingEnabled();

// Interns `text` and returns its id (never 0 for non-empty text, unless the
// table is full: then 0 and a dropped-string count). Thread-safe; the first
// sight of a string takes a lock and is out of line, later sights are a
// lock-free lookup.
uint32_t InternString(std::string_view text);

// Hot path: append one event to the calling thread's buffer.
void RecordNvtxRange(const NvtxRangeRecord& record);
void RecordNvtxMark(const NvtxMarkRecord& record);
void RecordApiCall(const ApiCallRecord& record);

// Hands a fully encoded `Packet` message (its bytes, without the outer
// Trace field tag and length) to the writer thread. Used by producers that
// batch on their own (host sampler, CUPTI buffer completion). Copies the
// bytes; returns false (and counts a drop) when the writer queue is full.
bool SubmitPacket(const uint8_t* packet, size_t size);

// Adds to the drop counters written into the trace. CountDroppedEvents is
// for events a producer could not record before they reached the recorder
// (NVTX ranges nested too deep, a full start/end table, unmatched pops);
// they add to DropCounts.events_dropped.
void CountDroppedEvents(uint64_t n);
void CountDroppedSamples(uint64_t n);
void CountCuptiDrops(uint64_t records_dropped, uint64_t zero_timestamps,
                     uint64_t buffers_dropped);

// Asks the writer to write everything buffered so far and waits up to
// `timeout_ms` for it. Safe from any thread but a signal handler.
void FlushNow(int timeout_ms);

}  // namespace feedprof::preload

#endif  // FEEDPROF_PRELOAD_RECORDER_H_
