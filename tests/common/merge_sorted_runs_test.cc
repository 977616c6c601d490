// MergeSortedRuns must turn sorted runs into exactly what std::stable_sort
// of the runs appended in order gives (ties keep the earlier run's events
// first), call the fix on every event with the run it came from, and leave
// every run empty; empty runs and a single run are no work.
// MergeSortedRunsOnThreads must give exactly the same, with its slices
// merged on several threads.
#include "common/merge_sorted_runs.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <mutex>
#include <random>
#include <set>
#include <thread>
#include <vector>

namespace feedprof::common {
namespace {

struct Event {
  int64_t start = 0;
  int run = 0;        // which run it came in
  int position = 0;   // where in that run
  int fixed_by = -1;  // the run the fix was called with
  bool operator==(const Event&) const = default;
};

bool Earlier(const Event& a, const Event& b) { return a.start < b.start; }

// Runs of the given sizes, each sorted, with times drawn from [0, spread)
// so that runs share many times.
std::vector<std::vector<Event>> MakeRuns(const std::vector<size_t>& sizes,
                                         int64_t spread) {
  std::mt19937 random(7);
  std::vector<std::vector<Event>> runs(sizes.size());
  for (size_t r = 0; r < sizes.size(); ++r) {
    for (size_t i = 0; i < sizes[r]; ++i) {
      runs[r].push_back({static_cast<int64_t>(random() % spread),
                         static_cast<int>(r), static_cast<int>(i)});
    }
    std::stable_sort(runs[r].begin(), runs[r].end(), Earlier);
  }
  return runs;
}

// Merged by MergeSortedRuns, or by MergeSortedRunsOnThreads when
// `threads` is given; `fix_threads` (when given) gets the threads the fix
// was called on.
std::vector<Event> Merge(std::vector<std::vector<Event>>& runs,
                         unsigned threads = 0,
                         std::set<std::thread::id>* fix_threads = nullptr) {
  std::vector<std::vector<Event>*> pointers;
  for (std::vector<Event>& run : runs) pointers.push_back(&run);
  std::vector<Event> merged;
  std::mutex mutex;
  auto fix = [&](size_t run, Event& e) {
    e.fixed_by = static_cast<int>(run);
    if (fix_threads != nullptr && e.position % 4096 == 0) {
      std::lock_guard<std::mutex> lock(mutex);
      fix_threads->insert(std::this_thread::get_id());
    }
  };
  if (threads == 0) {
    MergeSortedRuns(pointers, &merged, Earlier, fix);
  } else {
    MergeSortedRunsOnThreads(pointers, &merged, Earlier, fix, threads);
  }
  return merged;
}

void ExpectSameAsStableSort(const std::vector<size_t>& sizes, int64_t spread,
                            unsigned threads = 0) {
  std::vector<std::vector<Event>> runs = MakeRuns(sizes, spread);
  std::vector<Event> expected;
  for (const std::vector<Event>& run : runs) {
    expected.insert(expected.end(), run.begin(), run.end());
  }
  std::stable_sort(expected.begin(), expected.end(), Earlier);
  for (Event& e : expected) e.fixed_by = e.run;

  std::set<std::thread::id> fix_threads;
  std::vector<Event> merged = Merge(runs, threads, &fix_threads);
  EXPECT_EQ(merged, expected);
  for (const std::vector<Event>& run : runs) {
    EXPECT_TRUE(run.empty());
    EXPECT_EQ(run.capacity(), 0u);
  }
  if (threads > 1) {
    // The slices were merged off the calling thread, on more than one.
    EXPECT_GT(fix_threads.size(), 1u);
    EXPECT_EQ(fix_threads.count(std::this_thread::get_id()), 0u);
  }
}

TEST(MergeSortedRunsTest, EightRunsWithManyTiesMergeLikeAStableSort) {
  ExpectSameAsStableSort({1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000}, 50);
}

TEST(MergeSortedRunsTest, UnevenOddAndEmptyRuns) {
  ExpectSameAsStableSort({3, 0, 5000, 1, 0, 700, 2}, 100);
}

TEST(MergeSortedRunsTest, OneRunIsMovedWhole) {
  ExpectSameAsStableSort({0, 4000, 0}, 1000);
}

TEST(MergeSortedRunsTest, RunsLargerThanTheReleaseStepKeepTheirEvents) {
  // Each run is many times the 1 MiB after which merged pages are given
  // back: what is merged must still be every event, intact.
  ExpectSameAsStableSort({700000, 300000, 500000}, 1 << 30);
}

// Past kMergeOnThreadsFromEvents the merge is cut into slices: the result
// is the same, event for event, with many ties, with times spread so far
// that few repeat, for uneven and empty runs, and for runs that follow one
// another in time (processes started one after another).
TEST(MergeSortedRunsTest, OnThreadsWithManyTiesMergesLikeAStableSort) {
  ExpectSameAsStableSort({200000, 200000, 200000, 200000, 200000, 200000}, 50,
                         3);
}

TEST(MergeSortedRunsTest, OnThreadsWithSpreadTimesMergesLikeAStableSort) {
  ExpectSameAsStableSort({400000, 0, 350000, 1, 300000, 7}, 1 << 30, 2);
  ExpectSameAsStableSort(
      {150000, 150000, 150000, 150000, 150000, 150000, 150000, 150000}, 1 << 30,
      8);
}

TEST(MergeSortedRunsTest, OnThreadsRunsOneAfterAnotherInTime) {
  std::vector<std::vector<Event>> runs =
      MakeRuns({300000, 300000, 300000, 300000}, 1 << 20);
  for (size_t r = 0; r < runs.size(); ++r) {
    // Each run starts at three quarters of the one before: some overlap.
    for (Event& e : runs[r]) e.start += static_cast<int64_t>(r) * (3 << 18);
  }
  std::vector<Event> expected;
  for (const std::vector<Event>& run : runs) {
    expected.insert(expected.end(), run.begin(), run.end());
  }
  std::stable_sort(expected.begin(), expected.end(), Earlier);
  for (Event& e : expected) e.fixed_by = e.run;
  EXPECT_EQ(Merge(runs, 4), expected);
}

TEST(MergeSortedRunsTest, OnThreadsBelowTheThresholdMergesOnTheCaller) {
  std::vector<std::vector<Event>> runs = MakeRuns({1000, 2000, 3000}, 100);
  std::set<std::thread::id> fix_threads;
  const std::vector<Event> merged = Merge(runs, 4, &fix_threads);
  EXPECT_EQ(merged.size(), 6000u);
  EXPECT_EQ(fix_threads, std::set<std::thread::id>{std::this_thread::get_id()});
}

TEST(MergeSortedRunsTest, RunsThatDoNotOverlapAreConcatenated) {
  std::vector<std::vector<Event>> runs = {{{1}, {2}}, {{3}, {4}}, {{5}}};
  const std::vector<Event> merged = Merge(runs);
  ASSERT_EQ(merged.size(), 5u);
  for (size_t i = 0; i < merged.size(); ++i) {
    EXPECT_EQ(merged[i].start, static_cast<int64_t>(i + 1));
  }
  EXPECT_EQ(merged[2].fixed_by, 1);
  EXPECT_EQ(merged[4].fixed_by, 2);
}

TEST(MergeSortedRunsTest, TiesKeepTheEarlierRunFirst) {
  std::vector<std::vector<Event>> runs(3);
  for (int r = 0; r < 3; ++r) {
    runs[r].push_back({5, r, 0});
    runs[r].push_back({9, r, 1});
  }
  std::vector<Event> merged = Merge(runs);
  const std::vector<Event> expected = {{5, 0, 0, 0}, {5, 1, 0, 1},
                                       {5, 2, 0, 2}, {9, 0, 1, 0},
                                       {9, 1, 1, 1}, {9, 2, 1, 2}};
  EXPECT_EQ(merged, expected);
}

}  // namespace
}  // namespace feedprof::common
