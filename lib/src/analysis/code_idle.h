// GPU idle time by code location (feedprof/analysis_report.h, IdleByCode).
//
// "The GPU waited 420 ms while your code was here" is the sentence the
// verdict needs to be acted on. Each idle gap's host-wait part is time the
// launching thread had not yet issued the work that ended the gap; where
// that thread's code was meanwhile (code_spans.h) is what kept the GPU
// waiting. The tally collects it gap by gap, one tally per device so that
// devices can be classified side by side, and merges them in device order.
#ifndef FEEDPROF_ANALYSIS_CODE_IDLE_H_
#define FEEDPROF_ANALYSIS_CODE_IDLE_H_

#include <cstdint>
#include <vector>

#include "analysis/code_spans.h"
#include "feedprof/analysis_report.h"

namespace feedprof::analysis {

class CodeIdleTally {
 public:
  // Adds the host-wait part of `gap` by where its launching thread was.
  void Add(const CodeSpans& spans, const IdleGap& gap);
  void Merge(const CodeIdleTally& other);
  // The report's section: the top locations of `idle_ns` (all devices'
  // idle time), by idle time, then location.
  IdleByCode Finish(const CodeSpans& spans, TimeNs idle_ns) const;

 private:
  std::vector<TimeNs> by_location_;  // indexed by CodeSpans::locations
  TimeNs host_wait_ns_ = 0;
  TimeNs located_ns_ = 0;
};

// Where a host-side verdict (launch, preprocessing, I/O or sync bound)
// leads: a line of evidence naming the location that held the GPU waiting
// longest, placed before the runner-up's line; nothing for other verdicts
// or without locations.
void AddCodeIdleEvidence(const IdleByCode& idle, Verdict* verdict);

}  // namespace feedprof::analysis

#endif  // FEEDPROF_ANALYSIS_CODE_IDLE_H_
