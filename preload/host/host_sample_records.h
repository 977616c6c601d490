// One round of host samples, as plain structs.
//
// The collector fills these from /proc each round and the batch encoder
// turns them into HostSampleBatch fields; keeping them apart lets tests
// encode hand-made samples and check every field after libprotobuf parses
// them. All times are ns, all sizes bytes, all counters cumulative — the
// units of proto/feedprof.proto, so the encoder copies without converting.
#ifndef FEEDPROF_PRELOAD_HOST_HOST_SAMPLE_RECORDS_H_
#define FEEDPROF_PRELOAD_HOST_HOST_SAMPLE_RECORDS_H_

#include <cstdint>

namespace feedprof::preload::host {

// Values of the proto enum feedprof.trace.ThreadState.
inline constexpr uint32_t kThreadStateUnknown = 0;
inline constexpr uint32_t kThreadStateRunning = 1;
inline constexpr uint32_t kThreadStateSleeping = 2;
inline constexpr uint32_t kThreadStateDiskWait = 3;
inline constexpr uint32_t kThreadStateStopped = 4;
inline constexpr uint32_t kThreadStateZombie = 5;
inline constexpr uint32_t kThreadStateIdle = 6;

struct ThreadSampleRecord {
  uint64_t ts_ns = 0;
  uint32_t tid = 0;
  uint32_t state = kThreadStateUnknown;
  uint64_t user_ns = 0;
  uint64_t system_ns = 0;
  uint32_t name_id = 0;
  uint64_t voluntary_switches = 0;
  uint64_t involuntary_switches = 0;
  uint64_t io_wait_ns = 0;
  // The innermost node of its Python stack (python_stack_sampler.h); 0:
  // none taken this round.
  uint32_t python_stack_id = 0;
};

struct ProcessSampleRecord {
  uint64_t ts_ns = 0;
  uint64_t read_bytes = 0;
  uint64_t write_bytes = 0;
  uint64_t rchar = 0;
  uint64_t wchar = 0;
  uint64_t syscr = 0;
  uint64_t syscw = 0;
  uint64_t minor_faults = 0;
  uint64_t major_faults = 0;
  uint64_t rss_bytes = 0;
  uint32_t num_threads = 0;
  uint64_t user_ns = 0;
  uint64_t system_ns = 0;
  // The library's own read and write calls (own_io.h), cumulative.
  uint64_t profiler_syscr = 0;
  uint64_t profiler_rchar = 0;
  uint64_t profiler_syscw = 0;
  uint64_t profiler_wchar = 0;
};

struct SystemSampleRecord {
  uint64_t ts_ns = 0;
  uint64_t cpu_user_ns = 0;
  uint64_t cpu_nice_ns = 0;
  uint64_t cpu_system_ns = 0;
  uint64_t cpu_idle_ns = 0;
  uint64_t cpu_iowait_ns = 0;
  uint64_t cpu_irq_ns = 0;
  uint64_t cpu_softirq_ns = 0;
  uint64_t cpu_steal_ns = 0;
  uint32_t procs_running = 0;
  uint32_t procs_blocked = 0;
  uint64_t mem_available_bytes = 0;
  uint64_t mem_dirty_bytes = 0;
  uint64_t mem_writeback_bytes = 0;
  double load_1m = 0;
};

// A disk under the data's file systems (/proc/diskstats): sectors already
// turned into bytes.
struct DiskSampleRecord {
  uint64_t ts_ns = 0;
  uint32_t device_id = 0;  // interned disk name
  uint64_t reads = 0;
  uint64_t reads_merged = 0;
  uint64_t read_bytes = 0;
  uint64_t read_ms = 0;
  uint64_t writes = 0;
  uint64_t writes_merged = 0;
  uint64_t write_bytes = 0;
  uint64_t write_ms = 0;
  uint32_t in_flight = 0;
  uint64_t busy_ms = 0;
  uint64_t weighted_ms = 0;
};

// An NFS mount among the data's mounts (/proc/self/mountstats).
struct NfsSampleRecord {
  uint64_t ts_ns = 0;
  uint32_t mount_point_id = 0;  // interned mount point
  uint64_t ops = 0;
  uint64_t transmissions = 0;
  uint64_t major_timeouts = 0;
  uint64_t rtt_ms = 0;
  uint64_t execute_ms = 0;
  uint64_t read_ops = 0;
  uint64_t read_bytes = 0;
  uint64_t read_rtt_ms = 0;
};

}  // namespace feedprof::preload::host

#endif  // FEEDPROF_PRELOAD_HOST_HOST_SAMPLE_RECORDS_H_
