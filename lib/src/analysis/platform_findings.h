// The platform inside every analysis: the recording machine's facts
// (platform/snapshot_facts.h) judged by the same checks doctor runs, and
// cited where a verdict depends on them.
//
// A verdict says which feeding limits the run; the platform often says why:
// transfer-bound with a link trained at x8, preprocessing-bound under a
// 4-CPU quota for 16 workers, I/O-bound on NFS, GPU-bound while throttled.
// The evidence cites those facts with their numbers, and a platform fault
// that does not match the verdict is named too, with the figure that says
// it is not the limit here ("GPU0's link is downgraded, but copies are 2 %
// of the span"). docs/verdict-rules.md lists which checks each verdict
// cites.
#ifndef FEEDPROF_ANALYSIS_PLATFORM_FINDINGS_H_
#define FEEDPROF_ANALYSIS_PLATFORM_FINDINGS_H_

#include "analysis/prepared_timeline.h"
#include "analysis/verdict_signals.h"
#include "feedprof/analysis_report.h"
#include "platform/machine_facts.h"

namespace feedprof::analysis {

struct PlatformAnalysis {
  platform::MachineFacts facts;
  PlatformReport report;
};

// platform_findings.cc: the checks on the recording's facts, with the
// copies' measured bandwidth settling what an idle-time link reading
// cannot. Needs the finished copy and host statistics of `report`.
PlatformAnalysis AnalyzePlatform(const PreparedTimeline& prepared,
                                 const Report& report);

// platform_evidence.cc: platform sentences in the verdict's evidence (what
// caps the verdict's cause, and faults that are not the limit here), placed
// before the runner-up line.
void AddPlatformEvidence(const Report& report, const VerdictSignals& signals,
                         const PlatformAnalysis& platform, Verdict* verdict);
// Appends the actions of failed or warned checks the verdict cites to the
// next steps (after the priced ones, so their indices stay).
void AddPlatformNextSteps(const Report& report, Verdict* verdict);

}  // namespace feedprof::analysis

#endif  // FEEDPROF_ANALYSIS_PLATFORM_FINDINGS_H_
