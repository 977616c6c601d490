// Where each host thread's Python code was, over time.
//
// A Kineto trace recorded with `with_stack=True` holds every Python call of
// every thread as a range (RangeSource::kPythonFunction), nested as the
// calls were. At any moment the innermost of them in the user's code
// (user_code.h) is where that thread was: the line to look at when the GPU
// waited for that thread. The ranges are freed early in the analysis
// (range_digest.h), so this keeps, per thread, the spans of time over which
// that line stayed the same, for the passes that attribute time to code.
#ifndef FEEDPROF_ANALYSIS_CODE_SPANS_H_
#define FEEDPROF_ANALYSIS_CODE_SPANS_H_

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "feedprof/analysis_report.h"
#include "feedprof/timeline.h"
#include "timeline/thread_key.h"

namespace feedprof::analysis {

struct CodeSpan {
  TimeNs start = 0;
  TimeNs end = 0;
  uint32_t location = 0;  // index into CodeSpans::locations
};

class CodeSpans {
 public:
  // The spans of the threads of `python_ranges` (indices of the
  // timeline's Python function ranges, in its order: by start, the longer
  // first, as the readers leave them; RangeDigest::python_ranges). Empty
  // when there are none.
  // `rule` says which frames are the user's (user_code.h).
  static CodeSpans Build(const Timeline& timeline,
                         const std::vector<uint32_t>& python_ranges,
                         const UserCodeRule& rule = {});

  bool empty() const { return spans_.empty(); }
  // Each location as reports print it: "function (file:line)", the
  // innermost user frame of the stack (else its innermost frame).
  const std::vector<std::string>& locations() const { return locations_; }

  // Calls add(location, ns) for the time of [t0, t1] that thread (pid, tid)
  // spent in each location, in time order; time outside every span is not
  // visited.
  template <typename Add>
  void ForEachOverlap(int32_t pid, int32_t tid, TimeNs t0, TimeNs t1,
                      Add add) const;

 private:
  const std::vector<CodeSpan>* SpansOf(int32_t pid, int32_t tid) const;

  std::vector<std::string> locations_;
  // Per thread, its spans by start, not overlapping.
  std::unordered_map<uint64_t, std::vector<CodeSpan>> spans_;
};

template <typename Add>
void CodeSpans::ForEachOverlap(int32_t pid, int32_t tid, TimeNs t0, TimeNs t1,
                               Add add) const {
  const std::vector<CodeSpan>* spans = SpansOf(pid, tid);
  if (spans == nullptr || t1 <= t0) return;
  // The first span that ends after t0.
  size_t lo = 0, hi = spans->size();
  while (lo < hi) {
    const size_t mid = (lo + hi) / 2;
    if ((*spans)[mid].end <= t0) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  for (size_t i = lo; i < spans->size() && (*spans)[i].start < t1; ++i) {
    const CodeSpan& s = (*spans)[i];
    const TimeNs from = s.start > t0 ? s.start : t0;
    const TimeNs to = s.end < t1 ? s.end : t1;
    if (to > from) add(s.location, to - from);
  }
}

}  // namespace feedprof::analysis

#endif  // FEEDPROF_ANALYSIS_CODE_SPANS_H_
