// `feedprof export PATH -o OUT`: writes the timeline of a trace of any
// supported format as Chrome trace events (Kineto-compatible JSON, gzip when
// OUT ends in .gz) for https://ui.perfetto.dev, chrome://tracing,
// TensorBoard and HTA.
//
// Exit codes: 0 written, 1 the input could not be read or OUT could not be
// written (nothing is left at OUT then), 2 usage error.
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "feedprof/analysis.h"
#include "feedprof/export.h"
#include "feedprof/report.h"
#include "tools/analysis_args.h"
#include "tools/command_line.h"
#include "tools/commands.h"

namespace feedprof::cli {
namespace {

struct ExportArgs {
  std::string path;
  std::string out;
  AnalysisArgs analysis;
  std::string steps;
};

// Perfetto's in-browser limit is about 2 GB; say so well before it.
constexpr uint64_t kLargeExportBytes = uint64_t{1} << 30;

int Fail(const std::string& message) {
  std::fprintf(stderr, "feedprof export: %s\n", message.c_str());
  return kExitFailed;
}

int Run(const ExportArgs& args) {
  ExportOptions options;
  options.analysis = ToAnalysisOptions(args.analysis);
  if (!args.steps.empty()) {
    const auto [first, last] = StepsOf(args.steps, options.analysis);
    options.first_step = first;
    options.last_step = last;
  }

  std::optional<Timeline> timeline =
      LoadForCommand("export", args.path, args.analysis);
  if (!timeline) return kExitFailed;
  for (const std::string& w : timeline->warnings) {
    std::fprintf(stderr, "feedprof export: warning: %s\n", w.c_str());
  }
  absl::StatusOr<AnalysisOptions> window =
      ResolveExportWindow(*timeline, options);
  if (!window.ok()) {
    return Fail("cannot export " + args.path + ": " +
                std::string(window.status().message()));
  }
  absl::StatusOr<Report> report =
      AnalyzeShowingProgress(*timeline, *window, args.path);
  if (!report.ok()) {
    return Fail("cannot export " + args.path + ": " +
                std::string(report.status().message()));
  }
  const uint64_t estimate = EstimateExportBytes(*timeline, *report);
  if (estimate > kLargeExportBytes) {
    std::fprintf(stderr,
                 "feedprof export: note: the export will be about %.1f GiB "
                 "of JSON; Perfetto's web UI opens up to about 2 GB. Export "
                 "a part with --from/--to or --steps A:B (writing it all "
                 "anyway)\n",
                 static_cast<double>(estimate) / (1 << 30));
  }
  absl::StatusOr<ExportStats> stats =
      ExportChromeTraceToFile(*timeline, *report, *window, options, args.out);
  if (!stats.ok()) return Fail(std::string(stats.status().message()));
  std::fprintf(stderr,
               "feedprof export: wrote %s (%llu events, %.1f MiB of JSON)\n",
               args.out.c_str(), static_cast<unsigned long long>(stats->events),
               static_cast<double>(stats->bytes) / (1 << 20));
  return kExitOk;
}

}  // namespace

void AddExportCommand(CLI::App& root, int* exit_code) {
  auto args = std::make_shared<ExportArgs>();
  CLI::App* sub = AddCommand(
      root, "export", "PATH -o OUT [options]",
      "write the timeline as Chrome trace events (Perfetto)",
      "Reads a trace (a feedprof session directory or trace file, a PyTorch\n"
      "profiler / Kineto .json or .json.gz, an Nsight Systems .sqlite export)\n"
      "and writes its timeline as Chrome trace event JSON, gzip-compressed\n"
      "when OUT ends in .gz: host threads with their ranges, CUDA calls and\n"
      "scheduler state, GPU streams, idle gaps by cause, launch arrows and\n"
      "counters. Open it in https://ui.perfetto.dev (Open trace file).",
      "Exit codes: 0 written, 1 the input could not be read or OUT not\n"
      "written (no partial OUT is left), 2 usage error.");
  sub->add_option("PATH", args->path, "The trace to export")->required();
  sub->add_option("-o,--output", args->out,
                  "The file to write (.json, or .json.gz for gzip)")
      ->type_name("OUT")
      ->required();
  AddAnalysisOptions(sub, &args->analysis, "Export", /*pre_window=*/false,
                     /*what_if=*/false);
  AddStepsOption(sub, &args->steps, "Export");
  sub->callback([args, exit_code] { *exit_code = Run(*args); });
}

}  // namespace feedprof::cli
