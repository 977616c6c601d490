// A per-thread flag that keeps CUPTI collection from re-entering itself.
//
// Anything the collector calls may call back into it: a forced flush makes
// CUPTI deliver buffers on the flushing thread, a driver query inside a
// callback produces another callback. Each entry point (API callback,
// buffer completion) takes the guard; an entry that finds it taken returns
// at once and does nothing.
#ifndef FEEDPROF_CUPTI_HOOKS_REENTRANCY_GUARD_H_
#define FEEDPROF_CUPTI_HOOKS_REENTRANCY_GUARD_H_

#include "preload/reentrancy_guard.h"

namespace feedprof::cupti {

// The recorder's guard over a flag of the collector's own: a callback
// inside the collector must still be able to record through the recorder,
// whose entry points check `in_call`. The flag lives in the recorder's
// initial-exec thread state, so taking the guard costs no TLS call.
using ReentrancyGuard =
    preload::BasicReentrancyGuard<&preload::ThreadRecorderState::in_cupti>;

}  // namespace feedprof::cupti

#endif  // FEEDPROF_CUPTI_HOOKS_REENTRANCY_GUARD_H_
