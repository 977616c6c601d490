// Implements session_summary.h.
#include "tools/session_summary.h"

#include <cstdio>
#include <string>

#include "absl/status/statusor.h"
#include "feedprof/analysis.h"
#include "feedprof/report.h"
#include "feedprof/trace_loader.h"

namespace feedprof::cli {

void PrintSessionSummary(const std::string& session_dir) {
  absl::StatusOr<Timeline> timeline = LoadTrace(session_dir);
  absl::StatusOr<Report> report =
      timeline.ok() ? Analyze(*timeline, AnalysisOptions{})
                    : absl::StatusOr<Report>(timeline.status());
  if (!report.ok()) {
    std::fprintf(stderr, "feedprof: no summary: %s\n",
                 std::string(report.status().message()).c_str());
    return;
  }
  TextReportOptions options;
  options.details = false;
  const std::string text = WriteTextReport(*report, options);
  std::fputs("\n", stderr);
  std::fwrite(text.data(), 1, text.size(), stderr);
  if (!text.empty() && text.back() != '\n') std::fputs("\n", stderr);
  std::fflush(stderr);
}

}  // namespace feedprof::cli
