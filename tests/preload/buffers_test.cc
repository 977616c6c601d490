// The bounded building blocks of the recorder: chunk pool, packet queue and
// string table each stop at their cap and count what they refuse.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "preload/packet_queue.h"
#include "preload/string_interner.h"
#include "preload/thread_buffer.h"

namespace feedprof::preload {
namespace {

TEST(ChunkPoolTest, HandsOutEveryChunkOnceThenNone) {
  ChunkPool pool;
  ASSERT_TRUE(pool.Init(4 * sizeof(EventChunk)));
  ASSERT_EQ(pool.chunk_count(), 4u);
  std::vector<EventChunk*> taken;
  for (int i = 0; i < 4; ++i) {
    EventChunk* c = pool.Acquire(100 + static_cast<uint32_t>(i), "worker");
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(c->tid, 100u + static_cast<uint32_t>(i));
    EXPECT_STREQ(c->thread_name, "worker");
    EXPECT_EQ(c->state.load(), static_cast<uint32_t>(ChunkState::kActive));
    taken.push_back(c);
  }
  EXPECT_EQ(pool.free_chunks(), 0u);
  EXPECT_EQ(pool.Acquire(1, "x"), nullptr);
  ChunkPool::Retire(taken[2]);
  EXPECT_EQ(taken[2]->state.load(),
            static_cast<uint32_t>(ChunkState::kRetired));
  pool.Release(taken[2]);
  EXPECT_EQ(pool.free_chunks(), 1u);
  EventChunk* again = pool.Acquire(7, "a-name-longer-than-fifteen");
  EXPECT_EQ(again, taken[2]);
  EXPECT_EQ(std::string(again->thread_name), "a-name-longer-t");
  EXPECT_EQ(again->committed.load(), 0u);
  pool.ResetAll();
  EXPECT_EQ(pool.free_chunks(), 4u);
}

// Only the chunks handed out so far are walked (and, in a fork child,
// reset): a process that records little never touches the others' pages.
TEST(ChunkPoolTest, TouchedCoversTheChunksHandedOutAndNoMore) {
  ChunkPool pool;
  ASSERT_TRUE(pool.Init(64 * sizeof(EventChunk)));
  EXPECT_EQ(pool.touched(), 0u);
  EventChunk* first = pool.Acquire(1, "a");
  EventChunk* second = pool.Acquire(2, "b");
  ASSERT_EQ(first, pool.chunk(0));
  ASSERT_EQ(second, pool.chunk(1));
  EXPECT_EQ(pool.touched(), 2u);
  // A released chunk is taken again only after the ones never used; the
  // mark grows with them.
  ChunkPool::Retire(first);
  pool.Release(first);
  EXPECT_EQ(pool.Acquire(3, "c"), pool.chunk(2));
  EXPECT_EQ(pool.touched(), 3u);
  // Every chunk past the mark is free and untouched.
  for (size_t i = pool.touched(); i < pool.chunk_count(); ++i) {
    EXPECT_EQ(pool.chunk(i)->state.load(),
              static_cast<uint32_t>(ChunkState::kFree));
  }
  pool.ResetAll();
  EXPECT_EQ(pool.touched(), 0u);
  EXPECT_EQ(pool.free_chunks(), 64u);
  EXPECT_EQ(pool.Acquire(4, "d"), pool.chunk(0));
  EXPECT_EQ(pool.touched(), 1u);
}

TEST(PacketQueueTest, DropsWhatDoesNotFitAndKeepsOrder) {
  PacketQueue queue;
  ASSERT_TRUE(queue.Init(1000));
  std::vector<uint8_t> packet(300);
  for (int i = 0; i < 4; ++i) {
    packet[0] = static_cast<uint8_t>(i);
    // 3 x (4 + 300) bytes fit in 1000, the fourth does not.
    EXPECT_EQ(queue.Push(packet.data(), packet.size()), i < 3) << i;
  }
  EXPECT_EQ(queue.dropped(), 1u);
  std::vector<int> seen;
  queue.Drain(
      [](void* context, const uint8_t* data, size_t size) {
        EXPECT_EQ(size, 300u);
        static_cast<std::vector<int>*>(context)->push_back(data[0]);
      },
      &seen);
  EXPECT_EQ(seen, (std::vector<int>{0, 1, 2}));
  // Drained: there is room again.
  EXPECT_TRUE(queue.Push(packet.data(), packet.size()));
  EXPECT_EQ(queue.dropped(), 1u);
}

TEST(StringInternerTest, FullTableReturnsZeroAndCounts) {
  StringInterner strings;
  ASSERT_TRUE(strings.Init(3, 1024));
  const uint32_t a = strings.Intern("a");
  const uint32_t b = strings.Intern("bb");
  const uint32_t c = strings.Intern("ccc");
  EXPECT_EQ(a, 1u);
  EXPECT_EQ(b, 2u);
  EXPECT_EQ(c, 3u);
  EXPECT_EQ(strings.Intern("dddd"), 0u);
  EXPECT_EQ(strings.dropped(), 1u);
  EXPECT_EQ(strings.Intern("bb"), 2u);  // known strings still resolve
  EXPECT_EQ(strings.count(), 3u);
  EXPECT_EQ(strings.Get(3), "ccc");
  EXPECT_EQ(strings.Get(4), "");
}

TEST(StringInternerTest, LongStringsAreCut) {
  StringInterner strings;
  ASSERT_TRUE(strings.Init(16, 1 << 16));
  const std::string long_name(StringInterner::kMaxStringBytes + 100, 'k');
  const uint32_t id = strings.Intern(long_name);
  ASSERT_NE(id, 0u);
  EXPECT_EQ(strings.Get(id).size(), StringInterner::kMaxStringBytes);
  EXPECT_EQ(strings.Intern(long_name), id);
}

}  // namespace
}  // namespace feedprof::preload
