// FlatIdIndex: every id inserted is found with its first value, through
// growth and colliding slots; id 0 and absent ids are not found.
#include "common/flat_id_index.h"

#include <cstdint>
#include <unordered_map>

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
    EXPECT_EQ(index.InsertIfAbsent(id, i), fresh);
  }
  // Second insertions keep the first value.
  for (const auto& [key, value] : expected) {
    EXPECT_FALSE(index.InsertIfAbsent(key, value + 1));
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

TEST(FlatIdIndexTest, IdZeroIsNeverMapped) {
  FlatIdIndex index(8);
  EXPECT_FALSE(index.InsertIfAbsent(0, 5));
  EXPECT_EQ(index.Find(0), nullptr);
  EXPECT_EQ(index.size(), 0u);
  EXPECT_EQ(index.Find(1), nullptr);
}

}  // namespace
}  // namespace feedprof::common
