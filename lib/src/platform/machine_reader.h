// Reading the machine facts of a live machine (or of a constructed
// procfs/sysfs tree) for `feedprof doctor`.
//
// Everything is read from files under a MachineRoot, so tests point the
// same code at trees copied from real machines; only the storage probe's
// reads and NVML touch anything else. Each reader fills its part of
// MachineFacts and, where a file is missing or unreadable, says which file
// and why instead of guessing.
#ifndef FEEDPROF_PLATFORM_MACHINE_READER_H_
#define FEEDPROF_PLATFORM_MACHINE_READER_H_

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "platform/machine_facts.h"
#include "platform/machine_root.h"

namespace feedprof::platform {

struct ReadOptions {
  // The process whose affinity, memory policy, cgroup and limits are
  // checked; unset: the reading process itself (doctor inherits the
  // shell's affinity, policy, cgroup and limits).
  std::optional<int> pid;
  // Data locations to check (file system, device, read latency).
  std::vector<std::string> data_paths;
};

// Everything but the CPU-time sample and NVML: CPUs, NUMA, the process,
// cgroup limits, load, memory, PCI GPUs, the NVIDIA kernel driver, RDMA
// devices, storage.
MachineFacts ReadMachineFacts(const MachineRoot& root,
                              const ReadOptions& options);

// The parts, for tests and for callers that need one.
void ReadCpuFacts(const MachineRoot& root, CpuFacts* cpu,
                  std::vector<NumaNodeFacts>* nodes);
void ReadProcessFacts(const MachineRoot& root, std::optional<int> pid,
                      ProcessFacts* process);
void ReadLoadAndMemory(const MachineRoot& root, LoadFacts* load,
                       MemoryFacts* memory);

// pci_gpu_reader.cc: NVIDIA display/3D controllers (vendor 0x10de, class
// 0x03xxxx) on the PCI bus, in bus order.
Fact<std::vector<GpuFacts>> ReadPciGpus(const MachineRoot& root);

// cgroup_reader.cc: the tightest CPU quota and memory limit from the
// process's cgroup up to the root of its hierarchy (v1 and v2).
// `proc_dir` is "/proc/self" or "/proc/PID".
void ReadCgroupFacts(const MachineRoot& root, const std::string& proc_dir,
                     CgroupFacts* cgroup);

// storage_reader.cc: the mount, block device and (when `probe`) a short,
// bounded, read-only latency probe of a few files under `path`.
StorageFacts ReadStorageFacts(const MachineRoot& root, const std::string& path,
                              bool probe);

// Why a mount has no local block device to check ("nfs4 is a network or
// user-space file system: ..."); empty when it may have one.
std::string NoBlockDeviceReason(const MountEntry& mount);

// iowait over an interval: take a sample, do other work, finish it. The
// interval is whatever passed between the two calls.
struct CpuTimeSample {
  std::optional<CpuTimes> times;
  std::string problem;  // why `times` is missing
  std::chrono::steady_clock::time_point at;
};
CpuTimeSample BeginCpuTimeSample(const MachineRoot& root);
void FinishCpuTimeSample(const MachineRoot& root, const CpuTimeSample& begin,
                         LoadFacts* load);

// nvml_reader.cc: loads `library` (libnvidia-ml.so.1) with dlopen and reads
// every GPU it sees, attaching the readings to `gpus` by PCI bus id (GPUs
// NVML sees but sysfs does not, as in a container without /sys, are
// added). Unknown, with dlerror's or NVML's words, when it does not load.
Fact<NvmlFacts> ReadNvml(const std::string& library,
                         Fact<std::vector<GpuFacts>>* gpus);

// "0000:3b:00.0" for "00000000:3B:00.0" (NVML) and "0000:3b:00.0" (sysfs).
std::string NormalizeBusId(const std::string& bus_id);

}  // namespace feedprof::platform

#endif  // FEEDPROF_PLATFORM_MACHINE_READER_H_
