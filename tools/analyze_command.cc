// `feedprof analyze PATH`: reads a trace of any supported format, analyses
// it and prints the verdict with its evidence, as text or JSON.
//
// Exit codes: 0 analysed (also when the trace has no GPU activity: the
// report says why), 1 the input could not be read or analysed (the message
// names the file and what is wrong), 2 usage error.
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "feedprof/analysis.h"
#include "feedprof/report.h"
#include "feedprof/trace_loader.h"
#include "tools/command_line.h"
#include "tools/commands.h"

namespace feedprof::cli {
namespace {

struct AnalyzeArgs {
  std::string path;
  std::string format = "text";
  bool json = false;
  bool summary_only = false;
  int64_t rank = -1;  // -1: every rank
  std::string from, to;
  std::string step_range;
  bool include_pre_window = false;
};

// A --from/--to value: nanoseconds, or a number with a unit.
std::string CheckTime(const std::string& text) {
  absl::StatusOr<TimeNs> t = ParseTimeArg(text);
  return t.ok() ? std::string() : std::string(t.status().message());
}

int Run(const AnalyzeArgs& args) {
  const std::string& path = args.path;
  const std::string format = args.json ? "json" : args.format;
  AnalysisOptions options;
  if (args.rank >= 0) options.rank = static_cast<int32_t>(args.rank);
  if (!args.from.empty()) options.from = *ParseTimeArg(args.from);
  if (!args.to.empty()) options.to = *ParseTimeArg(args.to);
  options.step_range_name = args.step_range;
  options.include_pre_window = args.include_pre_window;
  if (options.from && options.to && *options.to <= *options.from) {
    throw UsageError("--to must be later than --from");
  }

  absl::StatusOr<Timeline> timeline = LoadTrace(path);
  if (!timeline.ok()) {
    // Readers name the file themselves; say it once.
    const std::string message(timeline.status().message());
    if (message.rfind(path, 0) == 0) {
      std::fprintf(stderr, "feedprof analyze: %s\n", message.c_str());
    } else {
      std::fprintf(stderr, "feedprof analyze: cannot read %s: %s\n",
                   path.c_str(), message.c_str());
    }
    return kExitFailed;
  }
  absl::StatusOr<Report> report = Analyze(*timeline, options);
  if (!report.ok()) {
    std::fprintf(stderr, "feedprof analyze: cannot analyse %s: %s\n",
                 path.c_str(), std::string(report.status().message()).c_str());
    return kExitFailed;
  }
  // Reader warnings (salvaged input) also go to stderr so a JSON consumer
  // piping stdout still sees them on the terminal.
  for (const std::string& w : report->warnings) {
    std::fprintf(stderr, "feedprof analyze: warning: %s\n", w.c_str());
  }
  TextReportOptions text;
  text.details = !args.summary_only;
  const std::string out = format == "json" ? WriteJsonReport(*report)
                                           : WriteTextReport(*report, text);
  std::fwrite(out.data(), 1, out.size(), stdout);
  return std::fflush(stdout) == 0 ? kExitOk : kExitFailed;
}

}  // namespace

void AddAnalyzeCommand(CLI::App& root, int* exit_code) {
  auto args = std::make_shared<AnalyzeArgs>();
  CLI::App* sub = AddCommand(
      root, "analyze", "PATH [options]", "say what limits the GPU feed",
      "Reads a trace (a feedprof session directory or trace file, a PyTorch\n"
      "profiler / Kineto .json or .json.gz, an Nsight Systems .sqlite export)\n"
      "and says which feeding of the GPU limits the run.",
      "Exit codes: 0 analysed (also a trace without GPU activity: the report\n"
      "says why), 1 the input could not be analysed, 2 usage error.");
  sub->add_option("PATH", args->path, "The trace to analyse")->required();
  sub->add_option("--format", args->format,
                  "Output format: text (default) or json")
      ->type_name("FORMAT")
      ->check(Check([](const std::string& v) {
        return v == "text" || v == "json"
                   ? std::string()
                   : "unknown format '" + v + "': use text or json";
      }));
  sub->add_flag("--json", args->json, "Same as --format json");
  sub->add_flag("--summary", args->summary_only,
                "Text: print the one-screen summary only");
  sub->add_option("--rank", args->rank, "Analyse only the processes of rank N")
      ->type_name("N")
      ->check(Check([](const std::string& v) {
        return !v.empty() &&
                       v.find_first_not_of("0123456789") == std::string::npos
                   ? std::string()
                   : "'" + v + "' is not a rank number (0, 1, ...)";
      }));
  sub->add_option("--from", args->from,
                  "Analyse from T after the trace start: nanoseconds\n"
                  "(1500000) or a number with a unit: ns, us, ms, s (12.5ms)")
      ->type_name("T")
      ->check(Check(CheckTime));
  sub->add_option("--to", args->to, "Analyse up to T after the trace start")
      ->type_name("T")
      ->check(Check(CheckTime));
  sub->add_option("--step-range", args->step_range,
                  "Steps are the ranges whose name starts with NAME")
      ->type_name("NAME")
      ->check(Check([](const std::string& v) {
        return v.empty() ? std::string("needs a name") : std::string();
      }));
  sub->add_flag("--include-pre-window", args->include_pre_window,
                "Keep GPU work launched before recording began");
  sub->callback([args, exit_code] { *exit_code = Run(*args); });
}

}  // namespace feedprof::cli
