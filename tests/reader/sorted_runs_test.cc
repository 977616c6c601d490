// SortedRuns must turn appended sorted runs into exactly what
// std::stable_sort of the whole vector gives: ties keep the earlier run's
// events first, empty runs and a single run are no work.
#include "common/sorted_runs.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

namespace feedprof::common {
namespace {

struct Event {
  int64_t start = 0;
  int run = 0;       // which run it was appended with
  int position = 0;  // where in that run
  bool operator==(const Event&) const = default;
};

bool Earlier(const Event& a, const Event& b) { return a.start < b.start; }

// Appends `runs` runs of the given sizes, each sorted, with times drawn
// from [0, spread) so that runs share many times.
std::vector<Event> AppendRuns(const std::vector<size_t>& sizes, int64_t spread,
                              SortedRuns* runs) {
  std::mt19937 random(7);
  std::vector<Event> events;
  for (size_t r = 0; r < sizes.size(); ++r) {
    runs->Begin(events.size());
    std::vector<Event> run;
    for (size_t i = 0; i < sizes[r]; ++i) {
      run.push_back({static_cast<int64_t>(random() % spread),
                     static_cast<int>(r), static_cast<int>(i)});
    }
    std::stable_sort(run.begin(), run.end(), Earlier);
    events.insert(events.end(), run.begin(), run.end());
  }
  return events;
}

void ExpectSameAsStableSort(const std::vector<size_t>& sizes, int64_t spread) {
  SortedRuns runs;
  std::vector<Event> events = AppendRuns(sizes, spread, &runs);
  std::vector<Event> expected = events;
  std::stable_sort(expected.begin(), expected.end(), Earlier);
  runs.MergeInto(events, Earlier);
  EXPECT_EQ(events, expected);
}

TEST(SortedRunsTest, EightRunsWithManyTiesMergeLikeAStableSort) {
  ExpectSameAsStableSort({1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000}, 50);
}

TEST(SortedRunsTest, UnevenOddAndEmptyRuns) {
  ExpectSameAsStableSort({3, 0, 5000, 1, 0, 700, 2}, 100);
}

TEST(SortedRunsTest, OneRunIsLeftAsItIs) {
  ExpectSameAsStableSort({4000}, 1000);
}

TEST(SortedRunsTest, TiesKeepTheEarlierRunFirst) {
  SortedRuns runs;
  std::vector<Event> events;
  for (int r = 0; r < 3; ++r) {
    runs.Begin(events.size());
    events.push_back({5, r, 0});
    events.push_back({9, r, 1});
  }
  runs.MergeInto(events, Earlier);
  const std::vector<Event> expected = {{5, 0, 0}, {5, 1, 0}, {5, 2, 0},
                                       {9, 0, 1}, {9, 1, 1}, {9, 2, 1}};
  EXPECT_EQ(events, expected);
}

}  // namespace
}  // namespace feedprof::common
