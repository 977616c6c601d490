// The platform snapshot's facts for the platform checks (Platform fields
// 16-33 and the per-process, per-node and per-PCI-function details) copied
// from a feedprof trace header into Timeline::Platform.
#ifndef FEEDPROF_READERS_PLATFORM_SNAPSHOT_FACTS_H_
#define FEEDPROF_READERS_PLATFORM_SNAPSHOT_FACTS_H_

#include "feedprof.pb.h"
#include "feedprof/timeline.h"

namespace feedprof::readers {

void CopyPlatformSnapshotFacts(const trace::Platform& in, Platform* out);

}  // namespace feedprof::readers

#endif  // FEEDPROF_READERS_PLATFORM_SNAPSHOT_FACTS_H_
