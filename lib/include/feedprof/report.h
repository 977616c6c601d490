// Writers for the analysis report: a one-screen text summary followed by
// details, versioned JSON ("feedprof.analysis/1", documented field by
// field in docs/report-json.md) and a self-contained HTML page.
//
// All render the same report model (feedprof/analysis.h); none computes
// anything, so the outputs always agree. Values a trace could not
// provide are written as "not available" (text) or null (JSON), never as 0.
#ifndef FEEDPROF_REPORT_H_
#define FEEDPROF_REPORT_H_

#include <string>

#include "feedprof/analysis_report.h"

namespace feedprof {

struct TextReportOptions {
  bool details = true;  // false: the one-screen summary only
  int max_rows = 8;     // rows per detail table
  // The what-if table (Report::what_if): every scenario's predicted step
  // time and saving, after the summary (`analyze --what-if`).
  bool what_if = false;
};

std::string WriteTextReport(const Report& report,
                            const TextReportOptions& options = {});
std::string WriteJsonReport(const Report& report);
// One self-contained HTML page (inline CSS and SVG, no network; see
// docs/html-report.md) from the same model.
std::string WriteHtmlReport(const Report& report);
// The report's stacks (HostCode) as folded stacks, one line per distinct
// stack: "role;outermost;...;innermost NANOSECONDS", the input of
// flamegraph.pl, speedscope and inferno (docs/metrics.md, "Host time by
// code location"). Empty when the trace has no stacks.
std::string WriteFoldedStacks(const Report& report);

}  // namespace feedprof

#endif  // FEEDPROF_REPORT_H_
