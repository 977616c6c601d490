// Options and loading shared by `analyze`, `report`, `diff` and `export`
// (analysis_args.h).
#include "tools/analysis_args.h"

#include <cmath>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "feedprof/analysis_progress.h"
#include "feedprof/rank_digest.h"
#include "feedprof/symbolize.h"
#include "feedprof/trace_loader.h"
#include "tools/command_line.h"
#include "tools/time_arg.h"

namespace feedprof::cli {
namespace {

// A --from/--to value: nanoseconds, or a number with a unit.
std::string CheckTime(const std::string& text) {
  absl::StatusOr<TimeNs> t = ParseTimeArg(text);
  return t.ok() ? std::string() : std::string(t.status().message());
}

// --what-if-gpu-speedup PCT: kernels PCT percent faster, 0 < PCT < 100.
std::string ParseGpuSpeedup(const std::string& text, double* fraction) {
  double pct = 0;
  if (!absl::SimpleAtod(text, &pct) || !std::isfinite(pct) || pct <= 0 ||
      pct >= 100) {
    return "'" + text +
           "' is not a speedup: a percentage above 0 and below 100 (20: "
           "every kernel 20% shorter)";
  }
  *fraction = pct / 100;
  return "";
}

// --what-if-launch-cost VALUE: what each kernel launch call costs, a
// duration with a unit ("1us") or a fraction of its recorded time ("0.5x").
std::string ParseLaunchCost(const std::string& text, WhatIfOptions* options) {
  const std::string usage =
      "'" + text +
      "' is not a launch cost: a duration with a unit (1us, 800ns) or a "
      "multiple of the recorded launch time above 0 and at most 100 (0.5x; "
      "1.5x asks what slower launches would cost)";
  if (!text.empty() && (text.back() == 'x' || text.back() == 'X')) {
    double fraction = 0;
    if (!absl::SimpleAtod(text.substr(0, text.size() - 1), &fraction) ||
        !std::isfinite(fraction) || fraction <= 0 || fraction > 100) {
      return usage;
    }
    options->launch_cost_fraction = fraction;
    return "";
  }
  absl::StatusOr<TimeNs> ns = ParseTimeArg(text);
  if (!ns.ok()) return usage;
  options->launch_cost_ns = *ns;
  return "";
}

bool ParseStepNumber(const std::string& text, uint64_t* value) {
  if (text.empty() || text.size() > 18 ||
      text.find_first_not_of("0123456789") != std::string::npos) {
    return false;
  }
  *value = std::stoull(text);
  return *value > 0;
}

// "A:B" or "A" into steps A..B; false when it is neither.
bool ParseSteps(const std::string& text, uint64_t* first, uint64_t* last) {
  const size_t colon = text.find(':');
  if (colon == std::string::npos) {
    if (!ParseStepNumber(text, first)) return false;
    *last = *first;
    return true;
  }
  return ParseStepNumber(text.substr(0, colon), first) &&
         ParseStepNumber(text.substr(colon + 1), last) && *last >= *first;
}

}  // namespace

void AddStepsOption(CLI::App* sub, std::string* steps,
                    const std::string& verb) {
  sub->add_option("--steps", *steps,
                  verb +
                      " steps A to B (counted from 1, as the report\n"
                      "lists them): from the start of step A to the end of B")
      ->type_name("A:B")
      ->check(Check([](const std::string& text) {
        uint64_t a = 0, b = 0;
        return ParseSteps(text, &a, &b)
                   ? std::string()
                   : "'" + text +
                         "' is not a step range: A:B with 1 <= A <= B "
                         "(steps count from 1), or A";
      }));
}

std::pair<uint64_t, uint64_t> StepsOf(const std::string& steps,
                                      const AnalysisOptions& options) {
  if (options.from || options.to) {
    throw UsageError(
        "--steps and --from/--to both choose the window: give one of them");
  }
  uint64_t first = 0, last = 0;
  ParseSteps(steps, &first, &last);  // checked when parsed
  return {first, last};
}

void AddAnalysisOptions(CLI::App* sub, AnalysisArgs* args,
                        const std::string& verb, bool pre_window,
                        bool what_if) {
  sub->add_option("--rank", args->rank, verb + " only the processes of rank N")
      ->type_name("N")
      ->check(Check([](const std::string& v) {
        return !v.empty() &&
                       v.find_first_not_of("0123456789") == std::string::npos
                   ? std::string()
                   : "'" + v + "' is not a rank number (0, 1, ...)";
      }));
  sub->add_option(
         "--from", args->from,
         verb +
             " from T after the trace start: nanoseconds\n"
             "(1500000) or a number with a unit: ns, us, ms, s (12.5ms)")
      ->type_name("T")
      ->check(Check(CheckTime));
  sub->add_option("--to", args->to, verb + " up to T after the trace start")
      ->type_name("T")
      ->check(Check(CheckTime));
  sub->add_option("--step-range", args->step_range,
                  "Steps are the ranges whose name starts with NAME")
      ->type_name("NAME")
      ->check(Check([](const std::string& v) {
        return v.empty() ? std::string("needs a name") : std::string();
      }));
  sub->add_option("--symbol-path", args->symbol_paths,
                  "Look for native modules (executables, libraries) in DIR\n"
                  "first, to symbolize native frames (repeatable)")
      ->type_name("DIR")
      ->allow_extra_args(false);
  sub->add_option("--user-code", args->user_code,
                  "Count Python files and native modules whose path\n"
                  "contains PART as your code (repeatable; e.g. a library\n"
                  "you maintain under site-packages)")
      ->type_name("PART")
      ->allow_extra_args(false);
  sub->add_option("--not-user-code", args->not_user_code,
                  "Count paths that contain PART as library code, never\n"
                  "named as your line (repeatable; wins over --user-code)")
      ->type_name("PART")
      ->allow_extra_args(false);
  if (pre_window) {
    sub->add_flag("--include-pre-window", args->include_pre_window,
                  "Keep GPU work launched before recording began");
  }
  args->what_if = what_if;
  if (!what_if) return;
  sub->add_flag("--no-what-if", args->no_what_if,
                "Skip the what-if replay (next steps then carry no estimate)");
  sub->add_option("--what-if-gpu-speedup", args->what_if_gpu_speedup,
                  "What-if: the faster-GPU scenario makes every kernel\n"
                  "PCT percent shorter (default 20)")
      ->type_name("PCT")
      ->check(Check([](const std::string& v) {
        double fraction = 0;
        return ParseGpuSpeedup(v, &fraction);
      }));
  sub->add_option("--what-if-launch-cost", args->what_if_launch_cost,
                  "What-if: each kernel launch call in the cheaper-launches\n"
                  "scenario costs VALUE, a duration (1us) or a multiple of\n"
                  "its recorded time (0.5x); default: a CUDA graph replay's\n"
                  "cost per kernel")
      ->type_name("VALUE")
      ->check(Check([](const std::string& v) {
        WhatIfOptions options;
        return ParseLaunchCost(v, &options);
      }));
}

AnalysisOptions ToAnalysisOptions(const AnalysisArgs& args) {
  AnalysisOptions options;
  if (args.rank >= 0) options.rank = static_cast<int32_t>(args.rank);
  if (!args.from.empty()) options.from = *ParseTimeArg(args.from);
  if (!args.to.empty()) options.to = *ParseTimeArg(args.to);
  options.step_range_name = args.step_range;
  options.include_pre_window = args.include_pre_window;
  options.user_code.user = args.user_code;
  options.user_code.not_user = args.not_user_code;
  options.what_if.enabled = args.what_if && !args.no_what_if;
  // Both were checked when parsed.
  if (!args.what_if_gpu_speedup.empty()) {
    ParseGpuSpeedup(args.what_if_gpu_speedup, &options.what_if.gpu_speedup);
  }
  if (!args.what_if_launch_cost.empty()) {
    ParseLaunchCost(args.what_if_launch_cost, &options.what_if);
  }
  if (options.from && options.to && *options.to <= *options.from) {
    throw UsageError("--to must be later than --from");
  }
  return options;
}

std::optional<Timeline> LoadForCommand(const char* command,
                                       const std::string& path,
                                       const AnalysisArgs& args) {
  absl::StatusOr<Timeline> timeline = LoadTrace(path);
  if (timeline.ok()) {
    // Native frames (module+offset) to function and line; a no-op for
    // traces without any.
    SymbolizeOptions symbolize;
    symbolize.symbol_paths = args.symbol_paths;
    SymbolizeNativeFrames(*timeline, symbolize);
    return std::move(*timeline);
  }
  // Readers name the file themselves; say it once.
  const std::string message(timeline.status().message());
  if (message.rfind(path, 0) == 0) {
    std::fprintf(stderr, "feedprof %s: %s\n", command, message.c_str());
  } else {
    std::fprintf(stderr, "feedprof %s: cannot read %s: %s\n", command,
                 path.c_str(), message.c_str());
  }
  return std::nullopt;
}

namespace {

// Analyze(timeline) with the progress line; TimelineRef is a const
// Timeline& or a Timeline&& passed on as it came.
template <typename TimelineRef>
absl::StatusOr<Report> AnalyzeWithProgressLine(TimelineRef&& timeline,
                                               const AnalysisOptions& options,
                                               const std::string& path) {
  AnalysisProgressLine progress(path);
  AnalysisOptions with_progress = options;
  with_progress.on_phase = progress.Reporter();
  return Analyze(std::forward<TimelineRef>(timeline), with_progress);
}

}  // namespace

absl::StatusOr<Report> AnalyzeShowingProgress(const Timeline& timeline,
                                              const AnalysisOptions& options,
                                              const std::string& path) {
  return AnalyzeWithProgressLine(timeline, options, path);
}

absl::StatusOr<Report> AnalyzeShowingProgress(Timeline&& timeline,
                                              const AnalysisOptions& options,
                                              const std::string& path) {
  return AnalyzeWithProgressLine(std::move(timeline), options, path);
}

std::optional<Report> LoadAndAnalyze(const char* command,
                                     const std::string& path,
                                     const AnalysisArgs& args) {
  const AnalysisOptions options = ToAnalysisOptions(args);
  if (IsRankDigestInput(path)) {
    // Rank digests: the multi-rank report, without the events.
    absl::StatusOr<Report> report = AnalyzeRankDigests(path);
    if (!report.ok()) {
      std::fprintf(stderr, "feedprof %s: cannot analyse %s: %s\n", command,
                   path.c_str(),
                   std::string(report.status().message()).c_str());
      return std::nullopt;
    }
    for (const std::string& w : report->warnings) {
      std::fprintf(stderr, "feedprof %s: warning: %s\n", command, w.c_str());
    }
    return std::move(*report);
  }
  std::optional<Timeline> timeline = LoadForCommand(command, path, args);
  if (!timeline) return std::nullopt;
  absl::StatusOr<Report> report =
      AnalyzeShowingProgress(std::move(*timeline), options, path);
  if (!report.ok()) {
    std::fprintf(stderr, "feedprof %s: cannot analyse %s: %s\n", command,
                 path.c_str(), std::string(report.status().message()).c_str());
    return std::nullopt;
  }
  // Reader warnings (salvaged input) also go to stderr so a consumer
  // piping stdout still sees them on the terminal.
  for (const std::string& w : report->warnings) {
    std::fprintf(stderr, "feedprof %s: warning: %s\n", command, w.c_str());
  }
  return std::move(*report);
}

}  // namespace feedprof::cli
