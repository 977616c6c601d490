// Forks a hundred workers at once, as a DataLoader with many workers or a
// multiprocessing pool does, and waits for them all.
//
// Each worker pushes a few NVTX ranges while it burns kWorkerBurnMs of CPU
// time, rests kWorkerRestMs (several forked-child flush intervals, so what
// it recorded reaches its file) and ends with _exit(i % 50 + 1): no exit
// handler runs. The parent checks every worker's exit code, prints a
// summary (the same in every run) and exits with kExitCode; the workers'
// pids go to the report file, one "worker INDEX pid PID" line each.
//
// Usage: fork_storm_target REPORT_FILE
#include <nvtx3/nvToolsExt.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>

namespace {

constexpr int kExitCode = 5;
constexpr int kWorkers = 100;
constexpr int kWorkerSteps = 4;
constexpr int kWorkerBurnMs = 100;
constexpr int kWorkerRestMs = 700;

int WorkerExitCode(int index) { return index % 50 + 1; }

uint64_t ThreadCpuNs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull +
         static_cast<uint64_t>(ts.tv_nsec);
}

// Spins until this thread has used `ms` more of CPU time.
void BurnCpu(int ms) {
  const uint64_t target =
      ThreadCpuNs() + static_cast<uint64_t>(ms) * 1000000ull;
  volatile uint64_t sink = 0;
  while (ThreadCpuNs() < target) {
    for (int i = 0; i < 10000; ++i) sink = sink * 6364136223846793005ull + 1;
  }
}

[[noreturn]] void Worker(int index) {
  nvtxRangePushA("worker");
  for (int step = 0; step < kWorkerSteps; ++step) {
    nvtxRangePushA("worker_step");
    BurnCpu(kWorkerBurnMs / kWorkerSteps);
    nvtxRangePop();
  }
  nvtxRangePop();
  const timespec rest{kWorkerRestMs / 1000, (kWorkerRestMs % 1000) * 1000000L};
  nanosleep(&rest, nullptr);
  _exit(WorkerExitCode(index));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s REPORT_FILE\n", argv[0]);
    return 2;
  }
  FILE* report = std::fopen(argv[1], "w");
  if (report == nullptr) return 2;
  pid_t workers[kWorkers] = {};
  // Nothing buffered may be inherited (and written twice).
  std::fflush(stdout);
  std::fflush(report);
  nvtxRangePushA("spawn_workers");
  for (int i = 0; i < kWorkers; ++i) {
    workers[i] = fork();
    if (workers[i] == 0) Worker(i);
    if (workers[i] < 0) {
      std::fprintf(stderr, "fork failed for worker %d\n", i);
      return 2;
    }
  }
  nvtxRangePop();

  int as_expected = 0;
  for (int i = 0; i < kWorkers; ++i) {
    int status = 0;
    if (waitpid(workers[i], &status, 0) != workers[i]) continue;
    if (WIFEXITED(status) && WEXITSTATUS(status) == WorkerExitCode(i)) {
      ++as_expected;
    } else {
      std::fprintf(stderr, "worker %d ended with status 0x%x\n", i, status);
    }
    std::fprintf(report, "worker %d pid %d\n", i, static_cast<int>(workers[i]));
  }
  std::fclose(report);
  std::printf("workers %d\n", kWorkers);
  std::printf("exit codes as expected %d\n", as_expected);
  return as_expected == kWorkers ? kExitCode : 1;
}
