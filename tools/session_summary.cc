// Implements session_summary.h.
#include "tools/session_summary.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "feedprof/analysis.h"
#include "feedprof/report.h"
#include "feedprof/trace_loader.h"

namespace feedprof::cli {

void PrintSessionSummary(const std::string& session_dir) {
  absl::StatusOr<Timeline> timeline = LoadTrace(session_dir);
  absl::StatusOr<Report> report =
      timeline.ok() ? Analyze(std::move(*timeline), AnalysisOptions{})
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

  // The HTML report beside the traces (readers take only *.fpt files from
  // a session directory, so it does not get in their way).
  const std::string html_path = session_dir + "/report.html";
  const std::string html = WriteHtmlReport(*report);
  std::FILE* f = std::fopen(html_path.c_str(), "wbx");
  bool written = f != nullptr;
  const int open_errno = errno;
  if (f != nullptr) {
    written = std::fwrite(html.data(), 1, html.size(), f) == html.size();
    written = (std::fclose(f) == 0) && written;
    if (!written) std::remove(html_path.c_str());
  }
  if (written) {
    std::fprintf(stderr, "feedprof: report written to %s\n", html_path.c_str());
  } else {
    std::fprintf(stderr, "feedprof: cannot write %s: %s\n", html_path.c_str(),
                 std::strerror(f == nullptr ? open_errno : EIO));
  }
  std::fflush(stderr);
}

}  // namespace feedprof::cli
