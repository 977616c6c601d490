// Fuzzes the analysis and both report writers on whatever a reader accepts.
//
// Readers salvage damaged traces, so the analyzer sees timelines no real run
// produces: ops ending before they start, correlations that match the wrong
// call, ranges without ends, devices without ops, times near the int64
// limits. Whatever a reader accepts must analyse to a report or a clear
// error, render to text, HTML and JSON that parses, and export to a Chrome
// trace that parses. The input goes through
// the format-sniffing loader, so one corpus of feedprof, Kineto and Nsight
// seeds serves all three readers. Besides the default options, each input
// also runs with a --from/--to window, a rank and the pre-window switch
// chosen by a hash of its bytes, and half the inputs with arbitrary offsets
// (as a user may type them), so the mutator reaches those paths without a
// byte layout of its own.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "feedprof/analysis.h"
#include "feedprof/export.h"
#include "feedprof/report.h"
#include "feedprof/trace_loader.h"
#include "tests/fuzz/fuzz_input_file.h"
#include "tests/fuzz/strict_json_check.h"

namespace {

uint64_t Fnv1a(const uint8_t* data, size_t size) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < size; ++i) {
    hash = (hash ^ data[i]) * 0x100000001b3ull;
  }
  return hash;
}

void RequireStrictJson(const std::string& json, const char* what) {
  size_t error_offset = 0;
  if (!feedprof::fuzz::IsStrictJson(json, &error_offset)) {
    std::fprintf(stderr, "the %s is not valid JSON (byte %zu):\n%s\n", what,
                 error_offset, json.c_str());
    std::abort();
  }
}

// Renders `report` every way (text, JSON, HTML, folded stacks) and exports the timeline it
// was analysed from; the JSON report and the export must parse.
void RenderReports(const feedprof::Timeline& timeline,
                   const feedprof::Report& report,
                   const feedprof::AnalysisOptions& options) {
  (void)feedprof::WriteTextReport(report);
  (void)feedprof::WriteTextReport(report, {.details = false, .max_rows = 1});
  (void)feedprof::WriteHtmlReport(report);
  (void)feedprof::WriteFoldedStacks(report);
  const std::string json = feedprof::WriteJsonReport(report);
  RequireStrictJson(json, "JSON report");
  if (json.find(std::string("\"") + feedprof::Report::kSchema + "\"") ==
      std::string::npos) {
    std::fprintf(stderr, "the JSON report has no schema:\n%s\n", json.c_str());
    std::abort();
  }
  feedprof::StringByteSink sink;
  feedprof::ExportOptions export_options;
  export_options.analysis = options;
  if (feedprof::ExportChromeTrace(timeline, report, options, export_options,
                                  sink)
          .ok()) {
    RequireStrictJson(sink.text(), "timeline export");
  }
}

// `share`/256 of `length` (share: the low byte), always below `length`.
feedprof::TimeNs PartOf(feedprof::TimeNs length, uint64_t share) {
  return static_cast<feedprof::TimeNs>(
      static_cast<double>(length) * static_cast<double>(share & 0xff) / 256.0);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // No extension: the loader decides by the bytes alone.
  static feedprof::fuzz::FuzzInputFile input("");
  const absl::StatusOr<feedprof::Timeline> timeline =
      feedprof::LoadTrace(input.Write(data, size));
  if (!timeline.ok()) return 0;

  const absl::StatusOr<feedprof::Report> report =
      feedprof::Analyze(*timeline, feedprof::AnalysisOptions{});
  if (!report.ok()) return 0;
  RenderReports(*timeline, *report, feedprof::AnalysisOptions{});

  const uint64_t hash = Fnv1a(data, size);
  feedprof::AnalysisOptions options;
  // A window inside the trace: from ≤ to ≤ span, without overflow.
  const feedprof::TimeNs span =
      report->window.trace_end - report->window.trace_start;
  const feedprof::TimeNs from = PartOf(span, hash);
  options.from = from;
  options.to = from + PartOf(span - from, hash >> 8) + 1;
  options.include_pre_window = (hash >> 16 & 1) != 0;
  if ((hash >> 17 & 1) != 0 && !timeline->processes.empty()) {
    options.rank =
        timeline->processes[(hash >> 24) % timeline->processes.size()].rank;
  }
  const absl::StatusOr<feedprof::Report> windowed =
      feedprof::Analyze(*timeline, options);
  if (windowed.ok()) RenderReports(*timeline, *windowed, options);

  // Offsets as a user may type them: anything, the int64 limits included.
  if ((hash >> 18 & 1) != 0) {
    const feedprof::AnalysisOptions wild{
        .from = static_cast<feedprof::TimeNs>(hash * 0x9e3779b97f4a7c15ull),
        .to = static_cast<feedprof::TimeNs>(hash ^ (hash >> 1 << 63))};
    const absl::StatusOr<feedprof::Report> typed =
        feedprof::Analyze(*timeline, wild);
    if (typed.ok()) RenderReports(*timeline, *typed, wild);
  }
  return 0;
}
