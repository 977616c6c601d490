// Children that end with _exit or _Exit, as multiprocessing and PyTorch
// DataLoader workers (os._exit), shells and failed execs do: no exit
// handler runs.
//
// Usage: worker_exit_target MODE REPORT_FILE
//   fork    forks two workers that burn 30 ms of CPU and end with _exit(3)
//           and one that does the same and ends with _Exit(5);
//   vfork   one vfork child that calls _exit(7) at once and one whose exec
//           fails before it calls _exit(7); then the parent pushes an NVTX
//           range "after_vfork" and burns 30 ms;
//   system  runs /bin/true through system(3), an exec'd helper, and a shell
//           command whose subshells (`$(echo sub)`, `echo | :`) are forks of
//           that helper shell;
//   timing  forks 20 workers one after another, each ending with _exit(0)
//           after 5 ms of CPU, and measures how long each takes from its
//           _exit call until waitpid returns;
//   term-during-exit  a worker that calls _exit(4) with 200000 NVTX ranges
//           to write gets SIGTERM at that moment.
// The parent prints what it saw (the same in every run: the children's
// exit statuses) and exits 0 when everything was as expected, 1 otherwise.
// The report file gets "pid N" for every worker that may leave a trace
// and, for `timing`, "exit_ns N" for each worker; for `term-during-exit`,
// the ranges recorded and how the worker ended ("exit_status" 4, or 143
// for SIGTERM).
#include <nvtx3/nvToolsExt.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>

namespace {

constexpr int kBurnMs = 30;
constexpr int kTimingWorkers = 20;

uint64_t ClockNs(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull +
         static_cast<uint64_t>(ts.tv_nsec);
}

// Spins until this thread has used `ms` more of CPU time.
void BurnCpu(int ms) {
  const uint64_t target =
      ClockNs(CLOCK_THREAD_CPUTIME_ID) + static_cast<uint64_t>(ms) * 1000000ull;
  volatile uint64_t sink = 0;
  while (ClockNs(CLOCK_THREAD_CPUTIME_ID) < target) {
    for (int i = 0; i < 10000; ++i) sink = sink * 6364136223846793005ull + 1;
  }
}

// The exit status of `pid`, or -1 when it did not exit normally.
int WaitStatus(pid_t pid) {
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int ForkWorkers(FILE* report) {
  struct Worker {
    int code;
    bool upper;  // _Exit instead of _exit
  };
  const Worker workers[] = {{3, false}, {3, false}, {5, true}};
  pid_t pids[3] = {};
  for (int i = 0; i < 3; ++i) {
    pids[i] = fork();
    if (pids[i] < 0) return 1;
    if (pids[i] == 0) {
      BurnCpu(kBurnMs);
      if (workers[i].upper) _Exit(workers[i].code);
      _exit(workers[i].code);
    }
    std::fprintf(report, "pid %d\n", static_cast<int>(pids[i]));
  }
  bool ok = true;
  for (int i = 0; i < 3; ++i) {
    const int code = WaitStatus(pids[i]);
    std::printf("worker %d %s status %d\n", i,
                workers[i].upper ? "_Exit" : "_exit", code);
    ok &= code == workers[i].code;
  }
  return ok ? 0 : 1;
}

int VforkChildren() {
  pid_t child = vfork();
  if (child < 0) return 1;
  if (child == 0) _exit(7);
  const int immediate = WaitStatus(child);
  std::printf("vfork child status %d\n", immediate);

  child = vfork();
  if (child < 0) return 1;
  if (child == 0) {
    execl("/nonexistent/feedprof-no-such-program", "x",
          static_cast<char*>(nullptr));
    _exit(7);
  }
  const int after_exec = WaitStatus(child);
  std::printf("vfork child after a failed exec status %d\n", after_exec);

  nvtxRangePushA("after_vfork");
  BurnCpu(kBurnMs);
  nvtxRangePop();
  return immediate == 7 && after_exec == 7 ? 0 : 1;
}

int RunSystem() {
  bool ok = true;
  const char* const commands[] = {"/bin/true", "x=$(echo sub) && echo $x | :"};
  for (const char* command : commands) {
    const int status = std::system(command);
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    std::printf("system status %d\n", code);
    ok &= code == 0;
  }
  return ok ? 0 : 1;
}

// The worker records kTermRanges NVTX ranges (megabytes to encode at
// _exit), tells the parent it is about to call _exit(4), and the parent
// sends SIGTERM at once: it lands while the library's _exit flushes (or,
// rarely, just before). Prints only what does not depend on that race.
int TermDuringExit(FILE* report) {
  constexpr int kTermRanges = 200000;
  int fds[2];
  if (pipe(fds) != 0) return 1;
  const pid_t pid = fork();
  if (pid < 0) return 1;
  if (pid == 0) {
    close(fds[0]);
    for (int i = 0; i < kTermRanges; ++i) {
      nvtxRangePushA("before_exit");
      nvtxRangePop();
    }
    const char byte = 'x';
    const ssize_t n = write(fds[1], &byte, 1);
    _exit(n == 1 ? 4 : 2);
  }
  close(fds[1]);
  char byte = 0;
  const ssize_t n = read(fds[0], &byte, 1);
  close(fds[0]);
  kill(pid, SIGTERM);
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return 1;
  const bool as_expected = (WIFEXITED(status) && WEXITSTATUS(status) == 4) ||
                           (WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
  std::fprintf(
      report, "pid %d\nranges %d\nexit_status %d\n", static_cast<int>(pid),
      kTermRanges,
      WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
  std::printf("worker ended with _exit(4) or SIGTERM: %s\n",
              as_expected ? "yes" : "no");
  return n == 1 && as_expected ? 0 : 1;
}

int TimeExits(FILE* report) {
  bool ok = true;
  for (int i = 0; i < kTimingWorkers; ++i) {
    int fds[2];
    if (pipe(fds) != 0) return 1;
    const pid_t pid = fork();
    if (pid < 0) return 1;
    if (pid == 0) {
      close(fds[0]);
      BurnCpu(5);
      const uint64_t before_exit = ClockNs(CLOCK_MONOTONIC);
      const ssize_t n = write(fds[1], &before_exit, sizeof before_exit);
      _exit(n == sizeof before_exit ? 0 : 2);
    }
    close(fds[1]);
    uint64_t before_exit = 0;
    const ssize_t n = read(fds[0], &before_exit, sizeof before_exit);
    close(fds[0]);
    const int code = WaitStatus(pid);
    const uint64_t reaped = ClockNs(CLOCK_MONOTONIC);
    ok &= code == 0 && n == sizeof before_exit;
    std::fprintf(report, "pid %d\nexit_ns %llu\n", static_cast<int>(pid),
                 static_cast<unsigned long long>(reaped - before_exit));
  }
  std::printf("timed workers %d\n", kTimingWorkers);
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr,
                 "usage: %s fork|vfork|system|timing|term-during-exit "
                 "REPORT_FILE\n",
                 argv[0]);
    return 2;
  }
  FILE* report = std::fopen(argv[2], "w");
  if (report == nullptr) return 2;
  // Nothing buffered may be inherited (and written twice).
  std::fflush(stdout);
  std::fflush(report);
  int rc = 2;
  if (std::strcmp(argv[1], "fork") == 0) {
    rc = ForkWorkers(report);
  } else if (std::strcmp(argv[1], "vfork") == 0) {
    rc = VforkChildren();
  } else if (std::strcmp(argv[1], "system") == 0) {
    rc = RunSystem();
  } else if (std::strcmp(argv[1], "timing") == 0) {
    rc = TimeExits(report);
  } else if (std::strcmp(argv[1], "term-during-exit") == 0) {
    rc = TermDuringExit(report);
  }
  std::fclose(report);
  return rc;
}
