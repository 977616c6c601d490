// The options `analyze`, `report`, `diff` and `export` share: which part of
// a trace to use (--rank, --from, --to, --step-range, --include-pre-window),
// the what-if replay's parameters (--what-if-gpu-speedup,
// --what-if-launch-cost), where native modules are (--symbol-path), and
// loading (with native frames symbolized) plus analysing a trace with the
// same messages everywhere.
#ifndef FEEDPROF_TOOLS_ANALYSIS_ARGS_H_
#define FEEDPROF_TOOLS_ANALYSIS_ARGS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>
#include <utility>

#include "CLI/CLI.hpp"
#include "feedprof/analysis.h"

namespace feedprof::cli {

struct AnalysisArgs {
  int64_t rank = -1;  // -1: every rank
  std::string from, to;
  std::string step_range;
  bool include_pre_window = false;
  // The what-if replay: run it (commands that show no prediction skip
  // it), and its parameters as typed ("" when not given).
  bool what_if = true;
  bool no_what_if = false;          // --no-what-if
  std::string what_if_gpu_speedup;  // PCT
  std::string what_if_launch_cost;  // a duration ("1us") or "0.5x"
  // --user-code PART, --not-user-code PART (UserCodeRule).
  std::vector<std::string> user_code, not_user_code;
  std::vector<std::string> symbol_paths;  // --symbol-path DIR
};

// Registers the shared options on `command`; `verb` starts their help
// ("Analyse", "Export"). --include-pre-window only with `pre_window`; the
// what-if options only with `what_if` (without, the replay is not run).
void AddAnalysisOptions(CLI::App* command, AnalysisArgs* args,
                        const std::string& verb = "Analyse",
                        bool pre_window = true, bool what_if = true);

// --steps A:B (or A): steps A to B, counted from 1 as the report lists
// them, inclusive. `verb` starts its help ("Export", "Compare").
void AddStepsOption(CLI::App* command, std::string* steps,
                    const std::string& verb);

// The steps of a --steps value the option's check accepted; throws
// UsageError when --from/--to are given too.
std::pair<uint64_t, uint64_t> StepsOf(const std::string& steps,
                                      const AnalysisOptions& options);

// The analysis options; throws UsageError when --to is not after --from.
AnalysisOptions ToAnalysisOptions(const AnalysisArgs& args);

// Loads `path` and symbolizes its native frames (--symbol-path in
// `args`). On failure prints one line naming the file and the problem,
// prefixed "feedprof COMMAND: ", and returns nullopt.
std::optional<Timeline> LoadForCommand(const char* command,
                                       const std::string& path,
                                       const AnalysisArgs& args);

// Analyze with the analysis progress line on the terminal
// (feedprof/analysis_progress.h), erased before it returns; `path` names
// the input in the line.
absl::StatusOr<Report> AnalyzeShowingProgress(const Timeline& timeline,
                                              const AnalysisOptions& options,
                                              const std::string& path);
// The same for a timeline the caller has no further use for: the events
// the analysis no longer needs are freed as it goes (Analyze(Timeline&&)).
absl::StatusOr<Report> AnalyzeShowingProgress(Timeline&& timeline,
                                              const AnalysisOptions& options,
                                              const std::string& path);

// Loads `path` and analyses it (with the progress line). On failure prints one
// line naming the file and the problem, prefixed "feedprof COMMAND: ", and
// returns nullopt. Reader and analysis warnings go to stderr too.
std::optional<Report> LoadAndAnalyze(const char* command,
                                     const std::string& path,
                                     const AnalysisArgs& args);

}  // namespace feedprof::cli

#endif  // FEEDPROF_TOOLS_ANALYSIS_ARGS_H_
