// Merges sorted runs of events, held in separate vectors, into one sorted
// vector, stably.
//
// A directory is read file by file, each file's events sorted on its own
// worker, so the timeline's events come as one sorted run per file. They
// are merged in one pass: every event is moved once, from the run whose
// next event is earliest (the earlier run on ties, so the result is exactly
// what std::stable_sort of the runs appended in order gives), into the
// result. Appending the runs first and merging them pairwise in place moved
// every event 1 + log2(runs) times, plus std::inplace_merge's buffers.
// Each run's pages are handed to the result's unwritten memory as the merge
// leaves them behind (common/page_recycler.h), or given back where they
// cannot be (common/release_pages.h), so the runs and the result together
// hold about one vector's memory at any time.
//
// One merge of a big vector was one thread's work while the other cores
// waited: on 16 cores, a session of 8 files spent about as long merging
// its ranges as reading its files. MergeSortedRunsOnThreads cuts the
// result into time slices at splitters sampled from the runs, merges the
// slices on several threads, each into a vector of its own, and appends
// them to the result in order as they come; the memory stays about one
// vector's, since each slice gives back the runs' pages it has taken.
#ifndef FEEDPROF_COMMON_MERGE_SORTED_RUNS_H_
#define FEEDPROF_COMMON_MERGE_SORTED_RUNS_H_

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <type_traits>
#include <utility>
#include <vector>

#include "common/in_order_parallel_reads.h"
#include "common/page_recycler.h"
#include "common/release_pages.h"

namespace feedprof::common {

namespace merge_sorted_runs_internal {

// A run's pages are handed on or given back once this many bytes of it
// are merged.
inline constexpr size_t kReleaseBytes = size_t{1} << 20;

// Moving a run's pages holds back the part of a granule the merge has not
// left whole yet (up to 2 MiB a run, and as much of the output ahead of
// it) where giving pages back held back less than a page: merges smaller
// than this many granules a run give their pages back instead. On 8 Kineto
// rank files of 108 MB, moving pages raised the peak by a tenth.
inline constexpr size_t kRecycleFromGranulesPerRun = 16;

// The size of a slice of a merge on threads. Slices merged ahead of the
// one being appended wait, whole, beside the result: with 16 MiB slices
// on 16 cores a session's peak grew by a sixth (2.53 to 2.96 GB).
inline constexpr size_t kSliceBytes = size_t{4} << 20;

// A tournament (loser) tree over the runs' next events: its winner is the
// run to take from next, the earlier run on ties. Taking an event replays
// only the winner's path to the root, one comparison per level (log2 of
// the runs), where a binary heap compares both children at every level.
template <typename T, typename Less>
class RunTournament {
 public:
  // Over runs[r] from next[r] (which the caller advances) to end[r].
  RunTournament(const std::vector<std::vector<T>*>& runs,
                const std::vector<size_t>& next, const std::vector<size_t>& end,
                Less less)
      : runs_(runs), next_(next), end_(end), less_(less) {
    while (leaves_ < runs.size()) leaves_ *= 2;
    losers_.assign(leaves_, kNone);
    // Plays every match bottom-up; the padding past the last run is a run
    // that is always exhausted.
    std::vector<size_t> winners(2 * leaves_, kNone);
    for (size_t leaf = 0; leaf < leaves_; ++leaf) {
      winners[leaves_ + leaf] = leaf < runs.size() ? leaf : kNone;
    }
    for (size_t node = leaves_ - 1; node > 0; --node) {
      const size_t a = winners[2 * node];
      const size_t b = winners[2 * node + 1];
      const bool a_wins = Before(a, b);
      winners[node] = a_wins ? a : b;
      losers_[node] = a_wins ? b : a;
    }
    winner_ = winners[1];
  }

  // False once every run is exhausted.
  bool empty() const { return winner_ == kNone || Exhausted(winner_); }
  size_t top() const { return winner_; }
  // The winner's next event changed (or it ran out): replays its path.
  void TopAdvanced() {
    size_t winner = winner_;
    for (size_t node = (leaves_ + winner) / 2; node > 0; node /= 2) {
      if (Before(losers_[node], winner)) std::swap(losers_[node], winner);
    }
    winner_ = winner;
  }

 private:
  static constexpr size_t kNone = static_cast<size_t>(-1);

  bool Exhausted(size_t r) const { return r == kNone || next_[r] == end_[r]; }
  // Whether run a's next event goes before run b's; an exhausted run never
  // does.
  bool Before(size_t a, size_t b) const {
    if (Exhausted(a)) return false;
    if (Exhausted(b)) return true;
    const T& x = (*runs_[a])[next_[a]];
    const T& y = (*runs_[b])[next_[b]];
    return a < b ? !less_(y, x) : less_(x, y);
  }

  const std::vector<std::vector<T>*>& runs_;
  const std::vector<size_t>& next_;
  const std::vector<size_t>& end_;
  Less less_;
  size_t leaves_ = 1;
  std::vector<size_t> losers_;  // internal nodes 1 .. leaves_ - 1
  size_t winner_ = kNone;
};

// Events whose moved-from bytes nothing reads again, not even a
// destructor: their consumed pages can be given back.
template <typename T>
inline constexpr bool kReleasable = (std::is_trivially_copyable_v<T> &&
                                     std::is_trivially_destructible_v<T>);

// Moves the events of every run r from next[r] to end[r] into `*out` in
// merged order (the earlier run on ties), calling fix(run, event) on each.
// The runs' memory behind the merge is handed to `*out`'s unwritten
// memory where it has room for every event (common/page_recycler.h), and
// otherwise given back.
template <typename T, typename Less, typename Fix>
void MergeRange(const std::vector<std::vector<T>*>& runs,
                std::vector<size_t> next, const std::vector<size_t>& end,
                std::vector<T>* out, Less less, Fix fix) {
  constexpr size_t kReleaseEvents =
      kReleaseBytes / sizeof(T) > 0 ? kReleaseBytes / sizeof(T) : 1;
  size_t events = 0;
  for (size_t r = 0; r < runs.size(); ++r) events += end[r] - next[r];
  // Pages go only where the output cannot move (into room it already
  // has), and only in a merge big enough that what waits to make a whole
  // granule is a small part of it.
  const bool recycle =
      PageRecycler::Supported() && out->capacity() - out->size() >= events &&
      events * sizeof(T) >= kRecycleFromGranulesPerRun * (runs.size() + 1) *
                                PageRecycler::kGranuleBytes;
  PageRecycler recycler(out->data() + out->size(),
                        out->data() + out->capacity());
  // Each run's memory is handed on or given back up to free_from[r]; the
  // events up to checked[r] have been offered.
  std::vector<const void*> free_from;
  for (size_t r = 0; r < runs.size(); ++r) {
    free_from.push_back(runs[r]->data() + next[r]);
  }
  std::vector<size_t> checked = next;
  RunTournament<T, Less> tournament(runs, next, end, less);
  while (!tournament.empty()) {
    const size_t r = tournament.top();
    std::vector<T>& run = *runs[r];
    out->push_back(std::move(run[next[r]]));
    fix(r, out->back());
    ++next[r];
    if constexpr (kReleasable<T>) {
      if (next[r] - checked[r] >= kReleaseEvents) {
        const T* merged_to = run.data() + next[r];
        if (recycle) {
          free_from[r] = recycler.Recycle(free_from[r], merged_to,
                                          out->data() + out->size());
        } else {
          ReleaseWholePages(free_from[r], merged_to);
          free_from[r] = merged_to;
        }
        checked[r] = next[r];
      }
    }
    tournament.TopAdvanced();
  }
  if constexpr (kReleasable<T>) {
    for (size_t r = 0; r < runs.size(); ++r) {
      ReleaseWholePages(free_from[r], runs[r]->data() + next[r]);
    }
  }
}

// Where each of `slices` slices of the merged result begins in each run:
// cuts[k][r] for k in [0, slices] (cuts[0] all 0, cuts[slices] the runs'
// sizes). The splitters are events sampled from every run in proportion to
// its size; a slice takes the events before its splitter that no earlier
// slice took, so the slices in order are the whole merged result.
template <typename T, typename Less>
std::vector<std::vector<size_t>> SliceCuts(
    const std::vector<std::vector<T>*>& runs, size_t total, size_t slices,
    Less less) {
  const size_t stride = std::max<size_t>(1, total / (slices * 16));
  std::vector<const T*> samples;
  for (const std::vector<T>* run : runs) {
    for (size_t i = stride / 2; i < run->size(); i += stride) {
      samples.push_back(&(*run)[i]);
    }
  }
  std::sort(samples.begin(), samples.end(),
            [&less](const T* a, const T* b) { return less(*a, *b); });
  std::vector<std::vector<size_t>> cuts(slices + 1,
                                        std::vector<size_t>(runs.size(), 0));
  for (size_t r = 0; r < runs.size(); ++r) cuts[slices][r] = runs[r]->size();
  for (size_t k = 1; k < slices; ++k) {
    const T& splitter = *samples[k * samples.size() / slices];
    for (size_t r = 0; r < runs.size(); ++r) {
      const std::vector<T>& run = *runs[r];
      cuts[k][r] = static_cast<size_t>(
          std::lower_bound(
              run.begin() + static_cast<std::ptrdiff_t>(cuts[k - 1][r]),
              run.end(), splitter, less) -
          run.begin());
    }
  }
  return cuts;
}

}  // namespace merge_sorted_runs_internal

// From this many events on, MergeSortedRunsOnThreads merges on several
// threads; a smaller merge takes a few milliseconds on one.
inline constexpr size_t kMergeOnThreadsFromEvents = size_t{1} << 20;

// Moves the events of `runs` (each sorted by `less`) into `*into`, which
// must be empty, in one sorted run: ties keep the earlier run's events
// first. `fix(run, event)` is called on every event as it is taken, with
// the index of the run it came from. Every run is left empty and freed.
template <typename T, typename Less, typename Fix>
void MergeSortedRuns(const std::vector<std::vector<T>*>& runs,
                     std::vector<T>* into, Less less, Fix fix) {
  namespace internal = merge_sorted_runs_internal;
  size_t total = 0;
  size_t nonempty = 0;
  size_t only = 0;
  for (size_t r = 0; r < runs.size(); ++r) {
    total += runs[r]->size();
    if (!runs[r]->empty()) {
      ++nonempty;
      only = r;
    }
  }
  if (nonempty == 1) {  // nothing to merge: moved whole
    *into = std::move(*runs[only]);
    for (T& e : *into) fix(only, e);
    for (std::vector<T>* run : runs) std::vector<T>().swap(*run);
    return;
  }

  std::vector<size_t> end(runs.size());
  for (size_t r = 0; r < runs.size(); ++r) end[r] = runs[r]->size();
  into->reserve(total);
  internal::MergeRange(runs, std::vector<size_t>(runs.size(), 0), end, into,
                       less, fix);
  for (std::vector<T>* run : runs) std::vector<T>().swap(*run);
}

// The same result as MergeSortedRuns, merged on up to `threads` threads
// (plus the calling thread, which appends the slices) when the runs hold
// kMergeOnThreadsFromEvents events or more. `fix` is called from several
// threads at once.
template <typename T, typename Less, typename Fix>
void MergeSortedRunsOnThreads(const std::vector<std::vector<T>*>& runs,
                              std::vector<T>* into, Less less, Fix fix,
                              unsigned threads) {
  namespace internal = merge_sorted_runs_internal;
  size_t total = 0;
  size_t nonempty = 0;
  for (const std::vector<T>* run : runs) {
    total += run->size();
    nonempty += run->empty() ? 0 : 1;
  }
  if (threads <= 1 || nonempty <= 1 || total < kMergeOnThreadsFromEvents ||
      !internal::kReleasable<T>) {
    MergeSortedRuns(runs, into, less, fix);
    return;
  }
  // Slices of about kSliceBytes, and at least 8 per thread, so that the
  // ones merged ahead of the one being appended hold little memory.
  const size_t slices =
      std::max(size_t{8} * threads, total * sizeof(T) / internal::kSliceBytes);
  const std::vector<std::vector<size_t>> cuts =
      internal::SliceCuts(runs, total, slices, less);
  into->reserve(total);
  ReadInParallelMergeInOrder<std::vector<T>>(
      slices, threads,
      [&](size_t k) {
        size_t size = 0;
        for (size_t r = 0; r < runs.size(); ++r) {
          size += cuts[k + 1][r] - cuts[k][r];
        }
        std::vector<T> slice;
        slice.reserve(size);
        internal::MergeRange(runs, cuts[k], cuts[k + 1], &slice, less, fix);
        return slice;
      },
      [&](size_t, std::vector<T>&& slice) {
        into->insert(into->end(), slice.begin(), slice.end());
        std::vector<T>().swap(slice);
      });
  for (std::vector<T>* run : runs) std::vector<T>().swap(*run);
}

}  // namespace feedprof::common

#endif  // FEEDPROF_COMMON_MERGE_SORTED_RUNS_H_
