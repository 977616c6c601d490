// A large file's event vectors get room for the whole file once a
// sixteenth is read (at the events per byte so far, plus 5 %), small files'
// vectors are left to grow; what the vectors hold never changes; and when
// the read ends, the pages of room faulted in past each vector's end are
// given back.
#include "timeline/event_vector_room.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <thread>
#include <vector>

#include "common/page_prefaulter.h"
#include "feedprof/timeline.h"

namespace feedprof::readers {
namespace {

constexpr uint64_t kMiB = uint64_t{1} << 20;

void AddRanges(Timeline& t, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    Range r;
    r.start = static_cast<TimeNs>(i) * 10;
    r.end = r.start + 5;
    r.tid = static_cast<int32_t>(i % 7);
    t.ranges.push_back(r);
  }
}

bool RangesIntact(const Timeline& t, size_t n) {
  if (t.ranges.size() != n) return false;
  for (size_t i = 0; i < n; ++i) {
    const Range& r = t.ranges[i];
    if (r.start != static_cast<TimeNs>(i) * 10 || r.end != r.start + 5 ||
        r.tid != static_cast<int32_t>(i % 7)) {
      return false;
    }
  }
  return true;
}

// Resident bytes among the whole pages of [begin, end).
size_t ResidentWholePages(const void* begin, const void* end) {
  const auto page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const uintptr_t from =
      (reinterpret_cast<uintptr_t>(begin) + page - 1) & ~(page - 1);
  const uintptr_t to = reinterpret_cast<uintptr_t>(end) & ~(page - 1);
  if (to <= from) return 0;
  std::vector<unsigned char> pages((to - from) / page);
  if (mincore(reinterpret_cast<void*>(from), to - from, pages.data()) != 0) {
    return SIZE_MAX;
  }
  size_t resident = 0;
  for (unsigned char p : pages) resident += (p & 1) != 0 ? page : 0;
  return resident;
}

TEST(EventVectorRoomTest, ALargeFileReservesForTheWholeFileAtASixteenth) {
  Timeline t;
  AddRanges(t, 1000);
  t.api_calls.resize(250);
  const size_t calls_capacity = t.api_calls.capacity();
  timeline::EventVectorRoom room(&t, 128 * kMiB);

  room.Update(4 * kMiB);  // a 32nd: not yet
  EXPECT_LT(t.ranges.capacity(), 2000u);
  room.Update(8 * kMiB);  // a 16th: 16 × 1.05 as many
  EXPECT_EQ(t.ranges.capacity(), 16800u);
  EXPECT_EQ(t.api_calls.capacity(), 4200u);
  EXPECT_GT(t.api_calls.capacity(), calls_capacity);
  EXPECT_TRUE(t.gpu_ops.empty());
  EXPECT_EQ(t.gpu_ops.capacity(), 0u);  // nothing seen, nothing reserved

  // Once only: a later estimate does not reserve again.
  room.Update(16 * kMiB);
  EXPECT_EQ(t.ranges.capacity(), 16800u);
  room.Finish();
  EXPECT_TRUE(RangesIntact(t, 1000));
}

TEST(EventVectorRoomTest, LooksAtTheVectorsOncePerStepOfTheFile) {
  Timeline t;
  AddRanges(t, 1000);
  timeline::EventVectorRoom room(&t, 128 * kMiB);
  constexpr uint64_t kStep = timeline::EventVectorRoom::kUpdateEveryBytes;
  const uint64_t before = 8 * kMiB - kStep / 2;
  room.Update(before);  // just before a 16th: not yet
  EXPECT_LT(t.ranges.capacity(), 2000u);
  // A 16th, but within a step of the last look: not looked at.
  room.Update(8 * kMiB);
  EXPECT_LT(t.ranges.capacity(), 2000u);
  // A step on, the room is made, for the file at what was read then.
  room.Update(before + kStep);
  const auto read = static_cast<double>(before + kStep);
  EXPECT_EQ(t.ranges.capacity(),
            static_cast<size_t>(1000 * (128 * kMiB / read) * 1.05));
  room.Finish();
  EXPECT_TRUE(RangesIntact(t, 1000));
}

TEST(EventVectorRoomTest, ASmallFileIsLeftToGrow) {
  Timeline t;
  AddRanges(t, 1000);
  const size_t capacity = t.ranges.capacity();
  timeline::EventVectorRoom room(&t,
                                 timeline::EventVectorRoom::kFromFileBytes - 1);
  for (uint64_t read = 1; read < timeline::EventVectorRoom::kFromFileBytes;
       read += timeline::EventVectorRoom::kFromFileBytes / 8) {
    room.Update(read);
  }
  room.Finish();
  EXPECT_EQ(t.ranges.capacity(), capacity);
  EXPECT_TRUE(RangesIntact(t, 1000));
}

TEST(EventVectorRoomTest, RoomFaultedInAndNotFilledIsGivenBack) {
  if (!common::PagePrefaulter(1).active()) {
    GTEST_SKIP() << "no prefaulting here (Linux before 5.14, or "
                    "FEEDPROF_PREFAULT=0)";
  }
  Timeline t;
  constexpr size_t kRanges = 100'000;  // 4 MB of a 64 MB room
  AddRanges(t, kRanges);
  timeline::EventVectorRoom room(&t, 1024 * kMiB);
  room.Update(64 * kMiB);
  ASSERT_EQ(t.ranges.capacity(), kRanges * 16 * 105 / 100);
  const Range* end = t.ranges.data() + t.ranges.size();
  // The prefaulter works ahead of the vector's end.
  const auto give_up =
      std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (ResidentWholePages(end, end + 1024) == 0 &&
         std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ASSERT_GT(ResidentWholePages(end, end + 1024), 0u);

  room.Finish();
  EXPECT_EQ(ResidentWholePages(end, t.ranges.data() + t.ranges.capacity()), 0u);
  EXPECT_TRUE(RangesIntact(t, kRanges));
}

TEST(EventVectorRoomTest, ARoomReservedByTheReaderIsFaultedInAnEighthAhead) {
  if (!common::PagePrefaulter(1).active()) {
    GTEST_SKIP() << "no prefaulting here";
  }
  // An Nsight-like reader: it reserves from the rows it will read.
  Timeline t;
  t.ranges.reserve(2'000'000);  // 80 MB
  AddRanges(t, 400'000);        // 16 MB
  const Range* end = t.ranges.data() + t.ranges.size();
  const Range* room_end = t.ranges.data() + t.ranges.capacity();
  const Range* ahead_end = end + 50'000;  // an eighth of what it holds

  // A small input: nothing is faulted in ahead.
  timeline::EventVectorRoom small(
      &t, timeline::EventVectorRoom::kFromFileBytes - 1);
  small.FaultInReserved();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(ResidentWholePages(end, room_end), 0u);

  timeline::EventVectorRoom room(&t, timeline::EventVectorRoom::kFromFileBytes);
  room.FaultInReserved();
  // Every whole page of the eighth ahead (the partial pages at either end
  // aside), and nothing past it.
  const auto page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t want = 50'000 * sizeof(Range) - 2 * page;
  const auto give_up =
      std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (ResidentWholePages(end, ahead_end) < want &&
         std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_GE(ResidentWholePages(end, ahead_end), want);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(ResidentWholePages(ahead_end + 1024, room_end), 0u);

  room.Finish();
  EXPECT_EQ(ResidentWholePages(end, room_end), 0u);
  EXPECT_TRUE(RangesIntact(t, 400'000));
}

}  // namespace
}  // namespace feedprof::readers
