// Writers for the comparison of two runs (feedprof/compare.h): a one-screen
// text summary followed by details, versioned JSON ("feedprof.diff/2",
// documented field by field in docs/diff.md) and an HTML page. All render
// the same model and compute nothing, so they always agree.
#ifndef FEEDPROF_DIFF_REPORT_H_
#define FEEDPROF_DIFF_REPORT_H_

#include <string>

#include "feedprof/compare.h"

namespace feedprof {

struct DiffTextOptions {
  bool details = true;  // false: the one-screen summary only
  int max_rows = 8;     // rows per detail table
};

std::string WriteTextDiff(const Comparison& comparison,
                          const DiffTextOptions& options = {});
std::string WriteJsonDiff(const Comparison& comparison);
// One self-contained HTML page (docs/diff.md), both runs' device timelines
// on one time scale.
std::string WriteHtmlDiff(const Comparison& comparison);

}  // namespace feedprof

#endif  // FEEDPROF_DIFF_REPORT_H_
