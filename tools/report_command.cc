// `feedprof report PATH -o report.html`: analyses a trace like `analyze`
// and writes the self-contained HTML report (docs/html-report.md) to a
// file, to open offline in a browser or attach to a bug report.
//
// Exit codes: 0 written, 1 the input could not be analysed or the output
// not written (the message says which), 2 usage error.
#include <cerrno>
#include <cstdio>
#include <cstring>
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

struct ReportArgs {
  std::string path;
  std::string output = "report.html";
  AnalysisArgs analysis;
};

// Writes `bytes` to `path` ("-": stdout).
bool WriteFile(const std::string& path, const std::string& bytes) {
  if (path == "-") {
    std::fwrite(bytes.data(), 1, bytes.size(), stdout);
    return std::fflush(stdout) == 0;
  }
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) {
    std::fprintf(stderr,
                 "feedprof report: cannot write %s: %s; choose another path "
                 "with -o\n",
                 path.c_str(), std::strerror(errno));
    return false;
  }
  const bool written =
      std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  const int saved_errno = errno;
  const bool closed = std::fclose(f) == 0;
  if (!written || !closed) {
    std::fprintf(stderr, "feedprof report: cannot write %s: %s\n", path.c_str(),
                 std::strerror(written ? errno : saved_errno));
    return false;
  }
  return true;
}

int Run(const ReportArgs& args) {
  std::optional<Report> report =
      LoadAndAnalyze("report", args.path, args.analysis);
  if (!report) return kExitFailed;
  const std::string html = WriteHtmlReport(*report);
  if (!WriteFile(args.output, html)) return kExitFailed;
  if (args.output != "-") {
    std::fprintf(stderr, "feedprof report: wrote %s (%zu KiB): %s\n",
                 args.output.c_str(), (html.size() + 1023) / 1024,
                 VerdictClassName(report->verdict.primary));
  }
  return kExitOk;
}

}  // namespace

void AddReportCommand(CLI::App& root, int* exit_code) {
  auto args = std::make_shared<ReportArgs>();
  CLI::App* sub = AddCommand(
      root, "report", "PATH [-o FILE] [options]",
      "write the HTML report of a trace",
      "Analyses a trace like 'feedprof analyze' and writes one self-contained\n"
      "HTML page (verdict, timeline, idle causes, steps, tables) that opens\n"
      "offline in any browser.",
      "Exit codes: 0 written, 1 the input could not be analysed or the file\n"
      "not written, 2 usage error.");
  sub->add_option("PATH", args->path, "The trace to analyse")->required();
  sub->add_option("-o,--output", args->output,
                  "Write the page to FILE (default report.html; - for stdout)")
      ->type_name("FILE");
  AddAnalysisOptions(sub, &args->analysis);
  sub->callback([args, exit_code] { *exit_code = Run(*args); });
}

}  // namespace feedprof::cli
