// The read pattern in words: the sentences the io_bound verdict cites as
// evidence, and its next steps in the order the pattern calls for
// (docs/verdict-rules.md, "I/O evidence").
//
// The same three fixes (shards, faster storage or a cache, local staging)
// apply to any I/O wait, but only one is the answer for a given run; the
// figures of IoReport say which, and the sentences quote them so the reader
// sees why that one comes first.
#ifndef FEEDPROF_ANALYSIS_IO_EVIDENCE_H_
#define FEEDPROF_ANALYSIS_IO_EVIDENCE_H_

#include <string>
#include <vector>

#include "analysis/analysis_passes.h"
#include "feedprof/analysis_report.h"

namespace feedprof::analysis {

// "The 2 worker processes made 15,200 reads of 3.3 KiB on average (...)":
// one sentence per reading role, one per disk and network file system under
// the data; where the trace has no I/O counters, one sentence saying why.
std::vector<std::string> IoEvidence(const IoReport& io);

// The io_bound verdict's next steps, all priced by the input-ready
// scenario, the one the pattern calls for first with its figures.
std::vector<TaggedNextStep> IoNextSteps(const IoReport& io);

}  // namespace feedprof::analysis

#endif  // FEEDPROF_ANALYSIS_IO_EVIDENCE_H_
