// Merges the sorted runs of a vector into one sorted vector, stably.
//
// A directory is read file by file, each file's events sorted on its own
// worker; appended in file order, the timeline's vectors are a sequence of
// sorted runs. Merging adjacent runs pairwise (log2 of the number of runs
// passes over the events, where a full sort needs log2 of the number of
// events) with std::inplace_merge, which keeps the left run's events first
// on ties, gives exactly what std::stable_sort of the whole vector with the
// same comparator gives. Scratch memory: std::inplace_merge's buffer, at
// most the smaller of two runs.
#ifndef FEEDPROF_COMMON_SORTED_RUNS_H_
#define FEEDPROF_COMMON_SORTED_RUNS_H_

#include <algorithm>
#include <cstddef>
#include <vector>

namespace feedprof::common {

// Where each appended run of one vector begins: Begin() before appending a
// run, then MergeInto() once all runs are there.
class SortedRuns {
 public:
  // The run appended next starts at `size`, the vector's size now.
  void Begin(size_t size) {
    if (starts_.empty() || starts_.back() != size) starts_.push_back(size);
  }

  // Merges the runs of `events` (each sorted by `less`) into one sorted
  // run and forgets them.
  template <typename T, typename Less>
  void MergeInto(std::vector<T>& events, Less less) {
    std::vector<size_t> starts(1, 0);
    for (size_t s : starts_) {
      if (s > starts.back() && s < events.size()) starts.push_back(s);
    }
    starts_.clear();
    while (starts.size() > 1) {
      std::vector<size_t> merged;
      for (size_t i = 0; i < starts.size(); i += 2) {
        merged.push_back(starts[i]);
        if (i + 1 == starts.size()) break;
        const size_t end =
            i + 2 < starts.size() ? starts[i + 2] : events.size();
        std::inplace_merge(
            events.begin() + static_cast<ptrdiff_t>(starts[i]),
            events.begin() + static_cast<ptrdiff_t>(starts[i + 1]),
            events.begin() + static_cast<ptrdiff_t>(end), less);
      }
      starts.swap(merged);
    }
  }

 private:
  std::vector<size_t> starts_;
};

}  // namespace feedprof::common

#endif  // FEEDPROF_COMMON_SORTED_RUNS_H_
