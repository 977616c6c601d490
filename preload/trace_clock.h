// The one clock of the trace: CLOCK_MONOTONIC nanoseconds, read cheaply.
//
// Every host event and (through CUPTI's timestamp callback) every GPU record
// takes its time from NowNs(). A recorded NVTX range needs two reads, so the
// read is most of what a push+pop costs: clock_gettime through the vDSO is
// ~20 ns where the TSC it reads underneath is ~9 ns. When the kernel itself
// keeps CLOCK_MONOTONIC on the TSC (clocksource "tsc") and the TSC is
// invariant (constant_tsc and nonstop_tsc), NowNs() reads the TSC and
// converts it with a (tsc, ns) base and a ns-per-tick slope calibrated
// against clock_gettime; otherwise, and until the first calibration is done
// (kCalibrationNs after InitTraceClock), it calls clock_gettime.
//
// The conversion parameters are refreshed every kRefreshNs of TSC time by
// whichever thread first reads past that point (out of line, no lock: the
// one that wins a flag rewrites them, others use the previous ones or call
// clock_gettime). Each refresh fits the slope over the whole run so far and
// re-anchors to clock_gettime, never backwards: when the converted time ran
// ahead, the next slope is lowered until the clocks meet again. Readers see
// a consistent parameter set through a sequence counter (seqlock); a reader
// that meets a rewrite in progress calls clock_gettime, so it never spins.
#ifndef FEEDPROF_PRELOAD_TRACE_CLOCK_H_
#define FEEDPROF_PRELOAD_TRACE_CLOCK_H_

#include <atomic>
#include <cstdint>
#include <string_view>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace feedprof::preload {

// How NowNs() reads the time.
enum class TraceClockSource : uint8_t {
  kClockGettime = 0,  // clock_gettime(CLOCK_MONOTONIC) on every read
  kTsc = 1,           // the TSC, converted, once calibrated
};

// Shortest baseline of the first slope; reads before it use clock_gettime.
inline constexpr uint64_t kCalibrationNs = 20'000'000;
// How long one set of conversion parameters is used before a refresh.
inline constexpr uint64_t kRefreshNs = 50'000'000;

// True when TSC reads can stand in for CLOCK_MONOTONIC: `clocksource` is
// the content of .../clocksource0/current_clocksource and `cpu_flags` the
// "flags" line of /proc/cpuinfo (or any text holding its words).
bool TscUsableFor(std::string_view clocksource, std::string_view cpu_flags);

// TscUsableFor on this machine's files (x86-64 only; false elsewhere), unless
// FEEDPROF_TSC=0 asks for clock_gettime.
TraceClockSource DetectTraceClockSource();

// Starts the clock on `source`: for kTsc, takes the calibration anchor. Call
// before recording starts (no other thread reads the clock through a
// conversion then); calling it again restarts the calibration.
void InitTraceClock(TraceClockSource source);

// The source NowNs() reads right now (kClockGettime while calibrating).
TraceClockSource ActiveTraceClockSource();

// Fork child: a rewrite the parent's other threads had in progress is
// abandoned (the parameters stay valid: the TSC is the same).
void TraceClockAfterForkChild();

// Conversion of TSC ticks to ns: base_ns + (tsc - base_tsc) * slope, with
// the slope in ns per tick as 32.32 fixed point. `tsc` may be before
// `base_tsc` (another core's read, or a read just before a refresh).
uint64_t TscToNs(uint64_t tsc, uint64_t base_tsc, uint64_t base_ns,
                 uint64_t ns_per_tick_q32);

// CLOCK_MONOTONIC through clock_gettime.
uint64_t MonotonicNs();

namespace trace_clock_internal {

// The published conversion. `sequence` is odd while it is being rewritten;
// `fast_ticks` is how far past `base_tsc` the inline read may convert
// (0: not calibrated or not on the TSC, every read goes out of line).
struct alignas(64) Conversion {
  std::atomic<uint32_t> sequence{0};
  std::atomic<uint64_t> base_tsc{0};
  std::atomic<uint64_t> base_ns{0};
  std::atomic<uint64_t> ns_per_tick_q32{0};
  std::atomic<uint64_t> fast_ticks{0};
};

extern constinit Conversion g_conversion;

// Everything but the inline case: calibration, refresh, clock_gettime.
uint64_t NowNsOutOfLine();

}  // namespace trace_clock_internal

// CLOCK_MONOTONIC in ns: the one clock of the trace (CUPTI's timestamp
// callback is pointed at it too). No lock, no syscall: the TSC or the vDSO.
inline uint64_t NowNs() {
#if defined(__x86_64__)
  using trace_clock_internal::g_conversion;
  const uint32_t sequence =
      g_conversion.sequence.load(std::memory_order_acquire);
  const uint64_t base_tsc =
      g_conversion.base_tsc.load(std::memory_order_relaxed);
  const uint64_t base_ns = g_conversion.base_ns.load(std::memory_order_relaxed);
  const uint64_t slope =
      g_conversion.ns_per_tick_q32.load(std::memory_order_relaxed);
  const uint64_t fast_ticks =
      g_conversion.fast_ticks.load(std::memory_order_relaxed);
  const uint64_t ticks = __rdtsc() - base_tsc;
  std::atomic_thread_fence(std::memory_order_acquire);
  const uint32_t again = g_conversion.sequence.load(std::memory_order_relaxed);
  // One unsigned compare also sends reads before base_tsc out of line; the
  // refresh keeps ticks * slope far below 2^64.
  if ((((sequence ^ again) | (sequence & 1u)) == 0) && ticks < fast_ticks)
      [[likely]] {
    return base_ns + ((ticks * slope) >> 32);
  }
#endif
  return trace_clock_internal::NowNsOutOfLine();
}

}  // namespace feedprof::preload

#endif  // FEEDPROF_PRELOAD_TRACE_CLOCK_H_
