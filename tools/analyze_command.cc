// `feedprof analyze PATH`: reads a trace of any supported format, analyses
// it and prints the verdict with its evidence, as text, JSON or HTML.
//
// Exit codes: 0 analysed (also when the trace has no GPU activity: the
// report says why), 1 the input could not be read or analysed (the message
// names the file and what is wrong), 2 usage error.
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "feedprof/analysis.h"
#include "feedprof/report.h"
#include "tools/analysis_args.h"
#include "tools/command_line.h"
#include "tools/commands.h"

namespace feedprof::cli {
namespace {

struct AnalyzeArgs {
  std::string path;
  std::string format = "text";
  bool json = false;
  bool summary_only = false;
  bool what_if = false;
  AnalysisArgs analysis;
};

int Run(const AnalyzeArgs& args) {
  const std::string format = args.json ? "json" : args.format;
  std::optional<Report> report =
      LoadAndAnalyze("analyze", args.path, args.analysis);
  if (!report) return kExitFailed;
  TextReportOptions text;
  text.details = !args.summary_only;
  text.what_if = args.what_if;
  if (format == "folded" && !report->host_code.available) {
    std::fprintf(stderr,
                 "feedprof analyze: %s holds no stacks to fold: record a "
                 "PyTorch profiler trace with with_stack=True, or an Nsight "
                 "Systems trace with CPU sampling and backtraces\n",
                 args.path.c_str());
    return kExitFailed;
  }
  const std::string out = format == "json"     ? WriteJsonReport(*report)
                          : format == "html"   ? WriteHtmlReport(*report)
                          : format == "folded" ? WriteFoldedStacks(*report)
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
                  "Output format: text (default), json, html (a\n"
                  "self-contained page; 'feedprof report' writes it to a "
                  "file) or\nfolded (the host threads' stacks for flame "
                  "graph tools)")
      ->type_name("FORMAT")
      ->check(Check([](const std::string& v) {
        return v == "text" || v == "json" || v == "html" || v == "folded"
                   ? std::string()
                   : "unknown format '" + v +
                         "': use text, json, html or folded";
      }));
  sub->add_flag("--json", args->json, "Same as --format json");
  sub->add_flag("--summary", args->summary_only,
                "Text: print the one-screen summary only");
  sub->add_flag("--what-if", args->what_if,
                "Text: print what each change is worth, estimated by\n"
                "replaying the trace (JSON and HTML always hold it)");
  AddAnalysisOptions(sub, &args->analysis);
  sub->callback([args, exit_code] { *exit_code = Run(*args); });
}

}  // namespace feedprof::cli
