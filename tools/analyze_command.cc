// `feedprof analyze PATH`: reads a trace of any supported format, analyses
// it and prints the verdict with its evidence, as text or JSON.
//
// Exit codes: 0 analysed (also when the trace has no GPU activity: the
// report says so), 1 the input could not be read or analysed (the message
// names the file and what is wrong), 2 usage error.
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "feedprof/analysis.h"
#include "feedprof/report.h"
#include "feedprof/trace_loader.h"
#include "tools/commands.h"

namespace feedprof::cli {
namespace {

constexpr const char* kUsage =
    "usage: feedprof analyze PATH [options]\n"
    "\n"
    "Reads a trace (a feedprof session directory or trace file, a PyTorch\n"
    "profiler / Kineto .json or .json.gz, an Nsight Systems .sqlite export)\n"
    "and says which feeding of the GPU limits the run.\n"
    "\n"
    "options:\n"
    "  --format text|json      output format (default: text)\n"
    "  --summary               text: print the one-screen summary only\n"
    "  --rank N                analyse only the processes of rank N\n"
    "  --from T, --to T        analyse [T1, T2] relative to the trace start;\n"
    "                          T is nanoseconds (1500000) or a number with a\n"
    "                          unit: ns, us, ms, s (12.5ms)\n"
    "  --step-range NAME       steps are the ranges whose name starts with "
    "NAME\n"
    "  --include-pre-window    keep GPU work launched before recording began\n"
    "\n"
    "exit codes: 0 analysed, 1 the input could not be analysed, 2 usage\n";

int Usage(const std::string& problem) {
  std::fprintf(stderr, "feedprof analyze: %s\n\n%s", problem.c_str(), kUsage);
  return 2;
}

}  // namespace

int RunAnalyze(int argc, char** argv) {
  std::string path;
  std::string format = "text";
  bool summary_only = false;
  AnalysisOptions options;
  for (int i = 0; i < argc; ++i) {
    std::string_view arg = argv[i];
    std::optional<std::string> inline_value;
    if (arg.starts_with("--") && arg.find('=') != std::string_view::npos) {
      const size_t eq = arg.find('=');
      inline_value = std::string(arg.substr(eq + 1));
      arg = arg.substr(0, eq);
    }
    auto value = [&](std::string* out) -> bool {
      if (inline_value) {
        *out = *inline_value;
        return true;
      }
      if (i + 1 >= argc) return false;
      *out = argv[++i];
      return true;
    };
    std::string v;
    if (arg == "-h" || arg == "--help") {
      std::fputs(kUsage, stdout);
      return 0;
    } else if (arg == "--format") {
      if (!value(&v)) return Usage("--format needs a value: text or json");
      if (v != "text" && v != "json") {
        return Usage("unknown --format '" + v + "': use text or json");
      }
      format = v;
    } else if (arg == "--json") {
      format = "json";
    } else if (arg == "--summary") {
      summary_only = true;
    } else if (arg == "--rank") {
      if (!value(&v)) return Usage("--rank needs a rank number");
      char* end = nullptr;
      const long rank = std::strtol(v.c_str(), &end, 10);
      if (v.empty() || *end != '\0' || rank < 0) {
        return Usage("--rank '" + v + "' is not a rank number");
      }
      options.rank = static_cast<int32_t>(rank);
    } else if (arg == "--from" || arg == "--to") {
      if (!value(&v)) return Usage(std::string(arg) + " needs a time");
      absl::StatusOr<TimeNs> t = ParseTimeArg(v);
      if (!t.ok()) return Usage(std::string(t.status().message()));
      (arg == "--from" ? options.from : options.to) = *t;
    } else if (arg == "--step-range") {
      if (!value(&v) || v.empty()) return Usage("--step-range needs a name");
      options.step_range_name = v;
    } else if (arg == "--include-pre-window") {
      options.include_pre_window = true;
    } else if (arg.starts_with("-") && arg.size() > 1) {
      return Usage("unknown option '" + std::string(arg) + "'");
    } else if (path.empty()) {
      path = std::string(arg);
    } else {
      return Usage("more than one PATH given ('" + path + "', '" +
                   std::string(arg) + "')");
    }
  }
  if (path.empty()) return Usage("no trace given");
  if (options.from && options.to && *options.to <= *options.from) {
    return Usage("--to must be later than --from");
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
    return 1;
  }
  absl::StatusOr<Report> report = Analyze(*timeline, options);
  if (!report.ok()) {
    std::fprintf(stderr, "feedprof analyze: cannot analyse %s: %s\n",
                 path.c_str(), std::string(report.status().message()).c_str());
    return 1;
  }
  // Reader warnings (salvaged input) also go to stderr so a JSON consumer
  // piping stdout still sees them on the terminal.
  for (const std::string& w : report->warnings) {
    std::fprintf(stderr, "feedprof analyze: warning: %s\n", w.c_str());
  }
  TextReportOptions text;
  text.details = !summary_only;
  const std::string out = format == "json" ? WriteJsonReport(*report)
                                           : WriteTextReport(*report, text);
  std::fwrite(out.data(), 1, out.size(), stdout);
  return std::fflush(stdout) == 0 ? 0 : 1;
}

}  // namespace feedprof::cli
