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
// Each run's pages are given back as the merge leaves them behind
// (common/release_pages.h), so the runs and the result together hold about
// one vector's memory at any time.
#ifndef FEEDPROF_COMMON_MERGE_SORTED_RUNS_H_
#define FEEDPROF_COMMON_MERGE_SORTED_RUNS_H_

#include <cstddef>
#include <type_traits>
#include <utility>
#include <vector>

#include "common/release_pages.h"

namespace feedprof::common {

namespace merge_sorted_runs_internal {

// Pages of a run are given back once this many bytes of it are merged.
inline constexpr size_t kReleaseBytes = size_t{1} << 20;

// A tournament (loser) tree over the runs' next events: its winner is the
// run to take from next, the earlier run on ties. Taking an event replays
// only the winner's path to the root, one comparison per level (log2 of
// the runs), where a binary heap compares both children at every level.
template <typename T, typename Less>
class RunTournament {
 public:
  RunTournament(const std::vector<std::vector<T>*>& runs,
                const std::vector<size_t>& next, Less less)
      : runs_(runs), next_(next), less_(less) {
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

  bool Exhausted(size_t r) const {
    return r == kNone || next_[r] == runs_[r]->size();
  }
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
  Less less_;
  size_t leaves_ = 1;
  std::vector<size_t> losers_;  // internal nodes 1 .. leaves_ - 1
  size_t winner_ = kNone;
};

}  // namespace merge_sorted_runs_internal

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

  constexpr bool kReleasable =
      std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>;
  constexpr size_t kReleaseEvents = internal::kReleaseBytes / sizeof(T) > 0
                                        ? internal::kReleaseBytes / sizeof(T)
                                        : 1;
  std::vector<size_t> next(runs.size(), 0);
  std::vector<size_t> released(runs.size(), 0);
  internal::RunTournament<T, Less> tournament(runs, next, less);
  into->reserve(total);
  while (!tournament.empty()) {
    const size_t r = tournament.top();
    std::vector<T>& run = *runs[r];
    into->push_back(std::move(run[next[r]]));
    fix(r, into->back());
    ++next[r];
    if constexpr (kReleasable) {
      if (next[r] - released[r] >= kReleaseEvents) {
        ReleaseWholePages(run.data() + released[r], run.data() + next[r]);
        released[r] = next[r];
      }
    }
    tournament.TopAdvanced();
  }
  for (std::vector<T>* run : runs) std::vector<T>().swap(*run);
}

}  // namespace feedprof::common

#endif  // FEEDPROF_COMMON_MERGE_SORTED_RUNS_H_
