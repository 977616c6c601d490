// The input pipeline of the fixed preprocessing_bound and io_bound examples
// (examples/cuda/batch_ring.h): batches reach the loop in order with their
// own data, however the producers finish; no more than `slots` are prepared
// ahead; the producers run at once; stopping early does not hang.
#include "examples/cuda/batch_ring.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace example {
namespace {

using std::chrono::milliseconds;

TEST(BatchRing, HandsBatchesOverInOrderWithTheirOwnData) {
  constexpr int kBatches = 40;
  constexpr int kSlots = 4;
  std::vector<int> slot_data(kSlots, -1);
  std::vector<int> seen;
  {
    // Later batches of a round finish first: batch b sleeps less than b - 1.
    BatchRing ring(kBatches, kSlots, /*producers=*/kSlots,
                   [&](int batch, int slot) {
                     std::this_thread::sleep_for(
                         milliseconds(2 * (kSlots - batch % kSlots)));
                     slot_data[static_cast<size_t>(slot)] = batch;
                   });
    for (int b = 0; b < kBatches; ++b) {
      const int slot = ring.Acquire(b);
      EXPECT_EQ(slot, b % kSlots);
      seen.push_back(slot_data[static_cast<size_t>(slot)]);
      ring.Release(b);
    }
  }
  ASSERT_EQ(seen.size(), static_cast<size_t>(kBatches));
  for (int b = 0; b < kBatches; ++b) EXPECT_EQ(seen[static_cast<size_t>(b)], b);
}

TEST(BatchRing, PreparesNoMoreThanItsSlotsAhead) {
  constexpr int kBatches = 30;
  constexpr int kSlots = 3;
  std::atomic<int> prepared{0};
  std::atomic<int> released{0};
  std::atomic<int> most_ahead{0};
  BatchRing ring(kBatches, kSlots, /*producers=*/8, [&](int, int) {
    const int ahead = ++prepared - released.load();
    int seen = most_ahead.load();
    while (ahead > seen && !most_ahead.compare_exchange_weak(seen, ahead)) {
    }
  });
  for (int b = 0; b < kBatches; ++b) {
    ring.Acquire(b);
    // A slow loop: the producers would run far ahead if nothing held them.
    std::this_thread::sleep_for(milliseconds(2));
    ++released;
    ring.Release(b);
  }
  EXPECT_EQ(prepared.load(), kBatches);
  EXPECT_EQ(most_ahead.load(), kSlots);
}

TEST(BatchRing, ItsProducersRunAtOnce) {
  // Each of the first four batches waits until all four are being
  // prepared: that ends only if four producers run together.
  constexpr int kProducers = 4;
  std::mutex mutex;
  std::condition_variable all_in;
  int in_prepare = 0;
  std::atomic<int> timed_out{0};
  BatchRing ring(kProducers, kProducers, kProducers, [&](int, int) {
    std::unique_lock<std::mutex> lock(mutex);
    ++in_prepare;
    all_in.notify_all();
    if (!all_in.wait_for(lock, std::chrono::seconds(20),
                         [&] { return in_prepare == kProducers; })) {
      ++timed_out;
    }
  });
  for (int b = 0; b < kProducers; ++b) {
    ring.Acquire(b);
    ring.Release(b);
  }
  EXPECT_EQ(timed_out.load(), 0);
}

TEST(BatchRing, StopsWithBatchesLeftWithoutHanging) {
  std::atomic<int> prepared{0};
  const auto begin = std::chrono::steady_clock::now();
  {
    BatchRing ring(/*batches=*/1000, /*slots=*/2, /*producers=*/2,
                   [&](int, int) { ++prepared; });
    ring.Acquire(0);
    ring.Release(0);
  }  // the producers wait for slots the loop never frees: stop them
  EXPECT_LE(prepared.load(), 3);  // batches 0, 1 and 2 at most
  EXPECT_LT(std::chrono::steady_clock::now() - begin, std::chrono::seconds(10));
}

}  // namespace
}  // namespace example
