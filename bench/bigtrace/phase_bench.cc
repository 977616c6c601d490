// Where the time of `feedprof analyze` goes, phase by phase.
//
// The whole-command figures of run_bigtrace_bench.py say how long a user
// waits; this says which part to work on next. It runs, in one process and
// in the order the command does: LoadTrace (read, parse, build and sort the
// timeline), Analyze without and with the what-if replay, and the JSON
// report; each phase's wall and CPU time (the CPU time shows how much of a
// phase ran on more than one core), the wall time of each of Analyze's
// own phases (AnalysisOptions::on_phase) with the resident memory each
// began with, and peak RSS after loading and after each analysis (the last
// peak less the resident memory the what-if replay began with is the
// replay's peak), and the replay's memory estimate for one and two
// replaying threads beside it.
//
//   phase_bench TRACE [--runs N] [--load-only] [--available-memory BYTES]
//
// --load-only stops after loading, to profile the readers alone (e.g. under
// `perf record`). --available-memory gives the replay's memory guard that
// figure instead of the machine's (docs/what-if.md), to see the replay on
// fewer threads, or skipped.
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <optional>
#include <string>

#include "analysis/prepared_timeline.h"
#include "feedprof/analysis.h"
#include "feedprof/report.h"
#include "feedprof/trace_loader.h"
#include "replay/what_if.h"

namespace {

double CpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

// Resident memory now (/proc/self/statm), 0 when unreadable.
double RssMiB() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return 0;
  unsigned long long size = 0, resident = 0;
  const int read = std::fscanf(f, "%llu %llu", &size, &resident);
  std::fclose(f);
  return read == 2 ? static_cast<double>(resident) *
                         static_cast<double>(sysconf(_SC_PAGESIZE)) /
                         (1024.0 * 1024.0)
                   : 0.0;
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

// Prints the wall time of each Analyze phase as the next one begins (and
// of the last one when destroyed), with the resident memory it began with
// (the peak minus that is the most the phase added).
class AnalyzePhaseTimes {
 public:
  ~AnalyzePhaseTimes() { EndPhase(); }
  std::function<void(feedprof::AnalysisPhase, uint64_t)> Reporter() {
    return [this](feedprof::AnalysisPhase phase, uint64_t) {
      EndPhase();
      phase_ = feedprof::AnalysisPhaseName(phase);
      start_rss_mib_ = RssMiB();
      start_ = std::chrono::steady_clock::now();
    };
  }

 private:
  void EndPhase() {
    if (phase_ == nullptr) return;
    std::printf(
        "    %-20s %8.3f s wall, RSS at start %8.1f MiB\n", phase_,
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_)
            .count(),
        start_rss_mib_);
    phase_ = nullptr;
  }
  const char* phase_ = nullptr;
  double start_rss_mib_ = 0;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: phase_bench TRACE [--runs N] [--load-only] "
                 "[--available-memory BYTES]\n");
    return 2;
  }
  const std::string path = argv[1];
  int runs = 1;
  bool load_only = false;
  std::optional<uint64_t> available_memory;
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--runs" && i + 1 < argc) {
      runs = std::atoi(argv[++i]);
    } else if (arg == "--load-only") {
      load_only = true;
    } else if (arg == "--available-memory" && i + 1 < argc) {
      available_memory = std::strtoull(argv[++i], nullptr, 10);
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
    options.what_if.available_memory_bytes = available_memory;
    absl::StatusOr<feedprof::Report> report;
    Timed("analyze --no-what-if", [&] {
      AnalyzePhaseTimes phases;
      options.on_phase = phases.Reporter();
      report = feedprof::Analyze(*timeline, options);
    });
    std::printf("  peak RSS, no what-if  %8.1f MiB\n", PeakRssMiB());
    options.what_if.enabled = true;
    Timed("analyze", [&] {
      AnalyzePhaseTimes phases;
      options.on_phase = phases.Reporter();
      report = feedprof::Analyze(*timeline, options);
    });
    options.on_phase = nullptr;
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
    std::printf("  what-if: %s\n",
                report->what_if.available
                    ? "available"
                    : report->what_if.unavailable_reason.c_str());
    // After every peak above: preparing the timeline again costs memory.
    absl::StatusOr<feedprof::analysis::PreparedTimeline> prepared =
        feedprof::analysis::PreparedTimeline::Build(*timeline, options);
    if (prepared.ok()) {
      const feedprof::replay::ReplayPlan plan =
          feedprof::replay::PlanReplay(*prepared, *report, options.what_if);
      std::printf(
          "  what-if estimate: %.1f MB on 1 thread, %.1f MB on 2 (calls "
          "%llu, blocking %llu, ops %llu)\n",
          static_cast<double>(plan.estimate.PeakBytes(1)) / 1e6,
          static_cast<double>(plan.estimate.PeakBytes(2)) / 1e6,
          static_cast<unsigned long long>(plan.counts.calls),
          static_cast<unsigned long long>(plan.counts.blocking_calls),
          static_cast<unsigned long long>(plan.counts.ops));
    }
  }
  return 0;
}
