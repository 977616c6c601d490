#include "preload/lifecycle.h"

#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
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
#ifdef FEEDPROF_HAVE_CUPTI
#include "cupti_hooks/cupti_entry.h"
#endif

namespace feedprof::preload {
namespace {

constexpr int kSignalFlushTimeoutMs = 1000;
// The sampler answers after the round it is in (well under 10 ms).
constexpr int kSamplerFlushTimeoutMs = 200;
constexpr int kHandledSignals[] = {SIGTERM, SIGINT};

bool g_loaded = false;
// Read by the signal handler: lock-free atomics are async-signal-safe.
std::atomic<bool> g_recording{false};
std::atomic<bool> g_exited{false};
uint64_t g_sampling_interval_ns = 0;
struct sigaction g_previous_action[NSIG];
bool g_handler_installed[NSIG];

void StartSampler() {
#ifdef FEEDPROF_HAVE_HOST_SAMPLER
  host::StartSampler(g_sampling_interval_ns);
#endif
}

void StopSampler() {
#ifdef FEEDPROF_HAVE_HOST_SAMPLER
  host::StopSampler();
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
    cupti::FlushCollection(/*force=*/true);
  }
}
#endif

void OnProcessExit() {
  if (!g_recording || t_recorder.in_call != 0 || g_exited.exchange(true)) {
    return;
  }
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
  RecorderChildAfterFork();
#ifdef FEEDPROF_HAVE_HOST_SAMPLER
  host::RestartSamplerAfterFork();
#endif
#ifdef FEEDPROF_HAVE_CUPTI
  cupti::OnForkChild();
#endif
}

}  // namespace

void OnLibraryLoad() {
  ReentrancyGuard guard;
  if (g_loaded) return;
  g_loaded = true;

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
  g_recording = true;
  g_sampling_interval_ns = config.sampling_interval_ns();

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

}  // namespace feedprof::preload
