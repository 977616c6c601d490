// ParallelForLongestFirstSharing: every job runs once, and gets its share
// of the threads by size, rounded and at least one.
#include <gtest/gtest.h>

#include <mutex>
#include <vector>

#include "common/parallel_for.h"

namespace feedprof::common {
namespace {

std::vector<unsigned> Shares(const std::vector<size_t>& sizes, size_t threads) {
  std::vector<unsigned> shares(sizes.size(), 0);
  std::mutex mutex;
  ParallelForLongestFirstSharing(sizes, threads,
                                 [&](size_t job, unsigned share) {
                                   std::lock_guard<std::mutex> lock(mutex);
                                   EXPECT_EQ(shares[job], 0u) << "job twice";
                                   shares[job] = share;
                                 });
  return shares;
}

TEST(ParallelForSharingTest, EachJobGetsItsShareOfTheThreads) {
  // A session's vectors: ranges, calls, ops, the rest.
  EXPECT_EQ(Shares({26, 16, 7, 1}, 16), (std::vector<unsigned>{8, 5, 2, 1}));
  // On two cores a big vector's share is one thread, as a small one's.
  EXPECT_EQ(Shares({26, 16, 7, 1}, 2), (std::vector<unsigned>{1, 1, 1, 1}));
  EXPECT_EQ(Shares({100}, 4), (std::vector<unsigned>{4}));
}

TEST(ParallelForSharingTest, EmptyJobsGetOneThread) {
  EXPECT_EQ(Shares({0, 0, 0}, 8), (std::vector<unsigned>{1, 1, 1}));
  EXPECT_TRUE(Shares({}, 8).empty());
}

}  // namespace
}  // namespace feedprof::common
