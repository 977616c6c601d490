// Per-thread CPU time from the scheduler events of an Nsight Systems export.
//
// With `--sample`/`--cpuctxsw` nsys records every context switch of the
// traced threads (SCHED_EVENTS: time, thread, switched in or out). That is
// exactly what feedprof's own host sampler approximates, so it is turned
// into the same form: periodic samples of cumulative on-CPU time and of
// whether the thread is on a CPU. The analyzer then splits host-wait time
// into on-CPU and off-CPU as it does for feedprof traces. What the events
// cannot tell: the user/system split (all on-CPU time is counted as user
// time) and why a thread was off-CPU (state unknown, not I/O or sleep).
#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "nsight/nsight_enums.h"
#include "nsight/nsight_import_context.h"
#include "timeline/time_limits.h"

namespace feedprof::nsight {
namespace {

constexpr TimeNs kSamplePeriodNs = 1'000'000;  // 1 ms, like a fast sampler
constexpr uint64_t kMaxSamples = 5'000'000;    // coarser period beyond this

struct Switch {
  int64_t global_tid = 0;
  TimeNs ts = 0;
  bool in = false;
};

// Samples of one thread's switches [begin, end) at `period`.
void SampleThread(const Switch* begin, const Switch* end, TimeNs period,
                  std::vector<ThreadSample>& out) {
  const GlobalThreadId id = DecodeGlobalId(begin->global_tid);
  const TimeNs first = begin->ts;
  const TimeNs last = (end - 1)->ts;
  bool on_cpu = false;
  TimeNs since = first;  // time of the last switch applied
  TimeNs cumulative = 0;
  const Switch* next = begin;
  auto emit = [&](TimeNs t) {
    while (next != end && next->ts <= t) {
      if (on_cpu) cumulative += next->ts - since;
      since = next->ts;
      on_cpu = next->in;
      ++next;
    }
    ThreadSample& s = out.emplace_back();
    s.ts = t;
    s.pid = id.pid;
    s.tid = id.tid;
    s.user_ns = cumulative + (on_cpu ? t - since : 0);
    s.state = on_cpu ? ThreadState::kRunning : ThreadState::kUnknown;
  };
  for (TimeNs t = first; t < last; t += period) emit(t);
  emit(last);
}

}  // namespace

void ReadThreadScheduling(ImportContext& ctx) {
  if (!ctx.db.HasTable(kSchedEventsTable)) return;
  Timeline& tl = ctx.timeline;
  std::set<int32_t> traced_pids;
  for (const Process& p : tl.processes) traced_pids.insert(p.pid);
  if (traced_pids.empty()) return;

  std::vector<Switch> switches;
  const std::string sql = ctx.db.BuildSelect(
      kSchedEventsTable, {{{"globalTid"}}, {{"start"}}, {{"isSchedIn"}}});
  ctx.ForEachRow(kSchedEventsTable, sql, [&](const Statement& stmt) {
    if (stmt.IsNull(0) || stmt.IsNull(1) || stmt.IsNull(2)) return;
    // Damaged: spans would overflow.
    if (!timeline::TimeInRange(stmt.Int64(1))) return;
    const int64_t global_tid = stmt.Int64(0);
    if (traced_pids.count(DecodeGlobalId(global_tid).pid) == 0) return;
    switches.push_back({global_tid, stmt.Int64(1), stmt.Int64(2) != 0});
  });
  if (switches.empty()) return;
  std::sort(switches.begin(), switches.end(),
            [](const Switch& a, const Switch& b) {
              return a.global_tid != b.global_tid ? a.global_tid < b.global_tid
                                                  : a.ts < b.ts;
            });

  // Per-thread ranges, and a period that keeps the sample count bounded.
  std::vector<std::pair<size_t, size_t>> threads;
  uint64_t total_span = 0;
  for (size_t i = 0; i < switches.size();) {
    size_t j = i;
    while (j < switches.size() &&
           switches[j].global_tid == switches[i].global_tid) {
      ++j;
    }
    threads.emplace_back(i, j);
    const auto span =
        static_cast<uint64_t>(switches[j - 1].ts - switches[i].ts);
    total_span =
        span > UINT64_MAX - total_span ? UINT64_MAX : total_span + span;
    i = j;
  }
  TimeNs period = kSamplePeriodNs;
  if (total_span / static_cast<uint64_t>(period) > kMaxSamples) {
    period = static_cast<TimeNs>(total_span / kMaxSamples + 1);
  }

  std::set<std::pair<int32_t, int32_t>> known;
  for (const Thread& t : tl.threads) known.emplace(t.pid, t.tid);
  for (const auto& [b, e] : threads) {
    SampleThread(&switches[b], &switches[e - 1] + 1, period, tl.thread_samples);
    const GlobalThreadId id = DecodeGlobalId(switches[b].global_tid);
    if (known.emplace(id.pid, id.tid).second) {
      Thread& t = tl.threads.emplace_back();
      t.pid = id.pid;
      t.tid = id.tid;
      t.is_main = id.pid == id.tid;
    }
  }
  tl.available.host_samples = !tl.thread_samples.empty();
}

}  // namespace feedprof::nsight
