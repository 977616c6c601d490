// Platform findings: the machine facts that decide whether a CPU can feed a
// GPU, checked one by one.
//
// Half of the feeding problems are not in the program but in the machine: a
// PCIe link that trained at Gen3 x8 instead of Gen4 x16, a process pinned to
// the NUMA node far from its GPU, the powersave governor, a cgroup quota of
// 4 CPUs under 16 DataLoader workers, heavy writeback, a dataset on NFS, a
// throttled GPU. `feedprof doctor` checks the live machine and `analyze`
// checks the platform snapshot a trace recorded; both produce these
// findings, so a check reads the same before a run and inside a report.
// Every check and its thresholds are described in docs/doctor.md.
#ifndef FEEDPROF_PLATFORM_H_
#define FEEDPROF_PLATFORM_H_

#include <cstdint>
#include <string>
#include <vector>

namespace feedprof {

// ok: nothing to do; warn: may cost performance, or the check could not
// rule a fault out; fail: a fault that costs performance; unknown: the fact
// could not be read (the finding says why).
enum class PlatformStatus : uint8_t { kOk, kWarn, kFail, kUnknown };
const char* PlatformStatusName(PlatformStatus status);  // "ok", "warn", ...

struct PlatformFinding {
  // Stable id of the check ("gpu_pcie_link", "cgroup_cpu", ...).
  std::string check;
  // "gpu", "process", "cpu", "memory", "storage" or "nvml".
  std::string area;
  // What it is about: "GPU0 0000:3b:00.0", "process 4242", a data path;
  // empty for the machine as a whole.
  std::string subject;
  PlatformStatus status = PlatformStatus::kUnknown;
  std::string value;    // what was measured, with its numbers
  std::string meaning;  // what it means for feeding the GPU
  std::string action;   // what to do; empty when nothing is to be done
};

struct PlatformReport {
  // Where the facts came from: "this machine" (doctor), "recorded snapshot"
  // (feedprof traces), "Kineto device properties", "Nsight target info", or
  // "none".
  std::string source;
  std::vector<PlatformFinding> findings;

  // Findings with `status`.
  size_t Count(PlatformStatus status) const;
  // The first finding of `check` (about `subject` when not empty), or null.
  const PlatformFinding* Find(const std::string& check,
                              const std::string& subject = "") const;
};

}  // namespace feedprof

#endif  // FEEDPROF_PLATFORM_H_
