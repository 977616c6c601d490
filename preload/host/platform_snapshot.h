// The platform snapshot: the machine facts a verdict depends on.
//
// Whether a CPU can feed a GPU depends on the machine as much as on the
// program: how many CPUs the process may use (affinity, cgroup quota), how
// fast they run (governor, clocks), which NUMA node a GPU hangs off, and
// whether its PCIe link trained at full speed and width (a x16 Gen4 slot
// running at x4 or Gen1 starves every copy). The recorder writes this once
// per trace file, in the header, as a `Platform` message read from procfs
// and sysfs, with the facts the platform checks judge (docs/doctor.md):
// SMT, memory policy, locked-memory and cgroup memory limits, memory at the
// start, transparent huge pages, RDMA devices, and the mounts of the working
// directory and of the paths the command line names.
#ifndef FEEDPROF_PRELOAD_HOST_PLATFORM_SNAPSHOT_H_
#define FEEDPROF_PRELOAD_HOST_PLATFORM_SNAPSHOT_H_

#include <sched.h>

#include <cstddef>
#include <cstdint>

#include "preload/wire_writer.h"

namespace feedprof::preload::host {

// Writes a `Platform` message as field `field_number` of the message `w`
// is writing, read from the running system; returns the bytes written.
size_t EncodePlatformSnapshot(feedprof::wire::WireWriter& w,
                              uint32_t field_number);

// Where the snapshot reads from; tests point `root` at a fixture tree.
struct PlatformSources {
  // Directory holding proc/ and sys/.
  const char* root = "/";
  // The process CPU affinity mask; null: sched_getaffinity of the caller.
  const cpu_set_t* affinity = nullptr;
  size_t affinity_bytes = 0;
  // The working directory (an absolute path as the root names it); null:
  // getcwd() of the caller on the live system, none under another root.
  const char* cwd = nullptr;
};

// EncodePlatformSnapshot reading from `sources`. With a root other than
// "/", nothing comes from system calls but the affinity (when not given):
// every fact is read from files under the root.
size_t EncodePlatformSnapshotFrom(feedprof::wire::WireWriter& w,
                                  uint32_t field_number,
                                  const PlatformSources& sources);

}  // namespace feedprof::preload::host

#endif  // FEEDPROF_PRELOAD_HOST_PLATFORM_SNAPSHOT_H_
