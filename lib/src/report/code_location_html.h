// The HTML report's code-location sections: "GPU idle by code location"
// (Report::idle_by_code, a bar per location the launching thread was at
// while the GPU waited for it) and "Where the host threads spent their
// time" (Report::host_code, per thread role an icicle graph of its stacks
// and the tables of its top locations and the user's lines).
//
// Its own file because it answers its own question — which lines to
// change — while html_report.cc lays out the page; the icicle's layout is
// in icicle_svg.cc.
#ifndef FEEDPROF_REPORT_CODE_LOCATION_HTML_H_
#define FEEDPROF_REPORT_CODE_LOCATION_HTML_H_

#include <string>

#include "feedprof/analysis_report.h"

namespace feedprof::report {

// Appends <section id="idle-by-code"> (heading included); nothing when the
// model's idle_by_code is not available.
void AppendIdleByCodeSection(const Report& report, std::string* out);

// Appends <section id="host-code"> with one block per role present;
// nothing when the model's host_code is not available or has no role.
void AppendHostCodeSection(const Report& report, std::string* out);

}  // namespace feedprof::report

#endif  // FEEDPROF_REPORT_CODE_LOCATION_HTML_H_
