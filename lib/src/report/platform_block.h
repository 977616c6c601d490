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
#include "feedprof/platform.h"

namespace feedprof {

// "fail    gpu_pcie_link     GPU0 0000:3b:00.0: VALUE — MEANING → ACTION".
std::string PlatformFindingLine(const PlatformFinding& finding);

// One JSON object per finding: check, area, subject (null for the
// machine), status, value, meaning, action (null when none).
void WritePlatformFindingsJson(const std::vector<PlatformFinding>& findings,
                               common::JsonWriter& w);

}  // namespace feedprof

#endif  // FEEDPROF_REPORT_PLATFORM_BLOCK_H_
