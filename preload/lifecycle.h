// The process lifecycle of the injected library: what happens at load, at
// cuInit, at fork, on SIGTERM/SIGINT and at exit (docs/architecture.md,
// "Lifecycle"; docs/recording.md).
#ifndef FEEDPROF_PRELOAD_LIFECYCLE_H_
#define FEEDPROF_PRELOAD_LIFECYCLE_H_

namespace feedprof::preload {

// From the library constructor: reads the configuration, starts recording,
// points NVTX (and CUDA) injection at this library, installs the exit,
// signal and fork hooks and starts the host sampler.
void OnLibraryLoad();

// From the exported InitializeInjection (the CUDA driver, at cuInit).
// Returns 1 (success) always: a failure to collect never fails CUDA.
int OnCudaInjection();

}  // namespace feedprof::preload

#endif  // FEEDPROF_PRELOAD_LIFECYCLE_H_
