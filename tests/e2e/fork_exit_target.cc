// Forks a worker that burns CPU for 800 ms and ends with _exit, as Python
// multiprocessing and PyTorch DataLoader workers do (no exit handler runs),
// then waits for it. The worker's pid goes to stdout.
//
// With --sigkill the worker kills itself with SIGKILL instead: nothing of
// the library runs at its end.
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

namespace {

double ThreadCpuMs() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 +
         static_cast<double>(ts.tv_nsec) / 1e6;
}

}  // namespace

int main(int argc, char** argv) {
  const bool sigkill = argc > 1 && std::strcmp(argv[1], "--sigkill") == 0;
  std::fflush(stdout);
  const pid_t child = fork();
  if (child < 0) return 2;
  if (child == 0) {
    volatile unsigned long sink = 0;
    const double start = ThreadCpuMs();
    while (ThreadCpuMs() - start < 800) {
      for (int i = 0; i < 100000; ++i) sink = sink + static_cast<unsigned>(i);
    }
    if (sigkill) kill(getpid(), SIGKILL);
    _exit(0);
  }
  std::printf("%d\n", static_cast<int>(child));
  int status = 0;
  waitpid(child, &status, 0);
  if (sigkill) {
    return WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL ? 0 : 3;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 3;
}
