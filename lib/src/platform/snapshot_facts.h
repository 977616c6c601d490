// The machine facts of a recording, for the platform checks inside every
// analysis.
//
// A feedprof trace carries a platform snapshot taken when recording began
// (Timeline::Platform), system samples during the run (MemAvailable, Dirty,
// Writeback, CPU time by state) and NVML samples (utilization, clocks,
// throttle reasons, power, temperature, PCIe link). These become the same
// MachineFacts doctor reads live, so the same checks judge them: the
// snapshot where only it knows (NUMA placement, governor, quota, mounts),
// the samples where they say more (iowait over the run, the lowest
// MemAvailable, the link and throttle reasons while the GPU was busy).
// Kineto and Nsight inputs carry only their device descriptions; every
// other fact is unknown and says that the format does not record it.
#ifndef FEEDPROF_PLATFORM_SNAPSHOT_FACTS_H_
#define FEEDPROF_PLATFORM_SNAPSHOT_FACTS_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "feedprof/timeline.h"
#include "platform/machine_facts.h"

namespace feedprof::platform {

// What of the timeline the analysis looks at.
struct RecordingScope {
  TimeNs start = 0;  // the analysed window, absolute
  TimeNs end = 0;
  std::vector<int32_t> pids;  // the analysed processes; empty: all
  // Worker processes the analysis found (DataLoader workers): the quota
  // and SMT checks compare against them.
  std::optional<uint32_t> workers;
};

MachineFacts FactsFromRecording(const Timeline& timeline,
                                const RecordingScope& scope);

}  // namespace feedprof::platform

#endif  // FEEDPROF_PLATFORM_SNAPSHOT_FACTS_H_
