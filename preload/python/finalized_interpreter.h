// CPython 3.10's daemon threads after Py_FinalizeEx, and feedprof's exit
// handlers.
//
// When a 3.10 program ends while daemon threads still run, Py_FinalizeEx
// frees the main interpreter and its thread states, yet those threads stay
// in take_gil, waking every switch interval (5 ms) from their wait on the
// GIL's condition variable. One that wakes after the interpreter is freed
// and had asked for the GIL before (3.10.8 and later, gh-96387's
// RESET_GIL_DROP_REQUEST) writes to and reads from the freed interpreter
// before it exits, and crashes the process when that memory was reused
// meanwhile. In a plain run the process ends microseconds after the
// interpreter is freed, so this hardly ever happens; feedprof's exit
// handlers run in between (the sampler's last round, the trace's last
// write: about a millisecond, more on a loaded machine) and made it common.
//
// So the exit handlers first hold the GIL's internal mutex of a 3.10
// interpreter that has finished finalizing: a daemon thread whose wait
// ends cannot return from it (the condition variable takes the mutex
// again) and ends with the process, as it would have a moment later.
// Nothing else takes that mutex after Py_FinalizeEx: the finalizing thread
// keeps the GIL itself, and every other thread exits on its way in. 3.11
// and later keep the main interpreter in static memory and need nothing.
#ifndef FEEDPROF_PRELOAD_PYTHON_FINALIZED_INTERPRETER_H_
#define FEEDPROF_PRELOAD_PYTHON_FINALIZED_INTERPRETER_H_

#include <pthread.h>

#include <cstdint>

namespace feedprof::preload::python {

// Looks the interpreter's symbols up (dlsym only, nothing of the
// interpreter called), at library load where that is cheap and safe; an
// interpreter loaded later is looked up at exit.
void FindInterpreterForExit();

// For the exit handlers, before their work. When the process runs a
// CPython 3.10 whose Py_FinalizeEx has completed (validated against its
// GIL state: still taken by the finalizing thread), takes the GIL's
// mutex, never waiting on it for more than a few milliseconds, and keeps
// it until the process ends. Returns whether it is held (also when an
// earlier call took it); otherwise changes nothing.
bool HoldThreadsOfFinalizedInterpreter();

namespace internal {

// The GIL's mutex of the runtime state at `runtime` when `version` (what
// Py_GetVersion returned) is a 3.10 and that runtime has completed
// Py_FinalizeEx, its GIL still taken by the finalizing thread; otherwise
// false. Reads the runtime state only.
bool FinalizedRuntimeGilMutex(uintptr_t runtime, const char* version,
                              pthread_mutex_t** mutex);
// pthread_mutex_trylock, again every 20 us until `timeout_ns` passed.
bool TryLockFor(pthread_mutex_t* mutex, uint64_t timeout_ns);

}  // namespace internal

}  // namespace feedprof::preload::python

#endif  // FEEDPROF_PRELOAD_PYTHON_FINALIZED_INTERPRETER_H_
