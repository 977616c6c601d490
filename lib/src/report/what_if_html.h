// The HTML report's "What each next step is worth" section: the what-if
// replay's scenarios (Report::what_if) as bars of the step they would
// save, with the predicted and observed step time, the assumptions and the
// note that these are estimates, not measurements.
//
// Its own file because it is its own reading: html_report.cc lays out the
// page, this section prices the advice.
#ifndef FEEDPROF_REPORT_WHAT_IF_HTML_H_
#define FEEDPROF_REPORT_WHAT_IF_HTML_H_

#include <string>

#include "feedprof/analysis_report.h"

namespace feedprof::report {

// Appends the section (heading included): the bars, the table, the
// assumptions; one line with the reason when the what-if is not available;
// nothing when no replay was run (no reason either).
void AppendWhatIfSection(const Report& report, std::string* out);

// data-* attributes of a next step the what-if prices (its scenario and
// saving); empty for a step without an estimate.
std::string NextStepEstimateData(const Verdict& verdict, size_t step);

}  // namespace feedprof::report

#endif  // FEEDPROF_REPORT_WHAT_IF_HTML_H_
