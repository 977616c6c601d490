// CorrelationIndex: its table indexed by id and its sorted pairs (one word
// each where the ids' spread fits 32 bits, two past it) give the same
// winner for every id, by the caller's rule and, where the rule does
// not tell calls apart, the first added; ids never added are not found.
#include "common/correlation_index.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace feedprof::common {
namespace {

// Calls carrying ids base, base + 3 step, ... with every fourth id carried
// by three calls; the rule prefers the larger `rank`, and ranks tie for the
// first two of the three.
struct Calls {
  std::vector<uint64_t> ids;
  std::vector<int> ranks;
};

Calls MakeCalls(uint64_t base, uint64_t step) {
  Calls c;
  for (uint64_t k = 0; k < 4000; ++k) {
    const uint64_t id = base + 3 * k * step;
    c.ids.push_back(id);
    c.ranks.push_back(1);
    if (k % 4 == 0) {
      c.ids.push_back(id);
      c.ranks.push_back(1);  // ties with the first: the first wins
      c.ids.push_back(id);
      c.ranks.push_back(k % 8 == 0 ? 2 : 0);  // wins, or loses
    }
  }
  return c;
}

// The index of `c`'s calls, the larger rank winning.
CorrelationIndex IndexOf(const Calls& c, uint64_t base) {
  const auto prefer = [&c](uint32_t a, uint32_t b) {
    return c.ranks[a] > c.ranks[b];
  };
  CorrelationIndex index(c.ids.size(), base, c.ids.back());
  for (uint32_t i = 0; i < c.ids.size(); ++i) index.Add(c.ids[i], i, prefer);
  index.Seal(prefer);
  return index;
}

std::vector<uint32_t> Winners(const CorrelationIndex& index, uint64_t base,
                              uint64_t step) {
  std::vector<uint32_t> out;
  for (uint64_t k = 0; k < 4000; ++k)
    out.push_back(index.Find(base + 3 * k * step));
  return out;
}

TEST(CorrelationIndexTest, DenseAndSortedFormsPickTheSameWinners) {
  std::vector<std::vector<uint32_t>> results;
  // Steps for a table, for packed pairs (a spread of 3 * 4000 * 2^12, under
  // 2^32) and for wide pairs (3 * 4000 * 2^30, past it).
  const uint64_t steps[] = {1, uint64_t{1} << 12, uint64_t{1} << 30};
  const CorrelationIndex::Form forms[] = {CorrelationIndex::Form::kTable,
                                          CorrelationIndex::Form::kPackedPairs,
                                          CorrelationIndex::Form::kWidePairs};
  for (int k = 0; k < 3; ++k) {
    const uint64_t step = steps[k];
    SCOPED_TRACE(absl::StrCat("step ", step));
    const uint64_t base = 1000;
    const Calls c = MakeCalls(base, step);
    const CorrelationIndex index = IndexOf(c, base);
    EXPECT_EQ(index.form(), forms[k]);
    EXPECT_EQ(index.pairs_to_sort() == 0, step == 1);  // dense, or sorted
    results.push_back(Winners(index, base, step));
    EXPECT_EQ(index.Find(base + 1), CorrelationIndex::kNone);
    EXPECT_EQ(index.Find(base - 1), CorrelationIndex::kNone);
    EXPECT_EQ(index.Find(0), CorrelationIndex::kNone);
  }
  // Same call indices every way (the calls are laid out alike).
  EXPECT_EQ(results[0], results[1]);
  EXPECT_EQ(results[0], results[2]);
  // Id 0 of the calls: carried by calls 0, 1 and 2 (rank 1, 1, 2).
  EXPECT_EQ(results[0][0], 2u);
  // Id 4: calls 6, 7 and 8 with ranks 1, 1, 0: the first of the tie.
  EXPECT_EQ(results[0][4], 6u);
  // Id 1: one call, call 3.
  EXPECT_EQ(results[0][1], 3u);
}

TEST(CorrelationIndexTest, OfFirstCallsKeepsTheFirstCallOfEachId) {
  for (const uint64_t far :
       {uint64_t{9}, uint64_t{1} << 31, uint64_t{1} << 32, uint64_t{1} << 33,
        uint64_t{1} << 50, ~uint64_t{0}}) {
    const std::vector<uint64_t> ids = {5, far, 5, 0, far, 6};
    const CorrelationIndex index = CorrelationIndex::OfFirstCalls(
        ids.size(), [&ids](size_t i) { return ids[i]; });
    EXPECT_EQ(index.Find(5), 0u) << far;
    EXPECT_EQ(index.Find(far), 1u) << far;
    EXPECT_EQ(index.Find(6), 5u) << far;
    EXPECT_EQ(index.Find(0), CorrelationIndex::kNone) << far;
    EXPECT_EQ(index.Find(7), CorrelationIndex::kNone) << far;
  }
}

TEST(CorrelationIndexTest, PairsArePackedWhileTheSpreadFits32Bits) {
  // Ids 5 and 5 + spread (sparse: two ids far apart), the first twice.
  for (const uint64_t spread : {(uint64_t{1} << 32) - 1, uint64_t{1} << 32}) {
    const std::vector<uint64_t> ids = {5 + spread, 5, 5, 0, 5 + spread - 1};
    const CorrelationIndex index = CorrelationIndex::OfFirstCalls(
        ids.size(), [&ids](size_t i) { return ids[i]; });
    EXPECT_EQ(index.form(), spread >> 32 == 0
                                ? CorrelationIndex::Form::kPackedPairs
                                : CorrelationIndex::Form::kWidePairs)
        << spread;
    EXPECT_EQ(index.Find(5 + spread), 0u) << spread;
    EXPECT_EQ(index.Find(5), 1u) << spread;
    EXPECT_EQ(index.Find(4 + spread), 4u) << spread;
    EXPECT_EQ(index.Find(6), CorrelationIndex::kNone) << spread;
    EXPECT_EQ(index.Find(6 + spread), CorrelationIndex::kNone) << spread;
  }
}

// A cursor answers as Find does in any order of lookups: increasing (the
// order it is made for), decreasing, jumping far both ways, repeating an
// id, and ids past both ends and between the carried ones.
TEST(CorrelationIndexTest, ACursorFindsWhatFindFindsInAnyOrder) {
  const uint64_t steps[] = {1, uint64_t{1} << 12, uint64_t{1} << 30};
  for (const uint64_t step : steps) {
    SCOPED_TRACE(absl::StrCat("step ", step));
    const uint64_t base = 1000;
    const Calls c = MakeCalls(base, step);
    const CorrelationIndex index = IndexOf(c, base);
    // Carried ids, the ids just beside them, and ids outside the range.
    std::vector<uint64_t> lookups;
    for (uint64_t k = 0; k < 4000; ++k) {
      const uint64_t id = base + 3 * k * step;
      lookups.insert(lookups.end(), {id, id + 1, id - 1});
    }
    lookups.insert(lookups.end(), {0, 1, base - 1, c.ids.back() + 1,
                                   c.ids.back() + step, ~uint64_t{0}});
    std::vector<uint64_t> increasing = lookups;
    std::sort(increasing.begin(), increasing.end());
    std::vector<uint64_t> decreasing(increasing.rbegin(), increasing.rend());
    std::vector<uint64_t> shuffled = lookups;
    std::mt19937_64 random(7);
    std::shuffle(shuffled.begin(), shuffled.end(), random);
    // Nearly increasing, as a device's ops come: each id a little out of
    // place, some repeated.
    std::vector<uint64_t> nearly = increasing;
    for (size_t i = 0; i + 5 < nearly.size(); i += 7) {
      std::swap(nearly[i], nearly[i + 5]);
      nearly[i + 1] = nearly[i];
    }
    size_t found = 0;
    for (const std::vector<uint64_t>* order :
         {&increasing, &decreasing, &shuffled, &nearly}) {
      CorrelationIndex::Cursor cursor(index);
      for (const uint64_t id : *order) {
        const uint32_t want = index.Find(id);
        ASSERT_EQ(cursor.Find(id), want) << "id " << id;
        found += want != CorrelationIndex::kNone;
      }
    }
    // Each carried id, found in three of the four orders and at least
    // partly in the fourth.
    EXPECT_GT(found, 3u * 4000u);
  }
}

// Sorted pairs are sorted by moving the few out of place where the calls
// come nearly in id order, else by the radix sort; either way each id's
// winner is the one the rule picks, the first added among equals.
TEST(CorrelationIndexTest, PairsAddedInAnyOrderPickTheRuleWinner) {
  constexpr uint64_t kCalls = 20000;
  // Ids 100 apart: sorted pairs, not a table.
  std::vector<uint64_t> in_order;
  for (uint64_t k = 0; k < kCalls; ++k) in_order.push_back(1000 + 100 * k);
  std::vector<uint64_t> nearly = in_order;  // a few swapped with a neighbour
  for (size_t i = 0; i + 3 < nearly.size(); i += 97) {
    std::swap(nearly[i], nearly[i + 3]);
  }
  std::vector<uint64_t> reversed(in_order.rbegin(), in_order.rend());
  std::vector<uint64_t> shuffled = in_order;
  std::mt19937_64 random(11);
  std::shuffle(shuffled.begin(), shuffled.end(), random);
  for (const std::vector<uint64_t>* order :
       {&in_order, &nearly, &reversed, &shuffled}) {
    // Every tenth id carried by two more calls, added after the next
    // id's: out of place by one, as a call that started later would be.
    std::vector<uint64_t> ids;
    std::vector<int> ranks;
    for (uint64_t k = 0; k < kCalls; ++k) {
      const uint64_t id = (*order)[k];
      ids.push_back(id);
      ranks.push_back(static_cast<int>((id / 100) % 3));
      if (k % 10 == 1) {
        const uint64_t before = (*order)[k - 1];
        ids.insert(ids.end(), {before, before});
        // The first ties with the call before it, the second wins or not.
        ranks.push_back(static_cast<int>((before / 100) % 3));
        ranks.push_back(k % 20 == 1 ? 5 : 0);
      }
    }
    const auto prefer = [&ranks](uint32_t a, uint32_t b) {
      return ranks[a] > ranks[b];
    };
    // The winner of each id by hand: the highest rank, the first of those.
    std::map<uint64_t, uint32_t> want;
    for (uint32_t i = 0; i < ids.size(); ++i) {
      const auto [it, inserted] = want.try_emplace(ids[i], i);
      if (!inserted && prefer(i, it->second)) it->second = i;
    }
    CorrelationIndex index(ids.size(), 1000, 1000 + 100 * (kCalls - 1));
    for (uint32_t i = 0; i < ids.size(); ++i) index.Add(ids[i], i, prefer);
    index.Seal(prefer);
    ASSERT_EQ(index.form(), CorrelationIndex::Form::kPackedPairs);
    for (const auto& [id, call] : want) {
      ASSERT_EQ(index.Find(id), call) << "id " << id;
      ASSERT_EQ(index.Find(id + 1), CorrelationIndex::kNone);
    }
  }
}

TEST(CorrelationIndexTest, AnEmptyIndexFindsNothing) {
  CorrelationIndex empty(0, 0, 0);
  const auto any = [](uint32_t, uint32_t) { return false; };
  empty.Seal(any);
  EXPECT_EQ(empty.Find(1), CorrelationIndex::kNone);
  EXPECT_EQ(empty.Find(0), CorrelationIndex::kNone);
  CorrelationIndex::Cursor cursor(empty);
  EXPECT_EQ(cursor.Find(1), CorrelationIndex::kNone);
}

}  // namespace
}  // namespace feedprof::common
