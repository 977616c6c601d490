// FlatIdIndex: every id added is found with its first value, through growth
// and colliding slots; id 0 and absent ids are not found. CorrelationIndex:
// the same answers from its table indexed by id and from its hash table.
#include "common/flat_id_index.h"

#include <cstdint>
#include <unordered_map>

#include "common/correlation_index.h"
#include "gtest/gtest.h"

namespace feedprof::common {
namespace {

TEST(FlatIdIndexTest, FindsEveryIdWithItsFirstValueThroughGrowth) {
  FlatIdIndex index(4);  // far too small: grows many times
  std::unordered_map<uint64_t, uint32_t> expected;
  uint64_t id = 12345;
  for (uint32_t i = 0; i < 100000; ++i) {
    // Consecutive ids, scattered ids and ids that differ by a power of two.
    id = i % 3 == 0   ? id + 1
         : i % 3 == 1 ? id * 2862933555777941757ull + 7
                      : id + (uint64_t{1} << 40);
    if (id == 0) continue;
    const bool fresh = expected.emplace(id, i).second;
    EXPECT_EQ(index.FindOrAdd(id, i), fresh ? i : expected[id]);
  }
  // Adding again finds the first value, and a value set through the
  // reference stays.
  for (const auto& [key, value] : expected) {
    EXPECT_EQ(index.FindOrAdd(key, value + 1), value);
  }
  EXPECT_EQ(index.size(), expected.size());
  for (const auto& [key, value] : expected) {
    const uint32_t* found = index.Find(key);
    ASSERT_NE(found, nullptr) << key;
    EXPECT_EQ(*found, value) << key;
  }
  size_t absent_found = 0;
  for (uint64_t probe = 1; probe < 20000; ++probe) {
    if (expected.count(probe) == 0 && index.Find(probe) != nullptr) {
      ++absent_found;
    }
  }
  EXPECT_EQ(absent_found, 0u);
}

TEST(FlatIdIndexTest, IdZeroAndAbsentIdsAreNotFound) {
  FlatIdIndex index(8);
  EXPECT_EQ(index.Find(0), nullptr);
  EXPECT_EQ(index.Find(1), nullptr);
  index.FindOrAdd(1, 5) = 6;
  EXPECT_EQ(*index.Find(1), 6u);
  EXPECT_EQ(index.Find(0), nullptr);
  EXPECT_EQ(index.Find(2), nullptr);
  EXPECT_EQ(index.size(), 1u);
}

TEST(CorrelationIndexTest, DenseAndScatteredIdsGiveTheSameAnswers) {
  // Ids 1000, 1003, 1006, ...: dense; the same times 2^33: scattered.
  for (const uint64_t scale : {uint64_t{1}, uint64_t{1} << 33}) {
    const uint64_t count = 5000;
    CorrelationIndex index(count, 1000 * scale,
                           (1000 + 3 * (count - 1)) * scale);
    for (uint64_t k = 0; k < count; ++k) {
      uint32_t& slot = index.Slot((1000 + 3 * k) * scale);
      EXPECT_EQ(slot, CorrelationIndex::kNone);
      slot = static_cast<uint32_t>(k);
    }
    // The caller's rule decides a shared id: here the later call wins.
    index.Slot(1003 * scale) = 77;
    EXPECT_EQ(index.Find(1000 * scale), 0u) << scale;
    EXPECT_EQ(index.Find(1003 * scale), 77u) << scale;
    EXPECT_EQ(index.Find((1000 + 3 * 4999) * scale), 4999u) << scale;
    EXPECT_EQ(index.Find(1001 * scale), CorrelationIndex::kNone) << scale;
    EXPECT_EQ(index.Find(999 * scale), CorrelationIndex::kNone) << scale;
    EXPECT_EQ(index.Find(0), CorrelationIndex::kNone) << scale;
  }
  const CorrelationIndex empty(0, 0, 0);
  EXPECT_EQ(empty.Find(1), CorrelationIndex::kNone);
}

}  // namespace
}  // namespace feedprof::common
