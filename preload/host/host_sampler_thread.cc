#include "preload/host/host_sampler_thread.h"

#include <poll.h>
#include <signal.h>
#include <time.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>

#include "preload/config.h"
#include "preload/private_fd_table.h"
#include "preload/recorder.h"

namespace feedprof::preload::host {
namespace {

constexpr size_t kStackBytes = 256 * 1024;

}  // namespace

HostSamplerThread::HostSamplerThread() = default;

HostSamplerThread::~HostSamplerThread() {
  Stop();
  Release();
  flush_request_.Close();
}

bool HostSamplerThread::Init(const SamplerOptions& options,
                             const SamplerSinks& sinks) {
  Stop();
  Release();
  options_ = options;
  sinks_ = sinks;
  if (options_.interval_ns < kMinIntervalNs) {
    options_.interval_ns = kMinIntervalNs;
  }
  if (options_.packet_bytes < 256) options_.packet_bytes = 256;
  packet_buf_ = static_cast<uint8_t*>(std::malloc(options_.packet_bytes));
  if (packet_buf_ == nullptr) {
    error_ = "out of memory for the sample packet buffer";
    return false;
  }
  encoder_ = HostSampleBatchEncoder(packet_buf_, options_.packet_bytes);
  if (!collector_.Open(options_.collector)) {
    error_ = collector_.error();
    Release();
    return false;
  }
  // Python stacks are an addition: without memory for them, host sampling
  // still runs.
  python_stacks_on_ = false;
  python::PythonStackSinks python_sinks;
  python_sinks.submit_packet = sinks_.submit_packet;
  python_sinks.intern_string = sinks_.intern_string;
  python_sinks.context = sinks_.context;
  if (options_.python_stack_every_rounds != 0) {
    thread_stacks_ = static_cast<python::ThreadStack*>(std::calloc(
        python::PythonStackSampler::kMaxThreads, sizeof(python::ThreadStack)));
    python_stacks_on_ =
        thread_stacks_ != nullptr && python_stacks_.Init(python_sinks);
  } else if (sinks_.submit_packet != nullptr) {
    python_stacks_.MarkDisabled(python_sinks);
  }
  rounds_ = 0;
  skipped_reported_ = 0;
  initialized_ = true;
  return true;
}

void HostSamplerThread::Release() {
  collector_.Close();
  python_stacks_.Release();
  std::free(thread_stacks_);
  thread_stacks_ = nullptr;
  python_stacks_on_ = false;
  std::free(packet_buf_);
  packet_buf_ = nullptr;
  encoder_ = HostSampleBatchEncoder(nullptr, 0);
  initialized_ = false;
}

bool HostSamplerThread::Start() {
  if (running()) return true;
  if (!initialized_) {
    error_ = "the sampler was not initialized";
    return false;
  }
  if (!flush_request_.Open()) {
    error_ = "cannot create the sampling thread's eventfd";
    return false;
  }
  // Asked here, on the starting thread, where an open is safe.
  may_unshare_ = !SeccompFilterActive();
  stop_requested_.store(false, std::memory_order_relaxed);
  // The thread inherits this mask: it must never run the host's signal
  // handlers.
  sigset_t all;
  sigset_t old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  // A small, explicit stack: the default follows RLIMIT_STACK (8 MiB or
  // more of address space) and the sampler needs a few KiB.
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, kStackBytes);
  const int rc = pthread_create(&thread_, &attr, &ThreadMain, this);
  pthread_attr_destroy(&attr);
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  if (rc != 0) {
    error_ = "cannot create the sampling thread";
    return false;
  }
  // Named here too, so the name is there when Start returns
  // ("feedprof-sampler" does not fit the kernel's 15 bytes).
  pthread_setname_np(thread_, kSamplerThreadComm);
  running_.store(true, std::memory_order_release);
  return true;
}

void HostSamplerThread::Stop() {
  if (!running()) return;
  stop_requested_.store(true, std::memory_order_release);
  flush_request_.Wake();
  pthread_join(thread_, nullptr);
  running_.store(false, std::memory_order_release);
}

bool HostSamplerThread::RequestFlush(int timeout_ms) {
  if (!running()) return false;
  return flush_request_.RequestAndWait(timeout_ms);
}

bool HostSamplerThread::RestartAfterFork() {
  // The parent's thread does not exist here, and the eventfds it polls are
  // shared with the parent: open new ones.
  const bool was_running = running();
  running_.store(false, std::memory_order_relaxed);
  stop_requested_.store(false, std::memory_order_relaxed);
  if (!initialized_ || !was_running) return false;
  if (!flush_request_.Reopen()) {
    error_ = "cannot create the sampling thread's eventfd";
    return false;
  }
  // Samples not yet sent belong to the parent, which sends them.
  encoder_ = HostSampleBatchEncoder(packet_buf_, options_.packet_bytes);
  // The child will likely end with _exit: submit batches more often.
  options_.flush_interval_ns =
      std::min<uint64_t>(options_.flush_interval_ns,
                         uint64_t{kForkedChildFlushIntervalMs} * 1000000);
  rounds_ = 0;
  skipped_reported_ = 0;
  if (!collector_.ReopenAfterFork()) {
    error_ = collector_.error();
    return false;
  }
  python_stacks_.ResetAfterFork();  // on, or to say again it is off
  return Start();
}

void* HostSamplerThread::ThreadMain(void* self) {
  // Before the first round, which samples this thread too.
  pthread_setname_np(pthread_self(), kSamplerThreadComm);
  auto* sampler = static_cast<HostSamplerThread*>(self);
  sampler->UsePrivateDescriptors();
  sampler->Loop();
  return nullptr;
}

void HostSamplerThread::UsePrivateDescriptors() {
  // The thread opens /proc files while the program runs (stat files of new
  // threads). In the program's table each open would hold a low number for
  // a moment, one a shell may be about to dup2 onto.
  int keep[16];
  size_t n = collector_.KeptDescriptors(keep, 14);
  keep[n++] = flush_request_.wake_fd();
  keep[n++] = flush_request_.done_fd();
  private_table_.store(may_unshare_ && UsePrivateDescriptorTable(keep, n),
                       std::memory_order_relaxed);
}

void HostSamplerThread::Loop() {
  uint64_t next = NowNs();
  for (;;) {
    SampleRound();
    next += options_.interval_ns;
    const uint64_t now = NowNs();
    // Fell behind (suspended, overloaded): skip the missed rounds instead
    // of sampling in a burst.
    if (next <= now) next = now + options_.interval_ns;
    if (!WaitUntil(next)) break;
  }
  // The last round shows the final CPU times.
  SampleRound();
  FlushBatch();
  // Cached files opened in this thread's own table: closed here, where
  // their numbers mean them.
  if (private_table_.load(std::memory_order_relaxed)) {
    collector_.CloseCachedFiles();
  }
  flush_request_.Served(flush_request_.Pending());
}

bool HostSamplerThread::WaitUntil(uint64_t deadline_ns) {
  for (;;) {
    if (stop_requested_.load(std::memory_order_acquire)) return false;
    ServeFlushRequest();
    const uint64_t now = NowNs();
    if (now >= deadline_ns) return true;
    const uint64_t wait = deadline_ns - now;
    const timespec timeout{static_cast<time_t>(wait / 1000000000ull),
                           static_cast<long>(wait % 1000000000ull)};
    pollfd pfd{flush_request_.wake_fd(), POLLIN, 0};
    ppoll(&pfd, 1, &timeout, nullptr);
    flush_request_.ClearWake();
  }
}

void HostSamplerThread::ServeFlushRequest() {
  const uint32_t request = flush_request_.Pending();
  if (request == 0) return;
  FlushBatch();
  flush_request_.Served(request);
}

void HostSamplerThread::Drop(uint64_t n) {
  if (n != 0 && sinks_.count_dropped_samples != nullptr) {
    sinks_.count_dropped_samples(n, sinks_.context);
  }
}

template <typename Record, typename AddFn>
void HostSamplerThread::Append(const Record& record, AddFn add) {
  if (!encoder_.begun()) {
    encoder_.Begin(record.ts_ns);
    batch_start_ns_ = record.ts_ns;
  }
  if ((encoder_.*add)(record)) return;
  // Packet full: send it and start the next one with this sample.
  FlushBatch();
  encoder_.Begin(record.ts_ns);
  batch_start_ns_ = record.ts_ns;
  if (!(encoder_.*add)(record)) Drop(1);
}

void HostSamplerThread::SampleRound() {
  if (!initialized_) return;
  collector_.CollectThreads(sinks_.intern_string, sinks_.context);

  for (size_t i = 0; i < collector_.announcement_count(); ++i) {
    const ThreadAnnouncement a = collector_.announcement(i);
    // An empty name (a thread gone before its stat was read) would replace
    // the one already announced; a later rename announces it again.
    if (a.name.empty()) continue;
    uint8_t buf[128];
    const size_t n =
        EncodeThreadInfoPacket(a.tid, a.name, a.is_main, buf, sizeof buf);
    if (n != 0 && sinks_.submit_packet != nullptr) {
      sinks_.submit_packet(buf, n, sinks_.context);
    }
  }
  python_stacks_.SubmitDueStatus();
  size_t stacks = 0;
  if (python_stacks_on_ && rounds_.load(std::memory_order_relaxed) %
                                   options_.python_stack_every_rounds ==
                               0) {
    stacks = python_stacks_.SampleRound(
        thread_stacks_, python::PythonStackSampler::kMaxThreads);
  }
  // By tid, so each thread finds its stack in log time (a thousand Python
  // threads would otherwise cost a million comparisons a round).
  const auto by_tid = [](const python::ThreadStack& a,
                         const python::ThreadStack& b) {
    return a.tid < b.tid;
  };
  std::sort(thread_stacks_, thread_stacks_ + stacks, by_tid);
  for (size_t i = 0; i < collector_.thread_count(); ++i) {
    ThreadSampleRecord record = collector_.thread(i);
    const python::ThreadStack* found =
        std::lower_bound(thread_stacks_, thread_stacks_ + stacks,
                         python::ThreadStack{record.tid, 0}, by_tid);
    if (found != thread_stacks_ + stacks && found->tid == record.tid) {
      record.python_stack_id = found->stack_id;
    }
    Append(record, &HostSampleBatchEncoder::AddThread);
  }
  ProcessSampleRecord process;
  if (collector_.CollectProcess(&process)) {
    Append(process, &HostSampleBatchEncoder::AddProcess);
  }
  SystemSampleRecord system;
  if (collector_.CollectSystem(&system)) {
    Append(system, &HostSampleBatchEncoder::AddSystem);
  }
  // The data's disks and NFS mounts: samples every slow_refresh_rounds.
  collector_.CollectStorage(sinks_.intern_string, sinks_.context);
  for (size_t i = 0; i < collector_.disk_sample_count(); ++i) {
    Append(collector_.disk_sample(i), &HostSampleBatchEncoder::AddDisk);
  }
  for (size_t i = 0; i < collector_.nfs_sample_count(); ++i) {
    Append(collector_.nfs_sample(i), &HostSampleBatchEncoder::AddNfs);
  }
  const uint64_t skipped = collector_.threads_skipped();
  Drop(skipped - skipped_reported_);
  skipped_reported_ = skipped;
  rounds_.fetch_add(1, std::memory_order_relaxed);
  if (encoder_.begun() &&
      NowNs() - batch_start_ns_ >= options_.flush_interval_ns) {
    FlushBatch();
  }
}

void HostSamplerThread::FlushBatch() {
  // The Python stack counters travel with each batch: the last one read
  // holds the totals.
  if (python_stacks_on_ &&
      python_stacks_.state() == python::PythonStackState::kOn) {
    python_stacks_.SubmitStatus();
  }
  if (!encoder_.begun()) return;
  const size_t samples = encoder_.sample_count();
  const size_t size = encoder_.Finish();
  if (size == 0) return;
  const bool accepted =
      sinks_.submit_packet != nullptr &&
      sinks_.submit_packet(encoder_.data(), size, sinks_.context);
  if (!accepted) Drop(samples);
}

}  // namespace feedprof::preload::host
