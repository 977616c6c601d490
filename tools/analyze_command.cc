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
  const AnalysisOptions options = ToAnalysisOptions(args.analysis);
  std::optional<Report> report = LoadAndAnalyze("analyze", args.path, options);
  if (!report) return kExitFailed;
  TextReportOptions text;
  text.details = !args.summary_only;
  text.what_if = args.what_if;
  const std::string out = format == "json"   ? WriteJsonReport(*report)
                          : format == "html" ? WriteHtmlReport(*report)
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
                  "Output format: text (default), json or html (a\n"
                  "self-contained page; 'feedprof report' writes it to a "
                  "file)")
      ->type_name("FORMAT")
      ->check(Check([](const std::string& v) {
        return v == "text" || v == "json" || v == "html"
                   ? std::string()
                   : "unknown format '" + v + "': use text, json or html";
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
