// The machine facts the platform checks judge, wherever they come from.
//
// `doctor` reads them from the live machine (machine_reader.h), `analyze`
// from the platform snapshot and samples a trace recorded (snapshot_facts.h);
// the checks (platform_checks.h) only ever see this model, so a check
// behaves the same before a run and inside a report. Every fact may be
// unknown, and then carries why in words ("/sys/.../cpufreq does not
// exist", "not recorded in Kineto traces"): a check passes that on instead
// of judging a zero.
#ifndef FEEDPROF_PLATFORM_MACHINE_FACTS_H_
#define FEEDPROF_PLATFORM_MACHINE_FACTS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "platform/proc_sys_text.h"

namespace feedprof::platform {

// A value, or why it is not known.
template <typename T>
struct Fact {
  std::optional<T> value;
  std::string why_unknown;

  bool known() const { return value.has_value(); }
  const T& operator*() const { return *value; }
  const T* operator->() const { return &*value; }
  void Set(T v) {
    value = std::move(v);
    why_unknown.clear();
  }
  void Unknown(std::string why) {
    value.reset();
    why_unknown = std::move(why);
  }
};

struct NumaNodeFacts {
  int id = 0;
  std::vector<int> cpus;
};

// A PCIe link as sysfs describes it (current_link_speed, max_link_speed,
// current_link_width, max_link_width).
struct PciLinkFacts {
  Fact<double> current_gts;  // GT/s per lane
  Fact<double> max_gts;
  Fact<uint32_t> current_width;  // lanes
  Fact<uint32_t> max_width;
};

// What NVML says about one GPU; each reading is absent when NVML does not
// support it on this GPU.
struct NvmlGpuFacts {
  std::string name;
  std::optional<uint32_t> utilization_pct;  // SM busy share, last sample
  std::optional<uint32_t> sm_clock_mhz;
  std::optional<uint32_t> sm_max_clock_mhz;
  std::optional<uint64_t> clock_event_reasons;  // nvmlClocksEventReason*
  std::optional<uint32_t> power_mw;
  std::optional<uint32_t> power_limit_mw;  // enforced
  std::optional<uint32_t> default_power_limit_mw;
  std::optional<uint32_t> temperature_c;
  std::optional<uint32_t> slowdown_temperature_c;
  std::optional<bool> persistence_mode;
  std::optional<bool> ecc_enabled;
  std::optional<uint64_t> ecc_uncorrected_volatile;
  std::optional<uint64_t> ecc_corrected_volatile;
  // Over the GPU's life (recorded traces; doctor does not read them).
  std::optional<uint64_t> ecc_uncorrected_aggregate;
  std::optional<uint64_t> ecc_corrected_aggregate;
  std::optional<bool> row_remap_pending;
  std::optional<bool> row_remap_failure;
  // The link as NVML reports it (generation, lanes).
  std::optional<uint32_t> pcie_gen;
  std::optional<uint32_t> pcie_max_gen;
  std::optional<uint32_t> pcie_width;
  std::optional<uint32_t> pcie_max_width;
  struct Process {
    uint32_t pid = 0;
    uint64_t used_bytes = 0;
  };
  std::optional<std::vector<Process>> processes;  // compute processes
  // How many NVML readings these are: 1 for doctor's reading now; for the
  // samples of a trace, the readings while the GPU was busy (the clock and
  // link while busy, the reasons seen while busy, the highest power and
  // temperature). `from_trace`: the readings of a trace (no processes;
  // limits, persistence and ECC only with `static_facts`).
  uint64_t samples = 0;
  bool from_trace = false;
  // From a trace whose NVML sampler recorded the static facts (limits,
  // maximum clock, slowdown temperature, persistence, ECC): their checks
  // run as doctor's do. Processes are never recorded.
  bool static_facts = false;
};

struct GpuFacts {
  int index = 0;       // order on the PCI bus (GPU0, GPU1, ...)
  std::string bus_id;  // "0000:3b:00.0"
  std::string name;    // from NVML or the trace; may be empty
  uint32_t device_id = 0;
  PciLinkFacts link;
  // The PCIe port above the GPU (its slot) and that port's capability.
  std::string upstream_port;
  PciLinkFacts port_link;
  Fact<int> numa_node;  // -1: the firmware names none
  Fact<std::vector<int>> local_cpus;
  std::optional<NvmlGpuFacts> nvml;

  std::string Label() const;  // "GPU0 0000:3b:00.0"
};

struct ProcessFacts {
  int pid = 0;
  bool own = true;      // doctor's own process (it inherits the shell's)
  std::string command;  // comm
  Fact<std::vector<int>> affinity;
  Fact<std::vector<int>> mems_allowed;
  // As /proc/PID/numa_maps spells it: "default", "bind:1",
  // "interleave:0-1", "prefer:0", "local".
  Fact<std::string> memory_policy;
  Fact<ResourceLimit> memlock;
  // Worker processes the program ran (DataLoader workers), when a trace
  // says; the quota and SMT checks compare against it.
  std::optional<uint32_t> workers;

  std::string Label() const;  // "process 4242 (python3)"
};

struct CpuFacts {
  std::string model;
  Fact<std::vector<int>> present;
  Fact<std::vector<int>> online;
  Fact<std::string> governor;  // cpu0's
  // Online CPUs whose governor differs from cpu0's (a partial setting).
  uint32_t other_governor_cpus = 0;
  Fact<std::string> driver;  // scaling_driver
  Fact<uint64_t> max_khz;    // cpuinfo_max_freq
  Fact<uint64_t> cur_khz;    // mean scaling_cur_freq over online CPUs
  std::string cur_khz_of = "on average";  // what cur_khz is
  Fact<uint32_t> threads_per_core;
  std::string smt_control;  // "on", "off", "forceoff", "notsupported", ""
};

struct CgroupFacts {
  Fact<double> cpu_limit;       // CPUs (quota / period); 0: no quota
  std::string cpu_limit_file;   // the file with the tightest quota
  Fact<uint64_t> memory_limit;  // bytes; 0: no limit
  std::optional<uint64_t> memory_usage;
  std::string memory_limit_file;
};

struct LoadFacts {
  Fact<LoadAverage> loadavg;
  Fact<Pressure> cpu_pressure;
  Fact<Pressure> io_pressure;
  Fact<double> iowait_share;  // of all CPU time over `interval_s`
  double interval_s = 0;
  std::string interval_label;  // "over 0.25 s", "over the run"
  // When `loadavg` was read, for the message ("highest during the run");
  // empty for doctor's reading now.
  std::string loadavg_when;
};

struct MemoryFacts {
  Fact<uint64_t> total;
  Fact<uint64_t> available;
  Fact<uint64_t> dirty;
  Fact<uint64_t> writeback;
  Fact<uint64_t> swap_total;
  Fact<uint64_t> swap_free;
  Fact<std::string> thp_enabled;
  Fact<std::string> thp_defrag;
  // /proc/sys/vm writeback thresholds (percent of available memory, or
  // bytes when the *_bytes form is set); kernel defaults when unknown.
  uint64_t dirty_background_ratio = 10;
  uint64_t dirty_ratio = 20;
  uint64_t dirty_background_bytes = 0;
  uint64_t dirty_bytes = 0;
  // "now" (doctor), "at the start of the run", "lowest during the run".
  std::string when = "now";
  // Recordings: MemAvailable, Dirty and Writeback when recording started
  // (the snapshot) and at the last system sample of the analysed window,
  // shown beside the values judged. Doctor leaves them empty.
  struct Reading {
    uint64_t available = 0;
    uint64_t dirty = 0;
    uint64_t writeback = 0;
  };
  std::optional<Reading> at_start;
  std::optional<Reading> at_end;
};

struct BlockDeviceFacts {
  std::string name;  // "nvme0n1", "sda"
  Fact<bool> rotational;
  Fact<std::string> scheduler;
};

// Doctor's read probe: per file, the time from open to close; per read
// call, the time of the call alone (what strace -T shows).
struct ReadProbeFacts {
  uint32_t files = 0;
  uint64_t bytes = 0;
  double median_ms = 0;     // per file
  double max_ms = 0;        // per file
  bool direct = false;      // O_DIRECT (past the page cache)
  uint64_t read_calls = 0;  // pread calls that returned (EOF included)
  double read_mean_ms = 0;  // per call
  double read_max_ms = 0;   // the slowest call
  double elapsed_ms = 0;    // from the first open to the last close

  // bytes / read_calls (strace's average read size); 0 without calls.
  double AverageReadBytes() const {
    return read_calls == 0
               ? 0.0
               : static_cast<double>(bytes) / static_cast<double>(read_calls);
  }
};

// What the disk under the data did while the probe ran: the change in its
// /proc/diskstats counters. They are the whole disk's, so every other
// process's I/O in the interval counts too.
struct DeviceReadFacts {
  std::string device;        // the whole disk: "nvme0n1", "vda"
  double elapsed_ms = 0;     // between the two readings
  uint64_t reads = 0;        // reads completed (after merges and splits)
  uint64_t bytes = 0;        // sectors read × 512
  uint64_t ms_reading = 0;   // summed over the reads, queueing included
  uint64_t io_ticks_ms = 0;  // time with a request in flight

  // bytes / reads (iostat's rareq-sz); 0 without reads.
  double AverageReadBytes() const {
    return reads == 0 ? 0.0
                      : static_cast<double>(bytes) / static_cast<double>(reads);
  }
  // iostat's r_await: ms reading / reads; nullopt without reads.
  std::optional<double> AwaitMs() const {
    if (reads == 0) return std::nullopt;
    return static_cast<double>(ms_reading) / static_cast<double>(reads);
  }
  // iostat's %util: io_ticks / elapsed, as a share (at most 1: the kernel
  // counts busy time in clock ticks, which can overshoot a short window).
  double Utilization() const {
    if (elapsed_ms <= 0) return 0.0;
    const double u = static_cast<double>(io_ticks_ms) / elapsed_ms;
    return u > 1.0 ? 1.0 : u;
  }
};

// What the NFS client did for the data's mount while the probe ran: the
// change in its /proc/self/mountstats RPC statistics (the mount's, so
// other processes' use of the same mount counts too).
struct NfsReadFacts {
  std::string mount_point;
  double elapsed_ms = 0;       // between the two readings
  uint64_t ops = 0;            // RPC operations, summed over every kind
  uint64_t transmissions = 0;  // ops + retransmissions
  uint64_t major_timeouts = 0;
  uint64_t rtt_ms = 0;  // round trips summed over the ops
  uint64_t read_ops = 0;
  uint64_t read_bytes = 0;  // received by READ RPCs, RPC headers included

  uint64_t Retransmissions() const {
    return transmissions > ops ? transmissions - ops : 0;
  }
  // rtt_ms / ops; nullopt without ops.
  std::optional<double> MeanRttMs() const {
    if (ops == 0) return std::nullopt;
    return static_cast<double>(rtt_ms) / static_cast<double>(ops);
  }
};

struct StorageFacts {
  std::string path;   // as given
  std::string label;  // "--data /mnt/imagenet", "working directory"
  Fact<MountEntry> mount;
  Fact<BlockDeviceFacts> device;
  Fact<ReadProbeFacts> probe;
  // Over the probe: the disk's counters, and for an NFS mount the client's
  // RPC statistics (unknown, with the reason, for any other file system).
  Fact<DeviceReadFacts> device_reads;
  Fact<NfsReadFacts> nfs_reads;
  bool probed = true;  // false: no read probe was run (a recording)
};

struct NvmlFacts {
  std::string driver_version;
  std::optional<int> cuda_driver_version;  // 12040 for CUDA 12.4
  uint32_t devices = 0;
};

struct MachineFacts {
  std::string source;  // "this machine", "recorded snapshot", ...
  // True for a reading of a machine (doctor); false for a recording, whose
  // unknown facts cannot be fixed by running differently now.
  bool live = true;
  // How the GPUs were found ("found on the PCI bus", "described by the
  // trace").
  std::string gpus_found_by = "found on the PCI bus";
  // Whether a missing NVIDIA kernel module was looked for (and so is known
  // to be absent, not merely unrecorded).
  bool driver_probed = true;
  std::vector<NumaNodeFacts> numa_nodes;
  Fact<std::vector<GpuFacts>> gpus;
  ProcessFacts process;
  CpuFacts cpu;
  CgroupFacts cgroup;
  LoadFacts load;
  MemoryFacts memory;
  std::vector<StorageFacts> storage;
  std::string storage_unknown;  // why there is no storage fact
  Fact<NvmlFacts> nvml;
  Fact<std::string> kernel_driver_version;  // the loaded NVIDIA module's
  Fact<bool> rdma_devices;                  // /sys/class/infiniband has devices
};

// "1.5 GiB"; exact "0 B".
std::string Bytes(uint64_t bytes);

}  // namespace feedprof::platform

#endif  // FEEDPROF_PLATFORM_MACHINE_FACTS_H_
