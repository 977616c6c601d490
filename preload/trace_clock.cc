// Calibration and refresh of the TSC conversion; see trace_clock.h.
#include "preload/trace_clock.h"

#include <cstdlib>
#include <cstring>
#include <ctime>

#include "preload/small_file.h"

namespace feedprof::preload {
namespace trace_clock_internal {

constinit Conversion g_conversion;

}  // namespace trace_clock_internal

namespace {

using trace_clock_internal::g_conversion;

// A TSC value and the CLOCK_MONOTONIC time read at (about) the same moment.
struct ClockPair {
  uint64_t tsc;
  uint64_t ns;
};

// Set by InitTraceClock only (before other threads convert).
constinit std::atomic<bool> g_tsc_wanted{false};
constinit std::atomic<bool> g_calibrated{false};
// Taken (never waited for) by the one thread that rewrites g_conversion.
constinit std::atomic<bool> g_updating{false};
// Written only by the thread holding g_updating (or InitTraceClock).
constinit ClockPair g_anchor{};

#if defined(__x86_64__)
uint64_t OrderedTsc() {
  _mm_lfence();
  const uint64_t tsc = __rdtsc();
  _mm_lfence();
  return tsc;
}

// The pair with the narrowest TSC window around its clock_gettime, out of a
// few tries (an interrupt between the reads widens a window).
ClockPair ReadClockPair() {
  ClockPair best{0, 0};
  uint64_t best_window = UINT64_MAX;
  for (int i = 0; i < 5; ++i) {
    const uint64_t before = OrderedTsc();
    const uint64_t ns = MonotonicNs();
    const uint64_t after = OrderedTsc();
    if (after - before < best_window) {
      best_window = after - before;
      best = ClockPair{before + (after - before) / 2, ns};
    }
  }
  return best;
}
#endif

// ns per tick, 32.32 fixed point, between two pairs.
uint64_t SlopeQ32(const ClockPair& from, const ClockPair& to) {
  const uint64_t ticks = to.tsc - from.tsc;
  if (ticks == 0 || to.ns <= from.ns) return 0;
  __extension__ using Wide = unsigned __int128;
  return static_cast<uint64_t>((static_cast<Wide>(to.ns - from.ns) << 32) /
                               ticks);
}

void Publish(uint64_t base_tsc, uint64_t base_ns, uint64_t slope,
             uint64_t fast_ticks) {
  const uint32_t sequence =
      g_conversion.sequence.load(std::memory_order_relaxed);
  g_conversion.sequence.store(sequence + 1, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);
  g_conversion.base_tsc.store(base_tsc, std::memory_order_relaxed);
  g_conversion.base_ns.store(base_ns, std::memory_order_relaxed);
  g_conversion.ns_per_tick_q32.store(slope, std::memory_order_relaxed);
  g_conversion.fast_ticks.store(fast_ticks, std::memory_order_relaxed);
  g_conversion.sequence.store(sequence + 2, std::memory_order_release);
}

// Ticks that make kRefreshNs at `slope`.
uint64_t RefreshTicks(uint64_t slope) {
  return slope == 0 ? 0 : (kRefreshNs << 32) / slope;
}

#if defined(__x86_64__)
// Holder of g_updating: calibrates (first time) or refreshes the
// conversion at `now`, and returns the time of `now` on the trace clock.
uint64_t UpdateConversion(const ClockPair& now) {
  if (!g_calibrated.load(std::memory_order_relaxed)) {
    if (now.ns - g_anchor.ns < kCalibrationNs) return now.ns;
    const uint64_t slope = SlopeQ32(g_anchor, now);
    if (slope == 0) return now.ns;
    Publish(now.tsc, now.ns, slope, RefreshTicks(slope));
    g_calibrated.store(true, std::memory_order_release);
    return now.ns;
  }
  // The time the current parameters give `now`: the new base may not be
  // earlier, or a range open across the refresh could end before it began.
  const uint64_t converted =
      TscToNs(now.tsc, g_conversion.base_tsc.load(std::memory_order_relaxed),
              g_conversion.base_ns.load(std::memory_order_relaxed),
              g_conversion.ns_per_tick_q32.load(std::memory_order_relaxed));
  const uint64_t base_ns = converted > now.ns ? converted : now.ns;
  // The slope over the whole run, lowered so that a lead over
  // CLOCK_MONOTONIC is gone by the next refresh.
  const uint64_t fitted = SlopeQ32(g_anchor, now);
  if (fitted == 0) return base_ns;
  const uint64_t refresh_ticks = RefreshTicks(fitted);
  const uint64_t lead = base_ns - now.ns;
  uint64_t slope = fitted;
  if (lead > 0 && refresh_ticks > 0) {
    const uint64_t lowering = (lead << 32) / refresh_ticks;
    slope = lowering < fitted / 2 ? fitted - lowering : fitted / 2;
  }
  Publish(now.tsc, base_ns, slope, RefreshTicks(slope));
  return base_ns;
}
#endif

}  // namespace

bool TscUsableFor(std::string_view clocksource, std::string_view cpu_flags) {
  while (!clocksource.empty() &&
         (clocksource.back() == '\n' || clocksource.back() == ' ')) {
    clocksource.remove_suffix(1);
  }
  if (clocksource != "tsc") return false;
  bool constant = false;
  bool nonstop = false;
  size_t begin = 0;
  while (begin < cpu_flags.size()) {
    size_t end = cpu_flags.find_first_of(" \t\n", begin);
    if (end == std::string_view::npos) end = cpu_flags.size();
    const std::string_view word = cpu_flags.substr(begin, end - begin);
    constant = constant || word == "constant_tsc";
    nonstop = nonstop || word == "nonstop_tsc";
    begin = end + 1;
  }
  return constant && nonstop;
}

namespace {

// The first "flags" line of /proc/cpuinfo (every CPU lists the same TSC
// flags), or an empty view.
std::string_view FirstCpuFlagsLine(char* buffer, size_t size) {
  const std::string_view text(buffer,
                              ReadSmallFile("/proc/cpuinfo", buffer, size));
  size_t line = 0;
  while (line < text.size()) {
    size_t end = text.find('\n', line);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view current = text.substr(line, end - line);
    if (current.substr(0, 5) == "flags") return current;
    line = end + 1;
  }
  return {};
}

}  // namespace

TraceClockSource DetectTraceClockSource() {
#if defined(__x86_64__)
  const char* wanted = std::getenv("FEEDPROF_TSC");
  if (wanted != nullptr && std::strcmp(wanted, "0") == 0) {
    return TraceClockSource::kClockGettime;
  }
  char clocksource[64];
  const size_t n = ReadSmallFile(
      "/sys/devices/system/clocksource/clocksource0/current_clocksource",
      clocksource, sizeof clocksource);
  // A CPU's block in /proc/cpuinfo is a few KiB; its flags line comes first.
  char cpuinfo[16384];
  if (TscUsableFor(std::string_view(clocksource, n),
                   FirstCpuFlagsLine(cpuinfo, sizeof cpuinfo))) {
    return TraceClockSource::kTsc;
  }
#endif
  return TraceClockSource::kClockGettime;
}

void InitTraceClock(TraceClockSource source) {
  // A control path may wait: a reader of a restarted recording may be
  // refreshing the conversion right now, and Publish has one writer.
  while (g_updating.exchange(true, std::memory_order_acquire)) {
  }
  g_calibrated.store(false, std::memory_order_relaxed);
  Publish(0, 0, 0, 0);  // every read out of line until calibrated
  bool tsc = false;
#if defined(__x86_64__)
  if (source == TraceClockSource::kTsc) {
    g_anchor = ReadClockPair();
    tsc = true;
  }
#endif
  (void)source;
  g_tsc_wanted.store(tsc, std::memory_order_release);
  g_updating.store(false, std::memory_order_release);
}

TraceClockSource ActiveTraceClockSource() {
  return g_conversion.fast_ticks.load(std::memory_order_relaxed) != 0
             ? TraceClockSource::kTsc
             : TraceClockSource::kClockGettime;
}

void TraceClockAfterForkChild() {
  g_updating.store(false, std::memory_order_relaxed);
  const uint32_t sequence =
      g_conversion.sequence.load(std::memory_order_relaxed);
  if (sequence & 1u) {
    // The parent's thread stopped mid-rewrite: start the calibration over.
    g_conversion.sequence.store(sequence + 1, std::memory_order_relaxed);
    InitTraceClock(g_tsc_wanted.load(std::memory_order_relaxed)
                       ? TraceClockSource::kTsc
                       : TraceClockSource::kClockGettime);
  }
}

uint64_t TscToNs(uint64_t tsc, uint64_t base_tsc, uint64_t base_ns,
                 uint64_t ns_per_tick_q32) {
  __extension__ using Wide = unsigned __int128;
  if (tsc >= base_tsc) {
    return base_ns +
           static_cast<uint64_t>(
               (static_cast<Wide>(tsc - base_tsc) * ns_per_tick_q32) >> 32);
  }
  const auto back = static_cast<uint64_t>(
      (static_cast<Wide>(base_tsc - tsc) * ns_per_tick_q32) >> 32);
  return back < base_ns ? base_ns - back : 0;
}

uint64_t MonotonicNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull +
         static_cast<uint64_t>(ts.tv_nsec);
}

namespace trace_clock_internal {

uint64_t NowNsOutOfLine() {
#if defined(__x86_64__)
  if (!g_tsc_wanted.load(std::memory_order_acquire)) return MonotonicNs();
  if (!g_calibrated.load(std::memory_order_acquire)) {
    // Calibrating: clock_gettime until the baseline is long enough.
    const uint64_t ns = MonotonicNs();
    if (ns - g_anchor.ns < kCalibrationNs) return ns;
  } else {
    // Past the inline range by little (a read on a core whose TSC lags the
    // one that refreshed, or just past the range while another thread is
    // refreshing): the same conversion, in 128 bits.
    const uint32_t sequence =
        g_conversion.sequence.load(std::memory_order_acquire);
    const uint64_t base_tsc =
        g_conversion.base_tsc.load(std::memory_order_relaxed);
    const uint64_t base_ns =
        g_conversion.base_ns.load(std::memory_order_relaxed);
    const uint64_t slope =
        g_conversion.ns_per_tick_q32.load(std::memory_order_relaxed);
    const uint64_t tsc = __rdtsc();
    std::atomic_thread_fence(std::memory_order_acquire);
    const bool stable =
        (sequence & 1u) == 0 &&
        sequence == g_conversion.sequence.load(std::memory_order_relaxed);
    if (stable && tsc < base_tsc) return TscToNs(tsc, base_tsc, base_ns, slope);
    if (g_updating.load(std::memory_order_relaxed)) {
      return stable ? TscToNs(tsc, base_tsc, base_ns, slope) : MonotonicNs();
    }
  }
  if (!g_updating.exchange(true, std::memory_order_acquire)) {
    const uint64_t now = UpdateConversion(ReadClockPair());
    g_updating.store(false, std::memory_order_release);
    return now;
  }
#endif
  return MonotonicNs();
}

}  // namespace trace_clock_internal

}  // namespace feedprof::preload
