#include "preload/trace_writer.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include "preload/event_batch_encoder.h"
#include "preload/log.h"
#include "preload/recorder.h"
#include "preload/recorder_state.h"
#include "preload/reentrancy_guard.h"
#include "preload/signal_safe_request.h"
#include "preload/trace_framing.h"
#include "preload/trace_packets.h"

#if __has_include("preload/host/platform_snapshot.h")
#include "preload/host/platform_snapshot.h"
#define FEEDPROF_HAVE_PLATFORM_SNAPSHOT 1
#endif

namespace feedprof::preload {
namespace {

constexpr size_t kScratchBytes = 1 << 20;
constexpr size_t kHeaderBytes = 256 << 10;
constexpr size_t kWriteOutThreshold = 256 << 10;
constexpr uint32_t kSeenTidSlots = 8192;  // power of two
constexpr int kDrainTickMs = 50;
// An exec'd process that recorded no events, never used CUDA, burned less
// CPU than this and ended sooner than that leaves no trace file (unless it
// started the session): helper shells and their subshells, ldconfig,
// nvidia-smi. Other fork children are always kept (ProcessIsTrivial).
constexpr uint64_t kTrivialCpuNs = 50 * 1000 * 1000;
constexpr uint64_t kTrivialLifetimeNs = 1000 * 1000 * 1000;

void EncodePlatform(wire::WireWriter& w, uint32_t field_number) {
#ifdef FEEDPROF_HAVE_PLATFORM_SNAPSHOT
  host::EncodePlatformSnapshot(w, field_number);
#else
  (void)w;
  (void)field_number;
#endif
}

std::string_view LookupString(void*, uint32_t id) {
  return State().strings.Get(id);
}

// A shell, by the name of its executable (/proc/self/exe: `sh` is found as
// the shell it links to). Its forks that do not exec (`$(...)`, the builtin
// side of a pipeline, the many subshells of pyenv's shims) are helpers.
bool ExecutableIsShell(const char* path) {
  static constexpr const char* kShells[] = {
      "sh",   "bash", "dash", "ash",  "zsh",     "ksh", "ksh93", "mksh",
      "lksh", "yash", "posh", "fish", "busybox", "csh", "tcsh"};
  const char* slash = std::strrchr(path, '/');
  const char* name = slash != nullptr ? slash + 1 : path;
  for (const char* shell : kShells) {
    if (std::strcmp(name, shell) == 0) return true;
  }
  return false;
}

uint64_t ProcessCpuNs() {
  timespec ts;
  if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0) return UINT64_MAX;
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull +
         static_cast<uint64_t>(ts.tv_nsec);
}

int64_t MonotonicMs() { return static_cast<int64_t>(NowNs() / 1000000); }

// Reads one varint at `*pos`; false past `size` or after 10 bytes.
bool ReadVarint(const uint8_t* data, size_t size, size_t* pos,
                uint64_t* value) {
  *value = 0;
  for (int shift = 0; shift < 64 && *pos < size; shift += 7) {
    const uint8_t byte = data[(*pos)++];
    *value |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) return true;
  }
  return false;
}

// The tid a producer's ThreadInfo packet names (Packet.thread, field 8,
// whose first field is ThreadInfo.tid); 0 for any other packet.
uint32_t ThreadInfoPacketTid(const uint8_t* packet, size_t size) {
  constexpr uint8_t kThreadTag = (kPacketThread << 3) | 2;
  constexpr uint8_t kTidTag = (1 << 3) | 0;
  if (size < 4 || packet[0] != kThreadTag) return 0;
  size_t pos = 1;
  uint64_t length = 0;
  uint64_t tid = 0;
  if (!ReadVarint(packet, size, &pos, &length) || pos >= size ||
      packet[pos++] != kTidTag || !ReadVarint(packet, size, &pos, &tid)) {
    return 0;
  }
  return static_cast<uint32_t>(tid);
}

// How many events or samples a producer's packet carries: the repeated
// message fields of an EventBatch (field 3), HostSampleBatch (4) or
// CounterBatch (5) — every length-delimited field inside, the batches'
// other fields being varints. For the summary line only; 0 for anything
// else or anything malformed.
struct PacketItems {
  uint64_t events = 0;
  uint64_t samples = 0;
};
PacketItems CountPacketItems(const uint8_t* packet, size_t size) {
  PacketItems items;
  size_t pos = 0;
  uint64_t tag = 0;
  uint64_t length = 0;
  if (!ReadVarint(packet, size, &pos, &tag) || (tag & 7) != 2 ||
      !ReadVarint(packet, size, &pos, &length) || length > size - pos) {
    return items;
  }
  const uint64_t field = tag >> 3;
  if (field != kPacketEvents && field != kPacketHostSamples &&
      field != kPacketCounters) {
    return items;
  }
  const size_t end = pos + length;
  uint64_t count = 0;
  while (pos < end) {
    uint64_t inner = 0;
    uint64_t value = 0;
    if (!ReadVarint(packet, end, &pos, &inner)) return items;
    switch (inner & 7) {
      case 0:  // varint
        if (!ReadVarint(packet, end, &pos, &value)) return items;
        break;
      case 1:  // fixed64
        pos += 8;
        break;
      case 2:  // a repeated message: one item
        if (!ReadVarint(packet, end, &pos, &value) || value > end - pos) {
          return items;
        }
        pos += value;
        ++count;
        break;
      case 5:  // fixed32
        pos += 4;
        break;
      default:
        return items;
    }
  }
  (field == kPacketEvents ? items.events : items.samples) = count;
  return items;
}

}  // namespace

TraceWriter& Writer() {
  static constinit TraceWriter writer;
  return writer;
}

bool TraceWriter::Start() {
  if (scratch_ == nullptr) {
    scratch_ = static_cast<uint8_t*>(std::malloc(kScratchBytes));
    header_ = static_cast<uint8_t*>(std::malloc(kHeaderBytes));
    seen_tids_ =
        static_cast<uint32_t*>(std::calloc(kSeenTidSlots, sizeof(uint32_t)));
    if (scratch_ == nullptr || header_ == nullptr || seen_tids_ == nullptr) {
      LogWarning(
          "cannot allocate the trace writer's buffers; recording is "
          "off");
      return false;
    }
    scratch_size_ = kScratchBytes;
    header_capacity_ = kHeaderBytes;
  }
  std::memset(seen_tids_, 0, kSeenTidSlots * sizeof(uint32_t));
  out_ = wire::WireWriter(scratch_, scratch_size_);
  ended_ = false;
  strings_emitted_ = 0;
  events_written_.store(0, std::memory_order_relaxed);
  packet_events_written_ = 0;
  samples_written_ = 0;
  has_last_status_ = false;
  result_ = WriterResult{};
  stop_requested_.store(false, std::memory_order_relaxed);
  exit_requested_.store(false, std::memory_order_relaxed);
  final_signal_.store(0, std::memory_order_relaxed);
  flush_requested_.store(0, std::memory_order_relaxed);
  flush_done_ = 0;

  // The header (with the platform snapshot, which reads /proc and /sys) and
  // the file are prepared here, on the thread that starts recording, never
  // on the writer thread: see trace_file.h.
  wire::WireWriter header(header_, header_capacity_);
  EncodeHeaderPacket(State().facts, EncodePlatform, header);
  if (header.overflowed()) {  // a huge platform: keep the essentials
    header.Truncate(0);
    EncodeHeaderPacket(State().facts, nullptr, header);
  }
  file_.Open(&State().session, &State().facts, header_, header.size());
  if (file_.failed()) {
    LogWarning("%s; recording is off, the program continues",
               file_.error_message());
    return false;
  }

  if (!signal_flush_.Open()) {
    LogWarning(
        "cannot create the trace writer's eventfd: %s; recording is "
        "off",
        std::strerror(errno));
    return false;
  }

  // The writer must not take the host's signals: block them all in the new
  // thread (it inherits the mask of the creating thread).
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  running_.store(true, std::memory_order_release);
  const int rc = pthread_create(&thread_, nullptr, ThreadMain, this);
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  if (rc != 0) {
    running_.store(false, std::memory_order_release);
    LogWarning("cannot start the trace writer thread: %s; recording is off",
               std::strerror(rc));
    return false;
  }
  return true;
}

void* TraceWriter::ThreadMain(void* self) {
  t_recorder.in_call = 1;  // nothing this thread does is recorded
  pthread_setname_np(pthread_self(), "feedprof-writer");
  static_cast<TraceWriter*>(self)->Run();
  return nullptr;
}

void TraceWriter::Wake() { signal_flush_.Wake(); }

void TraceWriter::Run() {
  const int64_t interval_ms = State().config.flush_interval_ms;
  int64_t next_flush_ms = MonotonicMs() + interval_ms;
  for (;;) {
    const int64_t now_ms = MonotonicMs();
    int64_t wait_ms = next_flush_ms - now_ms;
    if (wait_ms > kDrainTickMs) wait_ms = kDrainTickMs;
    if (wait_ms < 0) wait_ms = 0;
    pollfd pfd{signal_flush_.wake_fd(), POLLIN, 0};
    poll(&pfd, 1, static_cast<int>(wait_ms));
    signal_flush_.ClearWake();
    drain_requested_.store(false, std::memory_order_relaxed);

    const bool stopping = stop_requested_.load(std::memory_order_acquire);
    const uint32_t signal_seq = signal_flush_.Pending();
    // ExitFlush sets the flag before its request: seen with the request.
    const bool exiting =
        signal_seq != 0 && exit_requested_.load(std::memory_order_acquire);
    const uint64_t flush_seq = flush_requested_.load(std::memory_order_acquire);
    const bool periodic = MonotonicMs() >= next_flush_ms;
    const bool signal_flush = signal_seq != 0;
    const bool requested = flush_seq != flush_done_;

    if (!ended_) {
      if (periodic && !stopping && !exiting) CallPeriodicFlushHook();
      Drain();
      if (stopping) {
        FinishTrace(stop_reason_);
      } else if (exiting) {
        FinishTrace("exit");
      } else if (periodic || signal_flush || requested) {
        AppendStatusPackets();
        const int sig = final_signal_.load(std::memory_order_acquire);
        if (signal_flush && sig != 0) {
          AppendFooter("signal", sig);
          ended_ = true;
        }
        // A periodic flush of a process that is still trivial leaves its
        // file unnamed: a helper that ends soon leaves nothing behind. A
        // fork child is never trivial: its first flush names its file.
        const bool stay_unnamed = periodic && !signal_flush && !requested &&
                                  !file_.created() && ProcessIsTrivial();
        if (!stay_unnamed) WriteOut();
      } else if (out_.size() >= kWriteOutThreshold) {
        WriteOut();
      }
    }
    if (periodic) next_flush_ms = MonotonicMs() + interval_ms;

    signal_flush_.Served(signal_seq);
    if (requested || stopping) {
      pthread_mutex_lock(&mutex_);
      flush_done_ = flush_seq;
      pthread_cond_broadcast(&flushed_);
      pthread_mutex_unlock(&mutex_);
    }
    if (stopping) break;
  }
  file_.Close();
  result_.file_written = file_.created() && !result_.discarded;
  result_.failed = file_.failed();
  result_.events =
      events_written_.load(std::memory_order_relaxed) + packet_events_written_;
  result_.samples = samples_written_;
  std::snprintf(result_.path, sizeof result_.path, "%s", file_.path());
}

void TraceWriter::CallPeriodicFlushHook() {
  void (*hook)() = State().periodic_flush_hook.load(std::memory_order_acquire);
  if (hook == nullptr) return;
  // Outside the guard: what the hook submits from this thread (CUPTI
  // delivers completed buffers on the flushing thread) is accepted.
  t_recorder.in_call = 0;
  hook();
  t_recorder.in_call = 1;
}

void TraceWriter::FinishTrace(const char* reason) {
  AppendStatusPackets();
  AppendFooter(reason, 0);
  ended_ = true;
  if (ProcessIsTrivial()) {
    file_.Remove();  // an unnamed file just vanishes
    out_.Truncate(0);
    result_.discarded = true;
    return;
  }
  WriteOut();
}

bool TraceWriter::ProcessIsTrivial() const {
  const RecorderState& s = State();
  if (s.facts.origin == TraceOrigin::kFork) {
    // A fork child (no exec) is part of its program's work, a DataLoader
    // or multiprocessing worker however short: always kept. A shell's
    // subshell is a helper like the shell. It inherits `created` but is not
    // the process the user started.
    if (!ExecutableIsShell(s.facts.executable)) return false;
  } else if (s.session.created) {
    // The process the user started (it started the session, perhaps
    // before an exec of its own) is always kept.
    return false;
  }
  if (events_written_.load(std::memory_order_relaxed) != 0) return false;
  if (s.uses_gpu.load(std::memory_order_relaxed)) return false;
  if (NowNs() - s.facts.start_monotonic_ns >= kTrivialLifetimeNs) return false;
  return ProcessCpuNs() < kTrivialCpuNs;
}

bool TraceWriter::EnsureRoom(size_t bytes) {
  if (out_.remaining() >= bytes) return true;
  WriteOut();
  return out_.remaining() >= bytes;
}

void TraceWriter::WriteOut() {
  if (out_.size() == 0) return;
  if (!file_.failed()) {
    if (!file_.Write(out_.data(), out_.size())) DisableAfterFailure();
  }
  out_.Truncate(0);
}

void TraceWriter::DisableAfterFailure() {
  State().epoch.store(0, std::memory_order_release);
  LogWarning("%s; recording is off, the program continues",
             file_.error_message());
}

void TraceWriter::Drain() {
  State().packets.Drain(
      [](void* self, const uint8_t* packet, size_t size) {
        static_cast<TraceWriter*>(self)->AppendPacket(packet, size);
      },
      this);
  DrainChunks();
}

void TraceWriter::AppendPacket(const uint8_t* packet, size_t size) {
  EmitNewStrings();
  // A name given by the program (nvtxNameOsThread) or read by the sampler
  // is already in the trace: the chunk's name is not written after it.
  if (const uint32_t tid = ThreadInfoPacketTid(packet, size)) MarkTidSeen(tid);
  const PacketItems items = CountPacketItems(packet, size);
  packet_events_written_ += items.events;
  samples_written_ += items.samples;
  const size_t framing = 1 + wire::VarintSize(size);
  if (EnsureRoom(framing + size)) {
    out_.Tag(kTracePacketField, wire::WireType::kLengthDelimited);
    out_.RawVarint(size);
    out_.RawBytes(packet, size);
    return;
  }
  // Larger than the scratch buffer: write it straight through.
  uint8_t frame[1 + wire::kMaxVarintBytes];
  frame[0] = (kTracePacketField << 3) |
             static_cast<uint8_t>(wire::WireType::kLengthDelimited);
  const uint8_t* end = wire::WriteVarint(size, frame + 1);
  if (file_.failed()) return;
  if (!file_.Write(frame, static_cast<size_t>(end - frame)) ||
      !file_.Write(packet, size)) {
    DisableAfterFailure();
  }
}

void TraceWriter::DrainChunks() {
  ChunkPool& pool = State().pool;
  const size_t touched = pool.touched();
  for (size_t i = 0; i < touched; ++i) {
    EventChunk* c = pool.chunk(i);
    const uint32_t state = c->state.load(std::memory_order_acquire);
    if (state != static_cast<uint32_t>(ChunkState::kActive) &&
        state != static_cast<uint32_t>(ChunkState::kRetired)) {
      continue;
    }
    const uint32_t committed = c->committed.load(std::memory_order_acquire);
    if (committed > c->drained) {
      EmitNewStrings();
      EmitThreadInfo(c->tid, c->thread_name);
      while (c->drained < committed) {
        size_t n = EncodeEventBatch(c->tid, c->records + c->drained,
                                    committed - c->drained, out_);
        if (n == 0) {
          WriteOut();
          n = EncodeEventBatch(c->tid, c->records + c->drained,
                               committed - c->drained, out_);
          if (n == 0) break;  // cannot happen with an empty scratch
        }
        c->drained += static_cast<uint32_t>(n);
        events_written_.fetch_add(n, std::memory_order_relaxed);
      }
    }
    if (state == static_cast<uint32_t>(ChunkState::kRetired) &&
        c->drained == committed) {
      pool.Release(c);
    }
  }
}

void TraceWriter::EmitNewStrings() {
  const uint32_t published = State().strings.count();
  while (strings_emitted_ < published) {
    uint32_t last = EncodeStringsPacket(strings_emitted_ + 1, published,
                                        LookupString, nullptr, 16, out_);
    if (last == strings_emitted_) {
      WriteOut();
      last = EncodeStringsPacket(strings_emitted_ + 1, published, LookupString,
                                 nullptr, 16, out_);
      if (last == strings_emitted_) return;
    }
    strings_emitted_ = last;
  }
}

bool TraceWriter::MarkTidSeen(uint32_t tid) {
  uint32_t slot = (tid * 2654435761u) & (kSeenTidSlots - 1);
  for (uint32_t probes = 0;; ++probes) {
    if (probes == kSeenTidSlots / 2) return false;  // full: skip the info
    if (seen_tids_[slot] == tid) return false;
    if (seen_tids_[slot] == 0) break;
    slot = (slot + 1) & (kSeenTidSlots - 1);
  }
  seen_tids_[slot] = tid;
  return true;
}

void TraceWriter::EmitThreadInfo(uint32_t tid, const char* name) {
  // No name (the thread exited before it was read, or never had one) says
  // nothing: the tid stays unseen so a later chunk with a name is written,
  // and a name written earlier is never replaced by an empty one.
  if (tid == 0 || name == nullptr || name[0] == '\0') return;
  if (!MarkTidSeen(tid) || !EnsureRoom(128)) return;
  EncodeThreadInfoPacket(tid, name, tid == State().facts.pid, out_);
}

void TraceWriter::AppendStatusPackets() {
  const RecorderState& s = State();
  DropTotals t;
  t.events_recorded = events_written_.load(std::memory_order_relaxed);
  t.events_dropped = s.events_dropped.load(std::memory_order_relaxed);
  t.cupti_records_dropped =
      s.cupti_records_dropped.load(std::memory_order_relaxed);
  t.zero_timestamp_records =
      s.zero_timestamp_records.load(std::memory_order_relaxed);
  t.cupti_buffers_dropped =
      s.cupti_buffers_dropped.load(std::memory_order_relaxed);
  t.strings_dropped = s.strings.dropped();
  t.samples_dropped = s.samples_dropped.load(std::memory_order_relaxed);
  t.packets_dropped = s.packets.dropped();
  // Written when a count other than the byte count moved since the last
  // one, and always at the end.
  const bool final_packet = stop_requested_.load(std::memory_order_relaxed) ||
                            exit_requested_.load(std::memory_order_relaxed) ||
                            final_signal_.load(std::memory_order_relaxed) != 0;
  if (!final_packet && has_last_status_ &&
      std::memcmp(&t, &last_status_, sizeof t) == 0) {
    return;
  }
  last_status_ = t;
  has_last_status_ = true;
  t.bytes_written = file_.bytes_written() + out_.size();
  if (!EnsureRoom(160)) return;
  EncodeClockSnapshotPacket(NowNs(), RealtimeNs(), out_);
  EncodeDropCountsPacket(t, out_);
}

void TraceWriter::AppendFooter(const char* reason, int signal_number) {
  if (!EnsureRoom(64)) return;
  EncodeFooterPacket(NowNs(), reason, signal_number, out_);
}

void TraceWriter::Flush(int timeout_ms) {
  if (!running() || pthread_equal(pthread_self(), thread_)) return;
  pthread_mutex_lock(&mutex_);
  const uint64_t want =
      flush_requested_.fetch_add(1, std::memory_order_acq_rel) + 1;
  Wake();
  timespec deadline;
  clock_gettime(CLOCK_REALTIME, &deadline);
  deadline.tv_sec += timeout_ms / 1000;
  deadline.tv_nsec += static_cast<long>(timeout_ms % 1000) * 1000000;
  if (deadline.tv_nsec >= 1000000000) {
    deadline.tv_sec += 1;
    deadline.tv_nsec -= 1000000000;
  }
  while (flush_done_ < want && running()) {
    if (pthread_cond_timedwait(&flushed_, &mutex_, &deadline) == ETIMEDOUT) {
      break;
    }
  }
  pthread_mutex_unlock(&mutex_);
}

bool TraceWriter::SignalFlush(int signal_number, bool final_flush,
                              int timeout_ms) {
  if (!running_.load(std::memory_order_acquire)) return false;
  if (final_flush) {
    final_signal_.store(signal_number, std::memory_order_release);
  }
  return signal_flush_.RequestAndWait(timeout_ms);
}

bool TraceWriter::ExitFlush(int timeout_ms) {
  if (!running_.load(std::memory_order_acquire)) return false;
  exit_requested_.store(true, std::memory_order_release);
  return signal_flush_.RequestAndWait(timeout_ms);
}

void TraceWriter::Stop(const char* reason, int timeout_ms,
                       WriterResult* result) {
  *result = WriterResult{};
  if (!running()) return;
  stop_reason_ = reason;
  stop_requested_.store(true, std::memory_order_release);
  Wake();
  timespec deadline;
  clock_gettime(CLOCK_REALTIME, &deadline);
  deadline.tv_sec += timeout_ms / 1000 + 1;
  const int rc = pthread_timedjoin_np(thread_, nullptr, &deadline);
  running_.store(false, std::memory_order_release);
  if (rc != 0) {
    LogWarning(
        "the trace writer did not finish in time; the trace may be "
        "incomplete");
    return;
  }
  *result = result_;
}

void TraceWriter::ChildAfterFork() {
  // Only the forking thread exists here: reset everything the parent's
  // writer thread owned, without touching the parent's file.
  running_.store(false, std::memory_order_relaxed);
  pthread_mutex_init(&mutex_, nullptr);
  pthread_cond_init(&flushed_, nullptr);
  file_.Close();  // the child's copy of the parent's descriptor
  // The parent's writer polls the inherited eventfds: the child gets its
  // own.
  signal_flush_.Reopen();
}

}  // namespace feedprof::preload
