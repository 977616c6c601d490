// How many cores this process may keep busy at once.
//
// feedprof reads a directory's files one per core, splits a big file's
// events across cores and runs the what-if's scenarios side by side.
// std::thread::hardware_concurrency() counts every CPU of the machine, but
// a process is often allowed only some of them: a batch job's or a
// container's cpuset, `taskset` or `numactl`, or a cgroup CPU quota
// (a Kubernetes CPU limit, Slurm's --cpus-per-task with cgroup
// enforcement). On a 128-CPU node inside a 4-CPU job, threads sized from
// the machine would be 32 to a core, each with its buffers. The figure
// here is the CPUs of the process's affinity mask, lowered to its cgroup's
// tightest CPU quota rounded up (a quota of 2.5 CPUs keeps 3 threads busy
// for part of the time each), and at least 1.
#ifndef FEEDPROF_PLATFORM_USABLE_CORES_H_
#define FEEDPROF_PLATFORM_USABLE_CORES_H_

#include <string>

#include "platform/machine_root.h"

namespace feedprof::platform {

// For the process `proc_dir` ("/proc/self" or "/proc/PID") under `root`,
// whose affinity mask holds `affinity_cpus` CPUs: that count lowered to
// the cgroup's CPU quota, at least 1.
unsigned UsableCoresOf(const MachineRoot& root, const std::string& proc_dir,
                       unsigned affinity_cpus);

// This process's usable cores, read once: the answer holds for the life of
// the command (it does not move its threads between cpusets).
unsigned UsableCores();

}  // namespace feedprof::platform

#endif  // FEEDPROF_PLATFORM_USABLE_CORES_H_
