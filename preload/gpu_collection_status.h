// What GPU collection did in this process, written into its trace.
//
// A trace without GPU activity is only useful when it says why: the machine
// had no GPU, CUPTI could not be loaded, another tool held
// CUDA_INJECTION64_PATH. The library prints one `feedprof:` line for each of
// these; this records the same outcome as a GpuCollection packet, so that
// `feedprof analyze` can say it too, long after the terminal is gone.
#ifndef FEEDPROF_PRELOAD_GPU_COLLECTION_STATUS_H_
#define FEEDPROF_PRELOAD_GPU_COLLECTION_STATUS_H_

#include <cstdint>

namespace feedprof::preload {

// GpuCollectionState of proto/feedprof.proto.
enum class GpuCollectionState : uint32_t {
  kUnknown = 0,
  kFull = 1,
  kActivityOnly = 2,
  kOff = 3,
};

// Queues one GpuCollection packet for the writer. Library code only (it
// does not take the recorder's reentrancy guard, so it works from inside
// another entry point); does nothing while not recording. `detail` may be
// empty.
void RecordGpuCollectionStatus(GpuCollectionState state, const char* detail);

}  // namespace feedprof::preload

#endif  // FEEDPROF_PRELOAD_GPU_COLLECTION_STATUS_H_
