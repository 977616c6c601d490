// RecentKeyCache: each key's value is the lookup's, the lookup runs once per
// key while the key keeps its slot, and keys that share a slot take it in
// turn without ever answering with another key's value.
#include "common/recent_key_cache.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>

namespace feedprof::common {
namespace {

TEST(RecentKeyCacheTest, LooksEachKeyUpOnceWhileItKeepsItsSlot) {
  RecentKeyCache<uint32_t> cache;
  std::map<uint64_t, int> lookups;
  const auto look_up = [&lookups](uint64_t key) {
    ++lookups[key];
    return static_cast<uint32_t>(key * 10 + 1);
  };
  // Eight processes' keys, interleaved call after call, as in a session.
  const uint64_t keys[] = {1101, 1102, 1103, 1104, 1105, 1106, 1107, 1108};
  for (int round = 0; round < 1000; ++round) {
    for (const uint64_t key : keys) {
      ASSERT_EQ(cache.Get(key, look_up), key * 10 + 1);
    }
  }
  // Each was looked up at least once; keys that share a slot evict each
  // other, but eight keys in 64 slots mostly do not.
  size_t total = 0;
  for (const uint64_t key : keys) {
    EXPECT_GE(lookups[key], 1) << key;
    total += static_cast<size_t>(lookups[key]);
  }
  EXPECT_LT(total, 8u * 1000u / 2);
}

TEST(RecentKeyCacheTest, KeysSharingASlotGetTheirOwnValues) {
  // One slot: every key shares it.
  RecentKeyCache<int64_t, 0> cache;
  int lookups = 0;
  const auto negate = [&lookups](uint64_t key) {
    ++lookups;
    return -static_cast<int64_t>(key);
  };
  EXPECT_EQ(cache.Get(5, negate), -5);
  EXPECT_EQ(cache.Get(5, negate), -5);
  EXPECT_EQ(lookups, 1);
  EXPECT_EQ(cache.Get(7, negate), -7);
  EXPECT_EQ(cache.Get(5, negate), -5);
  EXPECT_EQ(lookups, 3);
  // Key 0 is a key like any other, not an empty slot.
  EXPECT_EQ(cache.Get(0, negate), 0);
  EXPECT_EQ(cache.Get(0, negate), 0);
  EXPECT_EQ(lookups, 4);
}

}  // namespace
}  // namespace feedprof::common
