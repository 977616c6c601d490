// `feedprof diff BEFORE AFTER`: analyses two runs the same way and says
// what changed between them: step time with a noise test, idle by cause,
// verdict, launches, kernels, copies, sync points, host CPU and the
// platform (docs/diff.md). With --fail-if-slower it is a CI gate.
//
// Exit codes: 0 compared (and the --fail-if-slower gate passed), 3 the
// gate failed: AFTER's median step is more than the percentage above
// BEFORE's and a one-sided Mann-Whitney U test says AFTER is slower, 4 the
// gate cannot decide (no steps, or too few for the test), 1 an input could
// not be analysed, 2 usage error.
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/numbers.h"
#include "feedprof/analysis_progress.h"
#include "feedprof/compare.h"
#include "feedprof/diff_report.h"
#include "tools/analysis_args.h"
#include "tools/command_line.h"
#include "tools/commands.h"

namespace feedprof::cli {
namespace {

constexpr int kExitSlower = 3;
// Not 0: a CI job whose gate could not test anything has not passed it.
constexpr int kExitCannotDecide = 4;

struct DiffArgs {
  std::string before, after;
  std::string format = "text";
  bool summary_only = false;
  std::string steps;
  std::optional<double> fail_if_slower;
  AnalysisArgs analysis;
};

std::optional<AnalyzedRun> AnalyzeSide(const std::string& path,
                                       const CompareOptions& options,
                                       const AnalysisArgs& args) {
  std::optional<Timeline> timeline = LoadForCommand("diff", path, args);
  if (!timeline) return std::nullopt;
  absl::StatusOr<AnalyzedRun> run;
  {
    // Erased before any message below.
    AnalysisProgressLine progress(path);
    CompareOptions with_progress = options;
    with_progress.analysis.on_phase = progress.Reporter();
    run = AnalyzeForComparison(std::move(*timeline), with_progress);
  }
  if (!run.ok()) {
    std::fprintf(stderr, "feedprof diff: cannot analyse %s: %s\n", path.c_str(),
                 std::string(run.status().message()).c_str());
    return std::nullopt;
  }
  for (const std::string& w : run->report.warnings) {
    std::fprintf(stderr, "feedprof diff: warning: %s: %s\n", path.c_str(),
                 w.c_str());
  }
  return std::move(*run);
}

int Run(const DiffArgs& args) {
  CompareOptions options;
  options.analysis = ToAnalysisOptions(args.analysis);
  options.fail_if_slower_percent = args.fail_if_slower;
  if (!args.steps.empty()) {
    const auto [first, last] = StepsOf(args.steps, options.analysis);
    options.steps = StepSelection{first, last};
  }
  std::optional<AnalyzedRun> before =
      AnalyzeSide(args.before, options, args.analysis);
  if (!before) return kExitFailed;
  std::optional<AnalyzedRun> after =
      AnalyzeSide(args.after, options, args.analysis);
  if (!after) return kExitFailed;
  const Comparison comparison = Compare(*before, *after, options);
  DiffTextOptions text;
  text.details = !args.summary_only;
  const std::string out = args.format == "json" ? WriteJsonDiff(comparison)
                          : args.format == "html"
                              ? WriteHtmlDiff(comparison)
                              : WriteTextDiff(comparison, text);
  std::fwrite(out.data(), 1, out.size(), stdout);
  if (std::fflush(stdout) != 0) return kExitFailed;
  if (!comparison.gate) return kExitOk;
  const SlowerGate& gate = *comparison.gate;
  std::fprintf(stderr, "feedprof diff: --fail-if-slower %g: %s: %s\n",
               gate.threshold_percent, GateOutcomeName(gate.outcome),
               gate.explanation.c_str());
  switch (gate.outcome) {
    case GateOutcome::kPass:
      return kExitOk;
    case GateOutcome::kSlower:
      return kExitSlower;
    case GateOutcome::kCannotDecide:
      return kExitCannotDecide;
  }
  return kExitCannotDecide;
}

}  // namespace

void AddDiffCommand(CLI::App& root, int* exit_code) {
  auto args = std::make_shared<DiffArgs>();
  CLI::App* sub = AddCommand(
      root, "diff", "BEFORE AFTER [options]", "compare two runs",
      "Analyses two traces (any formats 'feedprof analyze' reads) the same\n"
      "way and says what changed: step time with a noise test, idle by\n"
      "cause, verdict, launches, kernels, copies, sync points, host CPU and\n"
      "the platform. Figures are per step when both runs have steps, else\n"
      "per second of the analysed window.",
      "Exit codes: 0 compared (and the --fail-if-slower gate passed), 3\n"
      "AFTER is slower than BEFORE by more than --fail-if-slower PCT and\n"
      "beyond noise, 4 the gate cannot decide (no steps, or fewer than 4\n"
      "per run), 1 an input could not be analysed, 2 usage error.");
  sub->add_option("BEFORE", args->before, "The run before the change")
      ->required();
  sub->add_option("AFTER", args->after, "The run after the change")->required();
  sub->add_option("--format", args->format,
                  "Output format: text (default), json or html")
      ->type_name("FORMAT")
      ->check(Check([](const std::string& v) {
        return v == "text" || v == "json" || v == "html"
                   ? std::string()
                   : "unknown format '" + v + "': use text, json or html";
      }));
  sub->add_flag("--summary", args->summary_only,
                "Text: print the one-screen summary only");
  AddStepsOption(sub, &args->steps, "Compare");
  sub->add_option(
         "--fail-if-slower", args->fail_if_slower,
         "CI gate: exit 3 when AFTER's median step time is more than PCT\n"
         "percent above BEFORE's and a one-sided Mann-Whitney U test says\n"
         "AFTER's steps are longer (p < 0.05); exit 4 when it cannot\n"
         "decide (no steps, or fewer than 4 per run: record more steps)")
      ->type_name("PCT")
      ->check(Check([](const std::string& v) {
        double pct = 0;
        return absl::SimpleAtod(v, &pct) && pct >= 0
                   ? std::string()
                   : "'" + v + "' is not a percentage (0, 5, 2.5, ...)";
      }));
  AddAnalysisOptions(sub, &args->analysis, "Compare");
  sub->callback([args, exit_code] { *exit_code = Run(*args); });
}

}  // namespace feedprof::cli
