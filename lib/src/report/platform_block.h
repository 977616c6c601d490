// Rendering of platform findings: one line per check in text, one object
// per check in JSON, a table in HTML.
//
// `feedprof doctor` prints the findings of the live machine with these; the
// analysis report's "Platform" block prints those of the recorded snapshot
// with the same line format and JSON fields (docs/doctor.md,
// docs/report-json.md), so a finding reads the same in both.
#ifndef FEEDPROF_REPORT_PLATFORM_BLOCK_H_
#define FEEDPROF_REPORT_PLATFORM_BLOCK_H_

#include <string>
#include <vector>

#include "common/json_writer.h"
#include "feedprof/analysis_report.h"
#include "feedprof/platform.h"

namespace feedprof {

// "fail    gpu_pcie_link     GPU0 0000:3b:00.0: VALUE — MEANING → ACTION".
std::string PlatformFindingLine(const PlatformFinding& finding);

// One JSON object per finding: check, area, subject (null for the
// machine), status, value, meaning, action (null when none).
void WritePlatformFindingsJson(const std::vector<PlatformFinding>& findings,
                               common::JsonWriter& w);

// The report's "Platform" block. Text: a header with the counts, then the
// failed and warned checks (every check with `details`), the ok and
// unknown ones named on a line each. JSON: the "platform" key and its
// object. HTML: a section with a table of every check.
void AppendPlatformText(const Report& report, bool details, std::string* out);
void WritePlatformJson(const Report& report, common::JsonWriter& w);
void AppendPlatformHtml(const Report& report, std::string* out);

}  // namespace feedprof

#endif  // FEEDPROF_REPORT_PLATFORM_BLOCK_H_
