// The recorder: hot-path appends, string interning, packet submission, and
// starting/stopping/forking the whole recording machinery.
#include "preload/recorder.h"

#include <pthread.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include "preload/log.h"
#include "preload/recorder_control.h"
#include "preload/recorder_state.h"
#include "preload/reentrancy_guard.h"
#include "preload/trace_writer.h"

namespace feedprof::preload {

constinit thread_local ThreadRecorderState t_recorder
    __attribute__((tls_model("initial-exec"))) = {};

namespace {

constinit RecorderState g_state;

constexpr uint32_t kMaxInternedStrings = 1u << 17;
constexpr size_t kInternArenaBytes = 8u << 20;
constexpr int kStopTimeoutMs = 5000;

pthread_key_t g_thread_exit_key;
pthread_once_t g_thread_exit_once = PTHREAD_ONCE_INIT;

// Runs when a recording thread exits: hand its partly filled chunk to the
// writer.
void OnThreadExit(void*) {
  ThreadRecorderState& t = t_recorder;
  const uint32_t epoch = g_state.epoch.load(std::memory_order_acquire);
  if (t.chunk != nullptr && epoch != 0 && t.epoch == epoch) {
    ChunkPool::Retire(t.chunk);
  }
  t.chunk = nullptr;
}

void CreateThreadExitKey() {
  pthread_key_create(&g_thread_exit_key, OnThreadExit);
}

// Out of line: the thread has no chunk for this epoch, or it is full.
// Returns a chunk with room, or nullptr after counting a drop.
__attribute__((noinline)) EventChunk* ChunkForAppendSlow(uint32_t epoch) {
  ThreadRecorderState& t = t_recorder;
  t.in_call = 1;
  if (t.chunk != nullptr && t.epoch == epoch) ChunkPool::Retire(t.chunk);
  t.chunk = nullptr;
  char name[16] = {};
  prctl(PR_GET_NAME, name);
  EventChunk* c = g_state.pool.Acquire(CurrentTid(), name);
  if (c == nullptr) {
    g_state.events_dropped.fetch_add(1, std::memory_order_relaxed);
  } else {
    t.chunk = c;
    t.epoch = epoch;
    if (g_state.pool.free_chunks() < g_state.pool.chunk_count() / 2) {
      Writer().RequestEarlyDrain();
    }
    if (!t.exit_hook) {
      pthread_once(&g_thread_exit_once, CreateThreadExitKey);
      pthread_setspecific(g_thread_exit_key, reinterpret_cast<void*>(1));
      t.exit_hook = 1;
    }
  }
  t.in_call = 0;
  return c;
}

// The hot path: one relaxed load of the epoch, the thread's chunk, a copy
// and a release store.
template <RecordKind kKind, typename Record>
inline __attribute__((always_inline)) void Append(const Record& record) {
  const uint32_t epoch = g_state.epoch.load(std::memory_order_relaxed);
  ThreadRecorderState& t = t_recorder;
  if (epoch == 0 || t.in_call != 0) [[unlikely]] {
    return;
  }
  EventChunk* c = t.chunk;
  uint32_t i = 0;
  if (c == nullptr || t.epoch != epoch ||
      (i = c->committed.load(std::memory_order_relaxed)) >= kChunkRecords)
      [[unlikely]] {
    c = ChunkForAppendSlow(epoch);
    if (c == nullptr) return;
    i = 0;
  }
  EventRecord& slot = c->records[i];
  slot.kind = kKind;
  if constexpr (kKind == RecordKind::kNvtxRange) {
    slot.range = record;
  } else if constexpr (kKind == RecordKind::kNvtxMark) {
    slot.mark = record;
  } else {
    slot.api = record;
  }
  c->committed.store(i + 1, std::memory_order_release);
}

}  // namespace

RecorderState& State() { return g_state; }

uint32_t CurrentTid() {
  ThreadRecorderState& t = t_recorder;
  if (t.tid == 0) [[unlikely]] {
    t.tid = static_cast<uint32_t>(syscall(SYS_gettid));
  }
  return t.tid;
}

bool RecordingEnabled() {
  return g_state.epoch.load(std::memory_order_relaxed) != 0;
}

uint32_t InternString(std::string_view text) {
  ReentrancyGuard guard;
  if (!guard.entered()) return 0;
  return g_state.strings.Intern(text);
}

void RecordNvtxRange(const NvtxRangeRecord& record) {
  Append<RecordKind::kNvtxRange>(record);
}

void RecordNvtxMark(const NvtxMarkRecord& record) {
  Append<RecordKind::kNvtxMark>(record);
}

void RecordApiCall(const ApiCallRecord& record) {
  Append<RecordKind::kApiCall>(record);
}

bool SubmitPacket(const uint8_t* packet, size_t size) {
  ReentrancyGuard guard;
  if (!guard.entered() || !RecordingEnabled()) return false;
  return g_state.packets.Push(packet, size);
}

void CountDroppedEvents(uint64_t n) {
  g_state.events_dropped.fetch_add(n, std::memory_order_relaxed);
}

void CountDroppedSamples(uint64_t n) {
  g_state.samples_dropped.fetch_add(n, std::memory_order_relaxed);
}

void CountCuptiDrops(uint64_t records_dropped, uint64_t zero_timestamps,
                     uint64_t buffers_dropped) {
  g_state.cupti_records_dropped.fetch_add(records_dropped,
                                          std::memory_order_relaxed);
  g_state.zero_timestamp_records.fetch_add(zero_timestamps,
                                           std::memory_order_relaxed);
  g_state.cupti_buffers_dropped.fetch_add(buffers_dropped,
                                          std::memory_order_relaxed);
}

void FlushNow(int timeout_ms) {
  ReentrancyGuard guard;
  if (!guard.entered()) return;
  Writer().Flush(timeout_ms);
}

// ------------------------------------------------------------- control --

namespace {

void ResetCounters() {
  g_state.events_dropped.store(0, std::memory_order_relaxed);
  g_state.samples_dropped.store(0, std::memory_order_relaxed);
  g_state.cupti_records_dropped.store(0, std::memory_order_relaxed);
  g_state.zero_timestamp_records.store(0, std::memory_order_relaxed);
  g_state.cupti_buffers_dropped.store(0, std::memory_order_relaxed);
  g_state.packets.ResetDropped();
}

uint32_t NextEpoch() {
  uint32_t e = g_state.last_epoch + 1;
  if (e == 0) e = 1;
  g_state.last_epoch = e;
  return e;
}

}  // namespace

bool BeginRecording(const Config& config, TraceOrigin origin) {
  ReentrancyGuard guard;
  if (Writer().running()) return true;
  g_state.config = config;
  SetLogLevel(config.log_level);

  char error[PATH_MAX + 200];
  CloseSessionDir(&g_state.session);
  // A default-named session's token comes with its directory: see
  // session_dir.h.
  const char* token =
      config.session_dir[0] != '\0' ? getenv(kEnvSessionToken) : nullptr;
  if (!OpenSessionDir(config, getpid(), token, &g_state.session, error,
                      sizeof error)) {
    LogWarning("%s; recording is off, the program continues", error);
    return false;
  }
  // The pool holds most of the cap; the packet queue the rest.
  const size_t cap = static_cast<size_t>(config.buffer_mb) << 20;
  const size_t queue_bytes = cap / 8 < (256u << 10) ? (256u << 10) : cap / 8;
  if (!g_state.pool.Init(cap - cap / 8) || !g_state.packets.Init(queue_bytes) ||
      !g_state.strings.Init(kMaxInternedStrings, kInternArenaBytes)) {
    LogWarning(
        "cannot map %u MiB of trace buffers; recording is off "
        "(lower FEEDPROF_BUFFER_MB)",
        config.buffer_mb);
    return false;
  }
  ResetCounters();
  g_state.uses_gpu.store(false, std::memory_order_relaxed);
  // Before any event is timed: no other thread converts TSC reads yet.
  InitTraceClock(DetectTraceClockSource());
  CollectProcessFacts(origin, 0, config.sampling_interval_ns(), &g_state.facts);
  g_state.epoch.store(NextEpoch(), std::memory_order_release);
  if (!Writer().Start()) {
    g_state.epoch.store(0, std::memory_order_release);
    return false;
  }
  LogDebug("recording pid %u into %s", g_state.facts.pid, g_state.session.path);
  return true;
}

void StopRecorder(const char* reason, RecorderSummary* summary) {
  ReentrancyGuard guard;
  *summary = RecorderSummary{};
  if (!Writer().running()) return;
  summary->started = true;
  WriterResult result;
  Writer().Stop(reason, kStopTimeoutMs, &result);
  g_state.epoch.store(0, std::memory_order_release);
  summary->file_written = result.file_written;
  summary->discarded = result.discarded;
  summary->failed = result.failed;
  summary->events = result.events;
  summary->samples = result.samples;
  summary->dropped =
      g_state.events_dropped.load(std::memory_order_relaxed) +
      g_state.samples_dropped.load(std::memory_order_relaxed) +
      g_state.cupti_records_dropped.load(std::memory_order_relaxed) +
      g_state.packets.dropped();
  std::snprintf(summary->path, sizeof summary->path, "%s", result.path);
}

const char* SessionDirPath() { return g_state.session.path; }

void SetPeriodicFlushHook(PeriodicFlushHook hook) {
  g_state.periodic_flush_hook.store(hook, std::memory_order_release);
}

void MarkProcessUsesGpu() {
  g_state.uses_gpu.store(true, std::memory_order_relaxed);
}

bool RecorderSignalFlush(int signal_number, bool final_flush, int timeout_ms) {
  return Writer().SignalFlush(signal_number, final_flush, timeout_ms);
}

bool RecorderExitFlush(int timeout_ms) {
  return Writer().ExitFlush(timeout_ms);
}

// Lock order for fork: strings, then packets, then the writer's mutex. No
// other code path holds two of them at once.
void RecorderPrepareFork() {
  g_state.strings.LockForFork();
  g_state.packets.LockForFork();
  Writer().PrepareFork();
}

void RecorderParentAfterFork() {
  Writer().ParentAfterFork();
  g_state.packets.UnlockAfterFork();
  g_state.strings.UnlockAfterFork();
}

void RecorderChildAfterFork() {
  g_state.strings.ResetMutexInChild();
  g_state.packets.ResetMutexInChild();
  TraceClockAfterForkChild();
  const bool was_running = Writer().running();
  Writer().ChildAfterFork();
  t_recorder.tid = 0;  // the forking thread has a new tid
  t_recorder.chunk = nullptr;
  if (!was_running) {
    g_state.epoch.store(0, std::memory_order_relaxed);
    return;
  }
  // CUDA is unusable after fork: the child's writer never calls into CUPTI.
  g_state.periodic_flush_hook.store(nullptr, std::memory_order_relaxed);
  // Drop the parent's buffered events: they are in the parent's trace.
  g_state.pool.ResetAll();
  g_state.packets.Clear();
  ResetCounters();
  if (!g_state.config.flush_interval_set &&
      g_state.config.flush_interval_ms > kForkedChildFlushIntervalMs) {
    g_state.config.flush_interval_ms = kForkedChildFlushIntervalMs;
  }
  const uint32_t parent = g_state.facts.pid;
  CollectProcessFacts(TraceOrigin::kFork, parent,
                      g_state.config.sampling_interval_ns(), &g_state.facts);
  g_state.epoch.store(NextEpoch(), std::memory_order_release);
  if (!Writer().Start()) g_state.epoch.store(0, std::memory_order_release);
}

}  // namespace feedprof::preload
