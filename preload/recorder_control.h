// Starting, stopping and forking the recorder: the control side of
// recorder.h, used by the process lifecycle (lifecycle.cc) and by tests that
// record in-process.
#ifndef FEEDPROF_PRELOAD_RECORDER_CONTROL_H_
#define FEEDPROF_PRELOAD_RECORDER_CONTROL_H_

#include <climits>
#include <cstdint>

#include "preload/config.h"
#include "preload/process_facts.h"

namespace feedprof::preload {

// Starts recording: opens the session directory, maps the buffers and
// starts the writer thread. The trace file itself is created at the first
// write-out (see docs/recording.md). Returns false after printing one
// `feedprof:` line when recording cannot start; the process runs on.
bool BeginRecording(const Config& config, TraceOrigin origin);

struct RecorderSummary {
  bool started = false;       // the recorder was running
  bool file_written = false;  // a trace file exists for this process
  bool discarded = false;     // nothing worth keeping: no file left behind
  bool failed = false;        // recording was turned off by an error
  char path[PATH_MAX] = {};
  uint64_t events = 0;   // events written (host events and GPU records)
  uint64_t samples = 0;  // host and counter samples written
  uint64_t dropped = 0;  // events, samples and packets dropped
};

// Final flush: writes what is buffered, drop counts and a footer with
// `reason` ("exit", "shutdown"), stops the writer and closes the file.
// Bounded: gives up on a stuck writer after a few seconds.
void StopRecorder(const char* reason, RecorderSummary* summary);

// Absolute path of the session directory; empty when not recording.
const char* SessionDirPath();

// The process used CUDA (CUPTI was started): its file is always kept.
void MarkProcessUsesGpu();

// A function the writer thread calls before each periodic flush (every
// FEEDPROF_FLUSH_INTERVAL_MS), outside the recorder's reentrancy guard, so
// that what it submits (CUPTI's completed activity buffers) goes into the
// same write-out. nullptr: none. The hook must check for itself whether it
// may still run (the process may be exiting or be a fork child).
using PeriodicFlushHook = void (*)();
void SetPeriodicFlushHook(PeriodicFlushHook hook);

// Asks the writer to flush from a signal handler (async-signal-safe) and
// waits up to `timeout_ms`. `final_flush`: the process is about to die of
// the signal: also write the footer. Returns true when the writer finished.
bool RecorderSignalFlush(int signal_number, bool final_flush, int timeout_ms);

// The process ends with _exit (async-signal-safe): the writer finishes the
// trace as StopRecorder("exit") would (a trivial process's file removed),
// and this waits up to `timeout_ms`. The writer thread is left to _exit.
// Returns true when the writer finished.
bool RecorderExitFlush(int timeout_ms);

// pthread_atfork handlers. The child drops the inherited buffers and starts
// a new trace file (origin "fork") with its own writer thread.
void RecorderPrepareFork();
void RecorderParentAfterFork();
void RecorderChildAfterFork();

}  // namespace feedprof::preload

#endif  // FEEDPROF_PRELOAD_RECORDER_CONTROL_H_
