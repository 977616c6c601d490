#include "preload/host/host_sample_batch_encoder.h"

#include "preload/trace_framing.h"

namespace feedprof::preload::host {
namespace {

// Field numbers of HostSampleBatch (proto/feedprof.proto).
constexpr uint32_t kBatchBaseTs = 1;
constexpr uint32_t kBatchThreads = 2;
constexpr uint32_t kBatchProcess = 3;
constexpr uint32_t kBatchSystem = 4;
constexpr uint32_t kBatchDisks = 5;
constexpr uint32_t kBatchNfs = 6;

int64_t Delta(uint64_t ts, uint64_t prev) {
  return static_cast<int64_t>(ts - prev);
}

}  // namespace

HostSampleBatchEncoder::HostSampleBatchEncoder(uint8_t* buffer, size_t capacity)
    : writer_(buffer, capacity) {}

void HostSampleBatchEncoder::Begin(uint64_t base_ts_ns) {
  writer_.Truncate(0);
  // A batch can exceed 127 bytes by far: reserve 4 length bytes (256 MiB).
  batch_ = writer_.BeginNested(kPacketHostSamples, 4);
  writer_.Uint(kBatchBaseTs, base_ts_ns);
  last_thread_ts_ = last_process_ts_ = last_system_ts_ = base_ts_ns;
  last_disk_ts_ = last_nfs_ts_ = base_ts_ns;
  samples_ = 0;
  begun_ = !writer_.overflowed();
}

bool HostSampleBatchEncoder::Commit(size_t mark, uint64_t ts_ns,
                                    uint64_t* last_ts) {
  if (writer_.overflowed()) {
    writer_.Truncate(mark);
    return false;
  }
  ++samples_;
  *last_ts = ts_ns;
  return true;
}

bool HostSampleBatchEncoder::AddThread(const ThreadSampleRecord& s) {
  if (!begun_) return false;
  const size_t mark = writer_.size();
  auto m = writer_.BeginNested(kBatchThreads);
  writer_.Sint(1, Delta(s.ts_ns, last_thread_ts_));
  writer_.Uint(2, s.tid);
  writer_.Uint(3, s.user_ns);
  writer_.Uint(4, s.system_ns);
  writer_.Uint(5, s.state);
  writer_.Uint(6, s.name_id);
  writer_.Uint(7, s.voluntary_switches);
  writer_.Uint(8, s.involuntary_switches);
  writer_.Uint(9, s.io_wait_ns);
  writer_.Uint(10, s.python_stack_id);
  writer_.EndNested(m);
  return Commit(mark, s.ts_ns, &last_thread_ts_);
}

bool HostSampleBatchEncoder::AddProcess(const ProcessSampleRecord& s) {
  if (!begun_) return false;
  const size_t mark = writer_.size();
  auto m = writer_.BeginNested(kBatchProcess);
  writer_.Sint(1, Delta(s.ts_ns, last_process_ts_));
  writer_.Uint(2, s.read_bytes);
  writer_.Uint(3, s.write_bytes);
  writer_.Uint(4, s.rchar);
  writer_.Uint(5, s.wchar);
  writer_.Uint(6, s.syscr);
  writer_.Uint(7, s.syscw);
  writer_.Uint(8, s.minor_faults);
  writer_.Uint(9, s.major_faults);
  writer_.Uint(10, s.rss_bytes);
  writer_.Uint(11, s.num_threads);
  writer_.Uint(12, s.user_ns);
  writer_.Uint(13, s.system_ns);
  writer_.Uint(14, s.profiler_syscr);
  writer_.Uint(15, s.profiler_rchar);
  writer_.Uint(16, s.profiler_syscw);
  writer_.Uint(17, s.profiler_wchar);
  writer_.EndNested(m);
  return Commit(mark, s.ts_ns, &last_process_ts_);
}

bool HostSampleBatchEncoder::AddSystem(const SystemSampleRecord& s) {
  if (!begun_) return false;
  const size_t mark = writer_.size();
  auto m = writer_.BeginNested(kBatchSystem);
  writer_.Sint(1, Delta(s.ts_ns, last_system_ts_));
  writer_.Uint(2, s.cpu_user_ns);
  writer_.Uint(3, s.cpu_nice_ns);
  writer_.Uint(4, s.cpu_system_ns);
  writer_.Uint(5, s.cpu_idle_ns);
  writer_.Uint(6, s.cpu_iowait_ns);
  writer_.Uint(7, s.cpu_irq_ns);
  writer_.Uint(8, s.cpu_softirq_ns);
  writer_.Uint(9, s.cpu_steal_ns);
  writer_.Uint(10, s.procs_running);
  writer_.Uint(11, s.procs_blocked);
  writer_.Uint(12, s.mem_available_bytes);
  writer_.Uint(13, s.mem_dirty_bytes);
  writer_.Uint(14, s.mem_writeback_bytes);
  writer_.Double(15, s.load_1m);
  writer_.EndNested(m);
  return Commit(mark, s.ts_ns, &last_system_ts_);
}

bool HostSampleBatchEncoder::AddDisk(const DiskSampleRecord& s) {
  if (!begun_) return false;
  const size_t mark = writer_.size();
  auto m = writer_.BeginNested(kBatchDisks);
  writer_.Sint(1, Delta(s.ts_ns, last_disk_ts_));
  writer_.Uint(2, s.device_id);
  writer_.Uint(3, s.reads);
  writer_.Uint(4, s.reads_merged);
  writer_.Uint(5, s.read_bytes);
  writer_.Uint(6, s.read_ms);
  writer_.Uint(7, s.writes);
  writer_.Uint(8, s.writes_merged);
  writer_.Uint(9, s.write_bytes);
  writer_.Uint(10, s.write_ms);
  writer_.Uint(11, s.in_flight);
  writer_.Uint(12, s.busy_ms);
  writer_.Uint(13, s.weighted_ms);
  writer_.EndNested(m);
  return Commit(mark, s.ts_ns, &last_disk_ts_);
}

bool HostSampleBatchEncoder::AddNfs(const NfsSampleRecord& s) {
  if (!begun_) return false;
  const size_t mark = writer_.size();
  auto m = writer_.BeginNested(kBatchNfs);
  writer_.Sint(1, Delta(s.ts_ns, last_nfs_ts_));
  writer_.Uint(2, s.mount_point_id);
  writer_.Uint(3, s.ops);
  writer_.Uint(4, s.transmissions);
  writer_.Uint(5, s.major_timeouts);
  writer_.Uint(6, s.rtt_ms);
  writer_.Uint(7, s.execute_ms);
  writer_.Uint(8, s.read_ops);
  writer_.Uint(9, s.read_bytes);
  writer_.Uint(10, s.read_rtt_ms);
  writer_.EndNested(m);
  return Commit(mark, s.ts_ns, &last_nfs_ts_);
}

size_t HostSampleBatchEncoder::Finish() {
  if (!begun_) return 0;
  begun_ = false;
  if (samples_ == 0) return 0;
  writer_.EndNested(batch_);
  if (writer_.overflowed()) return 0;
  return writer_.size();
}

}  // namespace feedprof::preload::host
