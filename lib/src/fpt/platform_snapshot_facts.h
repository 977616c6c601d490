// The platform snapshot's facts for the platform checks (Platform fields
// 16-33 and the per-process, per-node and per-PCI-function details) copied
// from a feedprof trace header into Timeline::Platform, and the NVML
// sampler's static facts of the GPUs (NvmlFacts packets) into
// Timeline::Platform::nvml_devices.
#ifndef FEEDPROF_FPT_PLATFORM_SNAPSHOT_FACTS_H_
#define FEEDPROF_FPT_PLATFORM_SNAPSHOT_FACTS_H_

#include "feedprof.pb.h"
#include "feedprof/timeline.h"

namespace feedprof::fpt {

void CopyPlatformSnapshotFacts(const trace::Platform& in, Platform* out);

// Adds the devices of an NvmlFacts packet of process `pid`; a device the
// process already described keeps its first facts (those of the start).
void AddNvmlStaticFacts(const trace::NvmlFacts& in, int32_t pid, Platform* out);

}  // namespace feedprof::fpt

#endif  // FEEDPROF_FPT_PLATFORM_SNAPSHOT_FACTS_H_
