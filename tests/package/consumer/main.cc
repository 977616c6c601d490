// Reads a trace and prints its verdict through the installed analysis
// library only (feedprof/trace_loader.h, analysis.h, report.h), so the
// package test knows the exported headers and targets are enough to use it.
#include <cstdio>
#include <string>

#include "feedprof/analysis.h"
#include "feedprof/report.h"
#include "feedprof/trace_loader.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: feedprof_consumer TRACE\n");
    return 2;
  }
  absl::StatusOr<feedprof::Timeline> timeline = feedprof::LoadTrace(argv[1]);
  if (!timeline.ok()) {
    std::fprintf(stderr, "feedprof_consumer: %s\n",
                 std::string(timeline.status().message()).c_str());
    return 1;
  }
  absl::StatusOr<feedprof::Report> report =
      feedprof::Analyze(*timeline, feedprof::AnalysisOptions{});
  if (!report.ok()) {
    std::fprintf(stderr, "feedprof_consumer: %s\n",
                 std::string(report.status().message()).c_str());
    return 1;
  }
  std::printf("processes=%zu events=%llu verdict=%s\n",
              timeline->processes.size(),
              static_cast<unsigned long long>(report->events),
              feedprof::VerdictClassName(report->verdict.primary));
  const std::string json = feedprof::WriteJsonReport(*report);
  std::printf("json_schema=%s\n",
              json.find("\"feedprof.analysis/1\"") != std::string::npos
                  ? "feedprof.analysis/1"
                  : "missing");
  return 0;
}
