// Where the time of `feedprof analyze` goes, phase by phase.
//
// The whole-command figures of run_bigtrace_bench.py say how long a user
// waits; this says which part to work on next. It runs, in one process and
// in the order the command does: LoadTrace (read, parse, build and sort the
// timeline), Analyze without and with the what-if replay, and the JSON
// report; each phase's wall and CPU time (the CPU time shows how much of a
// phase ran on more than one core), and peak RSS after loading.
//
//   phase_bench TRACE [--runs N] [--load-only]
//
// --load-only stops after loading, to profile the readers alone (e.g. under
// `perf record`).
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>

#include "feedprof/analysis.h"
#include "feedprof/report.h"
#include "feedprof/trace_loader.h"

namespace {

double CpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

double PeakRssMiB() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

// Times `phase` and prints one line: name, wall s, CPU s, CPU/wall.
template <typename Phase>
void Timed(const char* name, Phase phase) {
  const auto wall_start = std::chrono::steady_clock::now();
  const double cpu_start = CpuSeconds();
  phase();
  const double cpu = CpuSeconds() - cpu_start;
  const double wall = std::chrono::duration<double>(
                          std::chrono::steady_clock::now() - wall_start)
                          .count();
  std::printf("  %-22s %8.3f s wall %8.3f s cpu  %4.2f cores\n", name, wall,
              cpu, wall > 0 ? cpu / wall : 0.0);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: phase_bench TRACE [--runs N] [--load-only]\n");
    return 2;
  }
  const std::string path = argv[1];
  int runs = 1;
  bool load_only = false;
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--runs" && i + 1 < argc) {
      runs = std::atoi(argv[++i]);
    } else if (arg == "--load-only") {
      load_only = true;
    } else {
      std::fprintf(stderr, "phase_bench: unknown option %s\n", arg.c_str());
      return 2;
    }
  }
  for (int run = 0; run < runs; ++run) {
    std::printf("run %d: %s\n", run + 1, path.c_str());
    absl::StatusOr<feedprof::Timeline> timeline;
    Timed("load", [&] { timeline = feedprof::LoadTrace(path); });
    if (!timeline.ok()) {
      std::fprintf(stderr, "phase_bench: %s\n",
                   std::string(timeline.status().message()).c_str());
      return 1;
    }
    std::printf("  peak RSS after load   %8.1f MiB\n", PeakRssMiB());
    if (load_only) continue;
    feedprof::AnalysisOptions options;
    options.what_if.enabled = false;
    absl::StatusOr<feedprof::Report> report;
    Timed("analyze --no-what-if",
          [&] { report = feedprof::Analyze(*timeline, options); });
    options.what_if.enabled = true;
    Timed("analyze", [&] { report = feedprof::Analyze(*timeline, options); });
    if (!report.ok()) {
      std::fprintf(stderr, "phase_bench: %s\n",
                   std::string(report.status().message()).c_str());
      return 1;
    }
    size_t json_bytes = 0;
    Timed("json report",
          [&] { json_bytes = feedprof::WriteJsonReport(*report).size(); });
    std::printf("  events %llu, JSON %zu bytes, peak RSS %.1f MiB\n",
                static_cast<unsigned long long>(report->events), json_bytes,
                PeakRssMiB());
  }
  return 0;
}
