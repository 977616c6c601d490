// Asking for timeline records a few iterations before a pass reads them.
//
// Why: the analysis and the what-if replay walk views in their own order
// (a device's ops by start, a thread's calls, the replay's events by time)
// and read each element's record in the timeline's vectors, where those
// records lie far apart: a device's GpuOps and their launching ApiCalls
// among every other device's and thread's, in a session among every other
// process's. Each read was a miss to memory, and waiting for them one at a
// time was most of those passes' time; asking for the record kPrefetchAhead
// elements on lets the misses overlap. A prefetch changes no result.
//
// Every function here is always inlined: a prefetch has no effect the
// compiler can see, so a call to a function that only prefetches is taken
// for one without effects and dropped.
#ifndef FEEDPROF_LIB_SRC_ANALYSIS_RECORD_PREFETCH_H_
#define FEEDPROF_LIB_SRC_ANALYSIS_RECORD_PREFETCH_H_

#include <cstddef>
#include <vector>

#include "feedprof/timeline.h"

namespace feedprof::analysis {

// How far ahead a pass asks for the records it will read: enough to cover
// a miss to memory at the few nanoseconds a pass spends per element.
inline constexpr size_t kPrefetchAhead = 16;

// The element kPrefetchAhead places after `element`, which is one of
// `view`'s; nullptr past the end.
template <typename T>
[[gnu::always_inline]] inline const T* ElementAhead(const std::vector<T>& view,
                                                    const T& element) {
  const size_t ahead =
      static_cast<size_t>(&element - view.data()) + kPrefetchAhead;
  return ahead < view.size() ? &view[ahead] : nullptr;
}

// Asks for both ends of `*record`: a GpuOp (64 bytes) or an ApiCall (56)
// that does not start a cache line spans two of them.
template <typename T>
[[gnu::always_inline]] inline void PrefetchRecord(const T* record) {
  const auto* bytes = reinterpret_cast<const char*>(record);
  __builtin_prefetch(bytes);
  __builtin_prefetch(bytes + sizeof(T) - 1);
}

// Asks for the GpuOp of the op ElementAhead(view, op) (an OpRef: `.op` is
// its index in `ops`).
template <typename Ref>
[[gnu::always_inline]] inline void PrefetchOpAhead(
    const std::vector<GpuOp>& ops, const std::vector<Ref>& view,
    const Ref& op) {
  if (const Ref* ahead = ElementAhead(view, op)) {
    PrefetchRecord(&ops[ahead->op]);
  }
}

// Asks for the launching ApiCall of `ahead` (`.api`, -1: none).
template <typename Ref>
[[gnu::always_inline]] inline void PrefetchLaunch(
    const std::vector<ApiCall>& calls, const Ref& ahead) {
  if (ahead.api >= 0) PrefetchRecord(&calls[static_cast<size_t>(ahead.api)]);
}

// Asks for the launching ApiCall of ElementAhead(view, op).
template <typename Ref>
[[gnu::always_inline]] inline void PrefetchLaunchAhead(
    const std::vector<ApiCall>& calls, const std::vector<Ref>& view,
    const Ref& op) {
  if (const Ref* ahead = ElementAhead(view, op)) PrefetchLaunch(calls, *ahead);
}

}  // namespace feedprof::analysis

#endif  // FEEDPROF_LIB_SRC_ANALYSIS_RECORD_PREFETCH_H_
