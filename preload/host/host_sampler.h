// Host sampling inside libfeedprof.so: the lifecycle's view.
//
// One background thread samples, every interval, each thread of the
// process (CPU user/system time, scheduler state, name, context switches,
// block-I/O delay), the process (I/O, faults, RSS, CPU time) and the
// machine (/proc/stat CPU split with iowait, run queue, memory, load), and
// submits HostSampleBatch and ThreadInfo packets to the recorder
// (feedprof::preload::SubmitPacket). Failures turn sampling off with one
// "feedprof:" line on stderr; they never reach the host program.
#ifndef FEEDPROF_PRELOAD_HOST_HOST_SAMPLER_H_
#define FEEDPROF_PRELOAD_HOST_HOST_SAMPLER_H_

#include <cstdint>

namespace feedprof::preload::host {

// Starts the sampling thread (interval 0 means the default, 10 ms = 100 Hz;
// intervals under 1 ms are raised to 1 ms), taking Python stacks every
// `python_stack_every_rounds` rounds (0: never). Returns false, after one
// stderr line, when sampling cannot run. Calling it while running is a
// no-op returning true.
bool StartSampler(uint64_t interval_ns, uint32_t python_stack_every_rounds = 1);

// Stops the thread after a last round and submits the open batch.
// Idempotent; safe when never started.
void StopSampler();

// Async-signal-safe (the SIGTERM/SIGINT flush calls it): asks the sampling
// thread to submit the batch it is filling (up to the flush interval,
// 0.5 s, of samples) and waits up to `timeout_ms` for it; the thread
// answers after the round it may be in. Takes no lock: returns false at
// once when sampling is not running, and false after the timeout when the
// thread did not answer.
bool FlushSamplerBatch(int timeout_ms);

// For the child side of pthread_atfork: the sampling thread did not
// survive the fork. Forgets the parent's state and, if the parent was
// sampling, starts a new thread for this process.
void RestartSamplerAfterFork();

}  // namespace feedprof::preload::host

#endif  // FEEDPROF_PRELOAD_HOST_HOST_SAMPLER_H_
