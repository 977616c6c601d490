// StableSortByKey(s) must give exactly std::stable_sort's order (ties in
// input order) on every input the readers can produce: few and many ties,
// negative times, the full ±2^62 range, a constant secondary key, and
// payloads that must survive the in-place moves; sorted in chunks, and
// falling back on one sort of everything where events move farther back
// than a chunk.
#include "common/stable_time_sort.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <vector>

namespace feedprof::common {
namespace {

struct Event {
  int64_t start = 0;
  int64_t end = 0;
  uint32_t depth = 0;
  std::string payload;  // moved, never copied, by the sort
  bool operator==(const Event&) const = default;
};

std::vector<Event> RandomEvents(size_t n, int64_t low, int64_t high,
                                uint32_t seed) {
  std::mt19937_64 random(seed);
  std::uniform_int_distribution<int64_t> time(low, high);
  std::uniform_int_distribution<uint32_t> depth(0, 3);
  std::vector<Event> events(n);
  for (size_t i = 0; i < n; ++i) {
    events[i].start = time(random);
    events[i].end = events[i].start + static_cast<int64_t>(random() % 1000);
    events[i].depth = depth(random);
    events[i].payload = "event " + std::to_string(i);
  }
  return events;
}

auto Start = [](const Event& e) { return e.start; };
auto LaterEndFirst = [](const Event& e) { return -e.end; };
auto Depth = [](const Event& e) { return static_cast<int64_t>(e.depth); };

void ExpectSameAsStableSortByStart(std::vector<Event> events,
                                   StableSortLimits limits = {}) {
  std::vector<Event> expected = events;
  std::stable_sort(
      expected.begin(), expected.end(),
      [](const Event& a, const Event& b) { return a.start < b.start; });
  StableSortByKey(std::span<Event>(events), Start, limits);
  ASSERT_EQ(events.size(), expected.size());
  for (size_t i = 0; i < events.size(); ++i) {
    ASSERT_EQ(events[i], expected[i]) << "position " << i;
  }
}

void ExpectSameAsStableSortByStartThen(std::vector<Event> events, bool depth,
                                       StableSortLimits limits = {}) {
  std::vector<Event> expected = events;
  std::stable_sort(expected.begin(), expected.end(),
                   [depth](const Event& a, const Event& b) {
                     if (a.start != b.start) return a.start < b.start;
                     return depth ? a.depth < b.depth : a.end > b.end;
                   });
  if (depth) {
    StableSortByKeys(std::span<Event>(events), Start, Depth, limits);
  } else {
    StableSortByKeys(std::span<Event>(events), Start, LaterEndFirst, limits);
  }
  ASSERT_EQ(events.size(), expected.size());
  for (size_t i = 0; i < events.size(); ++i) {
    ASSERT_EQ(events[i], expected[i]) << "position " << i;
  }
}

TEST(StableTimeSortTest, ManyTiesKeepTheirInputOrder) {
  // 100,000 events on 50 distinct times: ~2,000 ties each.
  ExpectSameAsStableSortByStart(RandomEvents(100'000, 0, 49, 1));
}

TEST(StableTimeSortTest, SmallInputsUseTheSameOrder) {
  for (size_t n : {0, 1, 2, 17, 2047, 2048, 2049}) {
    ExpectSameAsStableSortByStart(RandomEvents(n, -5, 5, 2));
  }
}

TEST(StableTimeSortTest, NegativeAndFullRangeTimes) {
  constexpr int64_t kLimit = int64_t{1} << 62;
  std::vector<Event> events = RandomEvents(50'000, -kLimit, kLimit, 3);
  events[10].start = -kLimit;
  events[20].start = kLimit;
  events[30].start = kLimit;  // a tie at the top
  ExpectSameAsStableSortByStart(events);
}

TEST(StableTimeSortTest, SecondaryKeyBreaksTiesBeforeInputOrder) {
  ExpectSameAsStableSortByStartThen(RandomEvents(80'000, 0, 999, 4), false);
  ExpectSameAsStableSortByStartThen(RandomEvents(80'000, 0, 999, 5), true);
  std::vector<Event> flat = RandomEvents(80'000, 0, 999, 6);
  for (Event& e : flat) e.depth = 7;  // a constant secondary key
  ExpectSameAsStableSortByStartThen(flat, true);
}

TEST(StableTimeSortTest, NearlySortedRunsOfThreadBatches) {
  // Four threads' batches of 1,000 sorted events, interleaved batch by
  // batch, as a recorder flushes them.
  std::vector<Event> events;
  for (int batch = 0; batch < 40; ++batch) {
    const int thread = batch % 4;
    for (int i = 0; i < 1000; ++i) {
      Event e;
      e.start = (batch / 4) * 10'000 + i * 10 + thread;
      e.end = e.start + 5;
      e.payload = std::to_string(batch) + ":" + std::to_string(i);
      events.push_back(e);
    }
  }
  std::vector<Event> sorted = events;
  StableSortByKey(std::span<Event>(sorted), Start);
  EXPECT_TRUE(std::is_sorted(
      sorted.begin(), sorted.end(),
      [](const Event& a, const Event& b) { return a.start < b.start; }));
  EXPECT_EQ(sorted.front().payload, "0:0");
  EXPECT_EQ(sorted[1].payload, "1:0");  // thread 1's first event, 1 ns later
  ExpectSameAsStableSortByStart(events);
}

TEST(StableTimeSortTest, MovesOfEveryDistanceThroughTheWindow) {
  // Each event displaced by up to `shift` places, for shifts around the
  // window's block size (4096) and its multiples.
  for (size_t shift : {1, 100, 4095, 4096, 4097, 9000, 30'000}) {
    std::vector<Event> events(60'000);
    std::mt19937 random(static_cast<uint32_t>(shift));
    for (size_t i = 0; i < events.size(); ++i) {
      events[i].start = static_cast<int64_t>(i + random() % (shift + 1));
      events[i].payload = std::to_string(i);
    }
    ExpectSameAsStableSortByStart(events);
  }
}

TEST(StableTimeSortTest, FarMovesFallBackOnStableSort) {
  // 300,000 events of 256 bytes in reverse order: the window would need
  // all 77 MB of them, more than kMaxWindowBytes.
  struct Big {
    int64_t start = 0;
    uint32_t serial = 0;
    char padding[244] = {};
  };
  static_assert(sizeof(Big) == 256);
  std::vector<Big> events(300'000);
  for (size_t i = 0; i < events.size(); ++i) {
    events[i].start = static_cast<int64_t>((events.size() - i) / 3);
    events[i].serial = static_cast<uint32_t>(i);
  }
  StableSortByKey(std::span<Big>(events), [](const Big& e) { return e.start; });
  for (size_t i = 1; i < events.size(); ++i) {
    ASSERT_LE(events[i - 1].start, events[i].start) << i;
    if (events[i - 1].start == events[i].start) {
      ASSERT_LT(events[i - 1].serial, events[i].serial) << i;
    }
  }
}

// Events that each move up to `shift` places either way from time order,
// on times of 1 ns steps, so ties are common.
std::vector<Event> DisplacedEvents(size_t n, size_t shift, uint32_t seed) {
  std::vector<Event> events(n);
  std::mt19937 random(seed);
  for (size_t i = 0; i < n; ++i) {
    events[i].start = static_cast<int64_t>(i + random() % (shift + 1));
    events[i].end = events[i].start + static_cast<int64_t>(random() % 7);
    events[i].depth = static_cast<uint32_t>(random() % 3);
    events[i].payload = std::to_string(i);
  }
  return events;
}

TEST(StableTimeSortTest, ChunksOfEveryLengthAgainstEveryDistance) {
  // Chunks shorter than, about as long as and longer than the moves, of
  // lengths that do and do not divide the input, with a short last chunk;
  // where an event moves farther back than a chunk, everything is sorted
  // at once, with the same result.
  for (size_t chunk : {1, 7, 1000, 2048, 3001, 4096, 20'000}) {
    for (size_t shift : {0, 1, 50, 999, 1000, 1001, 2500, 9000}) {
      SCOPED_TRACE("chunk " + std::to_string(chunk) + ", shift " +
                   std::to_string(shift));
      const StableSortLimits limits{chunk};
      ExpectSameAsStableSortByStart(DisplacedEvents(23'456, shift, 11), limits);
      ExpectSameAsStableSortByStartThen(DisplacedEvents(23'456, shift, 12),
                                        true, limits);
      ExpectSameAsStableSortByStartThen(DisplacedEvents(23'456, shift, 13),
                                        false, limits);
    }
  }
}

TEST(StableTimeSortTest, ChunksKeepTiesAcrossTheirBordersInInputOrder) {
  // Long runs of one time straddling every chunk border, and events that
  // belong exactly at a border.
  std::vector<Event> events(50'000);
  for (size_t i = 0; i < events.size(); ++i) {
    events[i].start =
        static_cast<int64_t>(i / 3000) * 10 + ((i % 3000) % 5 == 0 ? -5 : 0);
    events[i].payload = std::to_string(i);
  }
  for (size_t chunk : {2999, 3000, 3001, 4096}) {
    ExpectSameAsStableSortByStart(events, StableSortLimits{chunk});
  }
}

TEST(StableTimeSortTest, AnEventFromFarBehindFallsBackOnOneSort) {
  // One event at the very end belongs at the start: the chunks give up at
  // their last border, and the whole vector is sorted at once.
  std::vector<Event> events = DisplacedEvents(30'000, 10, 14);
  events.back().start = -1;
  ExpectSameAsStableSortByStart(events, StableSortLimits{4096});
  ExpectSameAsStableSortByStartThen(events, true, StableSortLimits{4096});
}

TEST(StableTimeSortTest, SortedInputIsLeftAlone) {
  std::vector<Event> events = RandomEvents(10'000, 0, 1'000'000, 7);
  std::stable_sort(
      events.begin(), events.end(),
      [](const Event& a, const Event& b) { return a.start < b.start; });
  const std::vector<Event> before = events;
  StableSortByKey(std::span<Event>(events), Start);
  EXPECT_EQ(events, before);
}

}  // namespace
}  // namespace feedprof::common
