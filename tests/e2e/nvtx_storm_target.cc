// Eight threads push and pop NVTX ranges as fast as they can for two
// seconds, so that a small FEEDPROF_BUFFER_MB fills and the library must
// drop events, count every drop and stay within its memory cap.
//
// The threads storm in rounds: all of them start a burst together (a
// barrier), push and pop kBurstSteps ranges back to back, then rest
// kRestMs. A burst of the eight threads (278528 ranges) is eight times
// what a 2 MiB cap holds, so drops are certain on any machine, while the rests
// keep the trace to some ten megabytes (two seconds of unpaced ranges write a
// quarter of a gigabyte). Rounds go on until two seconds have passed.
//
// Each thread folds its first round's steps into a checksum: stdout (the
// checksums) and the exit code are the same in every run, with or without
// the library, while how many rounds fit in two seconds differs from run to
// run. The per-thread range counts and the process's peak resident memory
// (VmHWM, read at the end of main) go to the report file.
//
// Usage: nvtx_storm_target REPORT_FILE
#include <nvtx3/nvToolsExt.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <barrier>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

namespace {

constexpr int kExitCode = 4;
constexpr int kThreads = 8;
constexpr uint64_t kBurstSteps = 32768;
// One step in this many holds a nested range, so that depths vary.
constexpr uint64_t kNestEvery = 16;
constexpr int kRestMs = 200;
constexpr auto kStormDuration = std::chrono::seconds(2);

struct ThreadResult {
  uint32_t tid = 0;
  uint64_t ranges = 0;  // pops that closed a push, nested ones included
  uint64_t checksum = 0;
};

uint64_t Mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  return x;
}

// Whether another round starts: decided once per round for all threads,
// by the barrier's completion step (RoundEnd) while every thread waits.
struct RoundGate {
  std::chrono::steady_clock::time_point deadline;
  bool go_on = true;
};

struct RoundEnd {
  RoundGate* gate;
  void operator()() noexcept {
    gate->go_on = std::chrono::steady_clock::now() < gate->deadline;
  }
};

void Storm(int index, std::barrier<RoundEnd>* start_round,
           const RoundGate* gate, ThreadResult* result) {
  result->tid = static_cast<uint32_t>(syscall(SYS_gettid));
  uint64_t checksum = static_cast<uint64_t>(index) + 1;
  uint64_t ranges = 0;
  for (int round = 0;; ++round) {
    start_round->arrive_and_wait();
    if (!gate->go_on && round > 0) break;
    for (uint64_t step = 0; step < kBurstSteps; ++step) {
      nvtxRangePushA("storm_step");
      if (round == 0) checksum = Mix(checksum + step);
      if (step % kNestEvery == 0) {
        nvtxRangePushA("storm_nested");
        nvtxRangePop();
        ++ranges;
      }
      nvtxRangePop();
      ++ranges;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(kRestMs));
  }
  result->ranges = ranges;
  result->checksum = checksum;
}

// This process's peak resident set in KiB; 0 when it cannot be read.
uint64_t PeakResidentKib() {
  FILE* f = std::fopen("/proc/self/status", "r");
  if (f == nullptr) return 0;
  char line[256];
  uint64_t kib = 0;
  while (std::fgets(line, sizeof line, f) != nullptr) {
    if (std::strncmp(line, "VmHWM:", 6) == 0) {
      kib = std::strtoull(line + 6, nullptr, 10);
      break;
    }
  }
  std::fclose(f);
  return kib;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s REPORT_FILE\n", argv[0]);
    return 2;
  }
  const auto start = std::chrono::steady_clock::now();
  RoundGate gate{start + kStormDuration};
  std::barrier<RoundEnd> start_round(kThreads, RoundEnd{&gate});
  std::vector<ThreadResult> results(kThreads);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back(Storm, i, &start_round, &gate, &results[i]);
  }
  for (std::thread& t : threads) t.join();
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();

  FILE* report = std::fopen(argv[1], "w");
  if (report == nullptr) return 2;
  for (int i = 0; i < kThreads; ++i) {
    std::printf("thread %d checksum %016llx\n", i,
                static_cast<unsigned long long>(results[i].checksum));
    std::fprintf(report, "tid %u ranges %llu\n", results[i].tid,
                 static_cast<unsigned long long>(results[i].ranges));
  }
  std::fprintf(report, "seconds %.3f\n", elapsed);
  std::fprintf(report, "vmhwm_kib %llu\n",
               static_cast<unsigned long long>(PeakResidentKib()));
  std::fclose(report);
  return kExitCode;
}
