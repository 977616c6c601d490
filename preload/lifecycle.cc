#include "preload/lifecycle.h"

#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "preload/config.h"
#include "preload/gpu_collection_status.h"
#include "preload/log.h"
#include "preload/recorder.h"
#include "preload/recorder_control.h"
#include "preload/recorder_state.h"
#include "preload/reentrancy_guard.h"
#include "preload/session_dir.h"

#if __has_include("preload/host/host_sampler.h")
#include "preload/host/host_sampler.h"
#define FEEDPROF_HAVE_HOST_SAMPLER 1
#endif
#if __has_include("preload/python/finalized_interpreter.h")
#include "preload/python/finalized_interpreter.h"
#define FEEDPROF_HAVE_PYTHON 1
#endif
#ifdef FEEDPROF_HAVE_CUPTI
#include "cupti_hooks/cupti_entry.h"
#endif

namespace feedprof::preload {
namespace {

constexpr int kSignalFlushTimeoutMs = 1000;
// The sampler answers after the round it is in (well under 10 ms).
constexpr int kSamplerFlushTimeoutMs = 200;
constexpr int kHandledSignals[] = {SIGTERM, SIGINT};
// _exit and _Exit: the sampler's open batch, then the writer's last flush;
// together well under a second (usually a few milliseconds).
constexpr int kExitSamplerFlushTimeoutMs = 100;
constexpr int kExitFlushTimeoutMs = 400;

bool g_loaded = false;
// Read by the signal handler: lock-free atomics are async-signal-safe.
std::atomic<bool> g_recording{false};
std::atomic<bool> g_exited{false};
// The process the recording belongs to: set at start and by the fork
// child hook. A vfork child (or a raw clone) runs no fork hook and sees
// another pid from getpid(2).
std::atomic<pid_t> g_recording_pid{0};
// A thread is finishing the trace in _exit or _Exit, and the process ends
// right after it.
std::atomic<bool> g_ending_by_exit{false};
// The C library's _exit and _Exit (the next definitions after this
// library's), looked up when the library is loaded: never later, when the
// caller may be a signal handler or a vfork child.
using ExitFunction = void (*)(int);
ExitFunction g_next_exit[2] = {nullptr, nullptr};
uint64_t g_sampling_interval_ns = 0;
uint32_t g_python_stack_every_rounds = 1;  // 0: no Python stacks
struct sigaction g_previous_action[NSIG];
bool g_handler_installed[NSIG];

void FindNextExitFunctions() {
  g_next_exit[0] = reinterpret_cast<ExitFunction>(dlsym(RTLD_NEXT, "_exit"));
  g_next_exit[1] = reinterpret_cast<ExitFunction>(dlsym(RTLD_NEXT, "_Exit"));
}

// Async-signal-safe: atomics, the signal mask, write(2) and poll(2).
void FinishTraceBeforeExit() {
  if (!g_recording.load() || g_exited.load()) return;
  // A vfork child shares the parent's memory and ran no fork hook: it must
  // not touch the parent's recorder.
  if (static_cast<pid_t>(syscall(SYS_getpid)) != g_recording_pid.load()) {
    return;
  }
  if (t_recorder.in_call != 0) return;
  // The process is ending: a signal that comes now (a multiprocessing
  // pool's terminate() races with its workers' os._exit) must not kill it
  // halfway through the flush. Blocked here, it is lost with the process
  // as if it had come a moment later; another thread that takes it drops
  // it (OnTerminatingSignal).
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, nullptr);
  if (g_exited.exchange(true)) return;
  g_ending_by_exit.store(true);
  ReentrancyGuard guard;
#ifdef FEEDPROF_HAVE_HOST_SAMPLER
  host::FlushSamplerBatch(kExitSamplerFlushTimeoutMs);
#endif
  RecorderExitFlush(kExitFlushTimeoutMs);
}

void StartSampler() {
#ifdef FEEDPROF_HAVE_HOST_SAMPLER
  host::StartSampler(g_sampling_interval_ns, g_python_stack_every_rounds);
#endif
}

void StopSampler() {
#ifdef FEEDPROF_HAVE_HOST_SAMPLER
  host::StopSampler();
#endif
}

// The exit handlers run after a CPython program's Py_FinalizeEx freed its
// interpreter: a 3.10's daemon threads that wake meanwhile would touch the
// freed memory and may crash the process, which in a plain run ends before
// they wake. They are held in their wait until the process ends
// (python/finalized_interpreter.h).
void HoldThreadsOfFinalizedPython() {
#ifdef FEEDPROF_HAVE_PYTHON
  python::HoldThreadsOfFinalizedInterpreter();
#endif
}

// From the signal handler: the sampler's open batch (up to 0.5 s of
// samples) goes to the recorder before the writer's last flush. Skipped
// when the interrupted thread is inside feedprof: it may hold a lock the
// sampler needs to submit.
void FlushSamplerFromSignal() {
#ifdef FEEDPROF_HAVE_HOST_SAMPLER
  if (t_recorder.in_call == 0) host::FlushSamplerBatch(kSamplerFlushTimeoutMs);
#endif
}

// Absolute path of this library, from the dynamic loader.
bool OwnLibraryPath(char* out) {
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(&OnLibraryLoad), &info) == 0 ||
      info.dli_fname == nullptr || info.dli_fname[0] == '\0') {
    return false;
  }
  return realpath(info.dli_fname, out) != nullptr;
}

// Points injection variable `name` at this library unless someone else
// already did; says so when it leaves another tool's value alone.
// Returns false when another tool holds the variable; `message` (when not
// null) then holds the line that was printed.
bool ClaimInjectionVariable(const char* name, const char* self,
                            const char* consequence, char* message = nullptr,
                            size_t message_size = 0) {
  const char* current = getenv(name);
  if (current == nullptr || current[0] == '\0') {
    setenv(name, self, 1);
    return true;
  }
  char resolved[PATH_MAX];
  if (realpath(current, resolved) != nullptr &&
      std::strcmp(resolved, self) == 0) {
    return true;  // ours (inherited from a recorded parent)
  }
  char line[1024];
  std::snprintf(line, sizeof line, "%s is already set to %s; leaving it: %s",
                name, current, consequence);
  LogInfo("%s", line);
  if (message != nullptr && message_size > 0) {
    std::snprintf(message, message_size, "%s", line);
  }
  return false;
}

#ifdef FEEDPROF_HAVE_CUPTI
// Runs on the writer thread every flush interval, outside the recorder's
// guard: completed activity buffers reach the trace while the program
// runs, so a killed process keeps its GPU activity up to the last flush.
void FlushGpuActivityPeriodically() {
  if (g_recording && !g_exited) cupti::FlushCollection(/*force=*/false);
}

void FlushGpuActivityAtExit() {
  // The CUDA teardown follows: no periodic flush from here on.
  SetPeriodicFlushHook(nullptr);
  if (g_recording && !g_exited && t_recorder.in_call == 0) {
    HoldThreadsOfFinalizedPython();
    cupti::FlushCollection(/*force=*/true);
  }
}
#endif

void OnProcessExit() {
  if (!g_recording || t_recorder.in_call != 0 || g_exited.exchange(true)) {
    return;
  }
  HoldThreadsOfFinalizedPython();
  // CUPTI's final flush hands buffers to the recorder on this thread: stop
  // it before this thread counts as inside feedprof, so nothing it
  // delivers is refused.
#ifdef FEEDPROF_HAVE_CUPTI
  SetPeriodicFlushHook(nullptr);
  cupti::StopCollection();
#endif
  ReentrancyGuard guard;
  StopSampler();
  RecorderSummary summary;
  StopRecorder("exit", &summary);
  // After a write failure the one message was already printed.
  if (summary.file_written && !summary.failed) {
    LogInfo("trace written to %s (%llu events, %llu samples, %llu dropped)",
            summary.path, static_cast<unsigned long long>(summary.events),
            static_cast<unsigned long long>(summary.samples),
            static_cast<unsigned long long>(summary.dropped));
  } else if (summary.discarded) {
    LogDebug("pid %d recorded nothing worth keeping; no trace file",
             static_cast<int>(getpid()));
  }
}

// SIGTERM/SIGINT: flush with a bounded wait, then let the previous
// disposition act. Only async-signal-safe calls: the flush request is an
// eventfd write and a poll; the writer thread does the work.
void OnTerminatingSignal(int sig, siginfo_t* info, void* context) {
  // Another thread is in _exit, flushing for at most 0.5 s: the process
  // ends then, with that status, as if the signal had come a moment later.
  if (g_ending_by_exit.load()) return;
  const int saved_errno = errno;
  const struct sigaction& previous = g_previous_action[sig];
  const bool has_handler =
      (previous.sa_flags & SA_SIGINFO) != 0
          ? previous.sa_sigaction != nullptr
          : (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN);
  // Without a handler of its own the process dies of the signal: that flush
  // is the last one, with a footer. With one, it may go on running.
  if (g_recording && !g_exited) {
    FlushSamplerFromSignal();
    RecorderSignalFlush(sig, !has_handler, kSignalFlushTimeoutMs);
  }
  if (has_handler) {
    if ((previous.sa_flags & SA_SIGINFO) != 0) {
      previous.sa_sigaction(sig, info, context);
    } else {
      previous.sa_handler(sig);
    }
  } else {
    // Default action: restore it and re-raise. The signal is blocked while
    // this handler runs, so it is delivered (and kills) on return.
    struct sigaction dfl;
    std::memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, nullptr);
    raise(sig);
  }
  errno = saved_errno;
}

void InstallSignalHandlers() {
  for (int sig : kHandledSignals) {
    struct sigaction previous;
    if (sigaction(sig, nullptr, &previous) != 0) continue;
    // An ignored signal stays ignored (nohup, background jobs).
    if ((previous.sa_flags & SA_SIGINFO) == 0 &&
        previous.sa_handler == SIG_IGN) {
      continue;
    }
    g_previous_action[sig] = previous;
    struct sigaction action;
    std::memset(&action, 0, sizeof action);
    action.sa_sigaction = OnTerminatingSignal;
    action.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    if (sigaction(sig, &action, nullptr) == 0) g_handler_installed[sig] = true;
  }
}

void PrepareFork() {
  if (g_recording) RecorderPrepareFork();
}

void ParentAfterFork() {
  if (g_recording) RecorderParentAfterFork();
}

void ChildAfterFork() {
  if (!g_recording) return;
  // SIGTERM and SIGINT wait until the child records (a few milliseconds):
  // a pool's terminate() may come this early, and the handler then flushes
  // a complete file instead of finding no writer.
  sigset_t handled;
  sigset_t previous;
  sigemptyset(&handled);
  for (int sig : kHandledSignals) sigaddset(&handled, sig);
  pthread_sigmask(SIG_BLOCK, &handled, &previous);
  g_recording_pid.store(static_cast<pid_t>(syscall(SYS_getpid)));
  RecorderChildAfterFork();
#ifdef FEEDPROF_HAVE_HOST_SAMPLER
  host::RestartSamplerAfterFork();
#endif
#ifdef FEEDPROF_HAVE_CUPTI
  cupti::OnForkChild();
#endif
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
}

}  // namespace

void OnLibraryLoad() {
  ReentrancyGuard guard;
  if (g_loaded) return;
  g_loaded = true;
  FindNextExitFunctions();

  Config config;
  ConfigFromEnvironment(&config);
  SetLogLevel(config.log_level);
  if (config.disabled) {
    LogDebug("FEEDPROF_DISABLE is set: not recording pid %d",
             static_cast<int>(getpid()));
    return;
  }
  const TraceOrigin origin =
      config.session_dir[0] != '\0' ? TraceOrigin::kExec : TraceOrigin::kLaunch;
  if (!BeginRecording(config, origin)) return;
  g_recording_pid.store(static_cast<pid_t>(syscall(SYS_getpid)));
  g_recording = true;
  g_sampling_interval_ns = config.sampling_interval_ns();
  g_python_stack_every_rounds = config.python_stack_every_rounds();

  // Exec'd children inherit the environment: they join this session.
  setenv("FEEDPROF_SESSION_DIR", SessionDirPath(), 1);
  // With the token they recognise the directory, made at the first write,
  // as this session's (session_dir.h); an explicit directory has none.
  const char* token = State().session.token;
  if (token[0] != '\0') {
    setenv(kEnvSessionToken, token, 1);
  } else {
    unsetenv(kEnvSessionToken);
  }
  // The process that started the session stays its starter through its own
  // execs; a launch into a directory that already existed starts none.
  if (State().session.created) {
    char pid[16];
    std::snprintf(pid, sizeof pid, "%d", static_cast<int>(getpid()));
    setenv(kEnvSessionPid, pid, 1);
  } else if (origin == TraceOrigin::kLaunch) {
    unsetenv(kEnvSessionPid);
  }
  char self[PATH_MAX];
  if (OwnLibraryPath(self)) {
    ClaimInjectionVariable("NVTX_INJECTION64_PATH", self,
                           "NVTX ranges go to that tool, not to feedprof");
#ifdef FEEDPROF_HAVE_CUPTI
    char message[1024];
    if (!ClaimInjectionVariable(
            "CUDA_INJECTION64_PATH", self,
            "the CUDA driver loads only the library it names, so feedprof "
            "records no GPU activity; unset it to record the GPU",
            message, sizeof message)) {
      RecordGpuCollectionStatus(GpuCollectionState::kOff, message);
    }
#endif
  }

  InstallSignalHandlers();
#ifdef FEEDPROF_HAVE_PYTHON
  python::FindInterpreterForExit();
#endif
  static bool hooks_registered = false;
  if (!hooks_registered) {
    hooks_registered = true;
    pthread_atfork(PrepareFork, ParentAfterFork, ChildAfterFork);
    atexit(OnProcessExit);
  }
  StartSampler();
}

int OnCudaInjection() {
  ReentrancyGuard guard;
  MarkProcessUsesGpu();
#ifdef FEEDPROF_HAVE_CUPTI
  if (g_recording && RecordingEnabled() && cupti::StartCollection()) {
    // The CUDA runtime registers its own teardown after this library's
    // exit handler and so runs it first; an exit handler registered now
    // (at cuInit) may run before that teardown and flush while the context
    // still exists. The final flush in OnProcessExit still follows.
    static std::atomic<bool> flush_registered{false};
    if (!flush_registered.exchange(true)) atexit(FlushGpuActivityAtExit);
    SetPeriodicFlushHook(&FlushGpuActivityPeriodically);
  }
#endif
  return 1;
}

void EndProcessNow(ImmediateExit call, int status) {
  FinishTraceBeforeExit();
  const ExitFunction next =
      g_next_exit[call == ImmediateExit::kUpperExit ? 1 : 0];
  if (next != nullptr) next(status);
  // Not found (or it returned): what the C library's _exit does.
  for (;;) {
    syscall(SYS_exit_group, status);
    syscall(SYS_exit, status);
  }
}

}  // namespace feedprof::preload
