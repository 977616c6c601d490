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

// The C library functions that end the process at once, which this library
// exports in front of the C library's (exports.map).
enum class ImmediateExit { kUnderscoreExit, kUpperExit };  // _exit, _Exit

// From the exported _exit and _Exit: finishes this process's trace with a
// bounded wait (at most 0.5 s, signals blocked meanwhile), then ends the
// process through the C library's function with the same status.
// Async-signal-safe, as _exit is. The trace is left alone when not
// recording, once the exit handlers began, inside feedprof, and in a vfork
// child (it shares the parent's memory and ran no fork hook): that one
// passes straight through.
[[noreturn]] void EndProcessNow(ImmediateExit call, int status);

}  // namespace feedprof::preload

#endif  // FEEDPROF_PRELOAD_LIFECYCLE_H_
