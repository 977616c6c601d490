// The platform checks: machine facts in, one finding per check out.
//
// A check judges one question of the platform checklist (is the GPU's link
// at full speed and width, is the process on its GPU's NUMA node, does the
// cgroup quota leave room for the workers, ...), from facts alone, so the
// same check serves `doctor` on a live machine and `analyze` on a recorded
// snapshot. Every finding carries the measured values with the numbers in
// the files, what they mean and what to do; a fact that is unknown makes
// the finding unknown, with the reason. The checks and their thresholds are
// listed in docs/doctor.md.
#ifndef FEEDPROF_PLATFORM_PLATFORM_CHECKS_H_
#define FEEDPROF_PLATFORM_PLATFORM_CHECKS_H_

#include <vector>

#include "feedprof/platform.h"
#include "platform/machine_facts.h"

namespace feedprof::platform {

// Every check, in the order doctor prints them: GPUs, the process, CPU,
// memory, storage, NVML.
std::vector<PlatformFinding> CheckPlatform(const MachineFacts& facts);

// The areas, for tests and for callers that need one.
// gpu_checks.cc: gpus, gpu_pcie_link and gpu_numa per GPU.
void CheckGpus(const MachineFacts& facts, std::vector<PlatformFinding>* out);
// process_checks.cc: process_numa (affinity and memory policy against the
// GPUs' nodes).
void CheckProcess(const MachineFacts& facts, std::vector<PlatformFinding>* out);
// cpu_checks.cc: cpu_frequency, cpu_smt, cpu_online, cgroup_cpu, cpu_load,
// cpu_iowait.
void CheckCpu(const MachineFacts& facts, std::vector<PlatformFinding>* out);
// memory_checks.cc: mem_available, mem_dirty, mem_swap, mem_thp,
// mem_locked_limit, cgroup_memory.
void CheckMemory(const MachineFacts& facts, std::vector<PlatformFinding>* out);
// storage_checks.cc: data_filesystem, data_device, data_read_latency,
// data_device_reads and data_network_fs per data location.
void CheckStorage(const MachineFacts& facts, std::vector<PlatformFinding>* out);
// nvml_checks.cc: nvidia_driver, nvml, and per GPU NVML sees: gpu_clocks,
// gpu_throttle, gpu_power, gpu_temperature, gpu_persistence, gpu_ecc,
// gpu_processes.
void CheckNvml(const MachineFacts& facts, std::vector<PlatformFinding>* out);

// Payload bandwidth of a PCIe link per direction, GB/s (10^9 bytes/s):
// lanes × GT/s × encoding efficiency / 8.
double LinkGBps(double gts, uint32_t width);
// "Gen4 x16 (16 GT/s, 31.5 GB/s)".
std::string DescribeLink(double gts, uint32_t width);

// nvmlClocksEventReason* bits.
inline constexpr uint64_t kReasonGpuIdle = 0x1;
inline constexpr uint64_t kReasonApplicationsClocks = 0x2;
inline constexpr uint64_t kReasonSwPowerCap = 0x4;
inline constexpr uint64_t kReasonHwSlowdown = 0x8;
inline constexpr uint64_t kReasonSyncBoost = 0x10;
inline constexpr uint64_t kReasonSwThermal = 0x20;
inline constexpr uint64_t kReasonHwThermal = 0x40;
inline constexpr uint64_t kReasonHwPowerBrake = 0x80;
inline constexpr uint64_t kReasonDisplayClocks = 0x100;
// "HW slowdown, SW power cap"; "none" for 0.
std::string DescribeClockReasons(uint64_t reasons);

}  // namespace feedprof::platform

#endif  // FEEDPROF_PLATFORM_PLATFORM_CHECKS_H_
