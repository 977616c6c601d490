// The storage read probe with a seam for tests.
//
// Why: around its reads the probe takes two readings of the kernel's
// counters (the disk's /proc/diskstats line, an NFS mount's
// /proc/self/mountstats entry) and reports their difference over the time
// between them. On a constructed tree the files do not change by
// themselves, and the time is whatever the reads took; a test that checks
// r_await, utilization and RPC figures numerically needs to write the
// second reading itself and to fix the interval. ReadStorageFacts in
// machine_reader.h is this with no seam.
#ifndef FEEDPROF_PLATFORM_STORAGE_PROBE_H_
#define FEEDPROF_PLATFORM_STORAGE_PROBE_H_

#include <functional>
#include <optional>
#include <string>

#include "platform/machine_facts.h"
#include "platform/machine_root.h"

namespace feedprof::platform {

struct ProbeSeam {
  // Runs after the probe's reads, before the second readings of the
  // counters (a test writes them into its tree here).
  std::function<void()> after_reads;
  // Replaces the measured time between the two readings, in ms.
  std::optional<double> elapsed_ms;
};

StorageFacts ReadStorageFacts(const MachineRoot& root, const std::string& path,
                              bool probe, const ProbeSeam& seam);

}  // namespace feedprof::platform

#endif  // FEEDPROF_PLATFORM_STORAGE_PROBE_H_
