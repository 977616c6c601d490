// How much more memory this process can allocate before the machine, or
// its cgroup, runs out.
//
// The what-if replay of a trace of tens of millions of events needs GBs on
// top of the timeline; it is sized to what is left rather than risk swapping
// or the OOM killer taking the whole analysis. Two limits apply: the
// kernel's estimate of what can be allocated without swapping
// (MemAvailable in /proc/meminfo), and, in a container or a batch job, the
// room under the cgroup memory limit. The cgroup's usage counts the page
// cache of files it read (a trace just read is in it); the inactive part
// of that cache is reclaimed before the cgroup runs out, so it counts as
// room, as `docker stats` and Kubernetes count a working set.
#ifndef FEEDPROF_PLATFORM_AVAILABLE_MEMORY_H_
#define FEEDPROF_PLATFORM_AVAILABLE_MEMORY_H_

#include <cstdint>
#include <optional>
#include <string>

#include "platform/machine_root.h"

namespace feedprof::platform {

struct AvailableMemory {
  uint64_t bytes = 0;
  // What sets the figure: "MemAvailable" or the cgroup limit's file.
  std::string limited_by;
};

// The lesser of MemAvailable and the room under the tightest cgroup memory
// limit of process `proc_dir` ("/proc/self" or "/proc/PID"): limit - usage
// + inactive file cache. nullopt when neither can be read (then nothing is
// known to be short).
std::optional<AvailableMemory> ReadAvailableMemory(
    const MachineRoot& root, const std::string& proc_dir = "/proc/self");

}  // namespace feedprof::platform

#endif  // FEEDPROF_PLATFORM_AVAILABLE_MEMORY_H_
