// The seam between the injected library's lifecycle and CUPTI collection.
//
// preload/ owns the process lifecycle (constructor, exit, signals, fork) and
// calls these hooks; cupti_hooks/ implements them when the CUDA toolkit was
// found at build time (FEEDPROF_HAVE_CUPTI), otherwise preload/ does not
// call them at all. None of these may throw, exit or abort.
#ifndef FEEDPROF_CUPTI_HOOKS_CUPTI_ENTRY_H_
#define FEEDPROF_CUPTI_HOOKS_CUPTI_ENTRY_H_

namespace feedprof::cupti {

// Called from the exported InitializeInjection (the driver calls it at
// cuInit when CUDA_INJECTION64_PATH names this library). Starts CUPTI
// collection once per process; returns true when it started. On failure it
// has printed its one `feedprof:` line and recording stays host-only.
bool StartCollection();

// Hands every completed activity buffer to the recorder. `force` also
// flushes records of work still in flight (used at exit).
void FlushCollection(bool force);

// Final flush and unsubscribe at process exit.
void StopCollection();

// In the child of a fork: forget CUPTI state without calling CUPTI (CUDA is
// unusable after fork).
void OnForkChild();

}  // namespace feedprof::cupti

#endif  // FEEDPROF_CUPTI_HOOKS_CUPTI_ENTRY_H_
