// CorrelationIndex: its table indexed by id and its sorted pairs (one word
// each where the ids' spread fits 32 bits, two past it) give the same
// winner for every id, by the caller's rule and, where the rule does
// not tell calls apart, the first added; ids never added are not found.
#include "common/correlation_index.h"

#include <cstdint>
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
    const auto prefer = [&c](uint32_t a, uint32_t b) {
      return c.ranks[a] > c.ranks[b];
    };
    CorrelationIndex index(c.ids.size(), base, c.ids.back());
    for (uint32_t i = 0; i < c.ids.size(); ++i) index.Add(c.ids[i], i, prefer);
    index.Seal(prefer);
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

TEST(CorrelationIndexTest, AnEmptyIndexFindsNothing) {
  CorrelationIndex empty(0, 0, 0);
  const auto any = [](uint32_t, uint32_t) { return false; };
  empty.Seal(any);
  EXPECT_EQ(empty.Find(1), CorrelationIndex::kNone);
  EXPECT_EQ(empty.Find(0), CorrelationIndex::kNone);
}

}  // namespace
}  // namespace feedprof::common
