// Unit tests of the NVTX injection's building blocks: UTF-8 conversion of
// wide names, the per-thread push/pop stack, the cross-thread start/end
// table and the domain table.
#include <atomic>
#include <cstring>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "preload/nvtx/nvtx_domains.h"
#include "preload/nvtx/nvtx_range_stack.h"
#include "preload/nvtx/nvtx_start_end_table.h"
#include "preload/nvtx/nvtx_strings.h"

namespace feedprof::preload::nvtx {
namespace {

TEST(WideToUtf8Test, EncodesOneToFourByteCharacters) {
  char out[64];
  // a, e-acute, CJK, emoji (U+1F600).
  const wchar_t text[] = {L'a', 0xE9, 0x540D, 0x1F600, 0};
  const size_t n = WideToUtf8(text, out, sizeof out);
  EXPECT_EQ(n, 1u + 2u + 3u + 4u);
  EXPECT_STREQ(out, "a\xC3\xA9\xE5\x90\x8D\xF0\x9F\x98\x80");
}

TEST(WideToUtf8Test, ReplacesInvalidCodePoints) {
  char out[16];
  const wchar_t text[] = {0xD800, static_cast<wchar_t>(0x110000), 0};
  EXPECT_EQ(WideToUtf8(text, out, sizeof out), 6u);
  EXPECT_STREQ(out, "\xEF\xBF\xBD\xEF\xBF\xBD");
}

TEST(WideToUtf8Test, TruncatesAtCharacterBoundary) {
  char out[5];                                     // room for 4 bytes + NUL
  const wchar_t text[] = {L'a', L'b', 0x540D, 0};  // 1 + 1 + 3 bytes
  EXPECT_EQ(WideToUtf8(text, out, sizeof out), 2u);
  EXPECT_STREQ(out, "ab");
  EXPECT_EQ(WideToUtf8(nullptr, out, sizeof out), 0u);
  EXPECT_STREQ(out, "");
}

TEST(StringHandleTest, RegisteredHandleCarriesTheId) {
  EXPECT_EQ(IdFromStringHandle(StringHandleFromId(12345)), 12345u);
  EXPECT_EQ(IdFromStringHandle(nullptr), 0u);
}

TEST(ReadEventAttributesTest, ReadsColorCategoryAndPayloadTypes) {
  nvtxEventAttributes_t a;
  std::memset(&a, 0, sizeof a);
  a.version = NVTX_VERSION;
  a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  a.category = 9;
  a.colorType = NVTX_COLOR_ARGB;
  a.color = 0xFF112233u;
  a.payloadType = NVTX_PAYLOAD_TYPE_INT32;
  a.payload.iValue = -2;
  a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
  a.message.registered = StringHandleFromId(77);
  EventAttributes out = ReadEventAttributes(nullptr, &a);
  EXPECT_EQ(out.category, 9u);
  EXPECT_EQ(out.color, 0xFF112233u);
  EXPECT_EQ(out.payload, static_cast<uint64_t>(int64_t{-2}));
  EXPECT_EQ(out.name_id, 77u);

  a.colorType = NVTX_COLOR_UNKNOWN;
  a.payloadType = NVTX_PAYLOAD_TYPE_DOUBLE;
  a.payload.dValue = 1.5;
  out = ReadEventAttributes(nullptr, &a);
  EXPECT_EQ(out.color, 0u);
  double d = 0;
  std::memcpy(&d, &out.payload, sizeof d);
  EXPECT_EQ(d, 1.5);
}

TEST(ReadEventAttributesTest, IgnoresFieldsPastTheDeclaredSize) {
  nvtxEventAttributes_t a;
  std::memset(&a, 0, sizeof a);
  a.size = static_cast<uint16_t>(offsetof(nvtxEventAttributes_t, colorType));
  a.category = 4;
  a.colorType = NVTX_COLOR_ARGB;
  a.color = 0xFFFFFFFFu;
  a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
  a.message.registered = StringHandleFromId(5);
  const EventAttributes out = ReadEventAttributes(nullptr, &a);
  EXPECT_EQ(out.category, 4u);
  EXPECT_EQ(out.color, 0u);
  EXPECT_EQ(out.name_id, 0u);
  EXPECT_EQ(ReadEventAttributes(nullptr, nullptr).name_id, 0u);
}

OpenRange Named(uint32_t name, uint32_t domain, uint64_t start) {
  OpenRange r{};
  r.name_id = name;
  r.domain_id = domain;
  r.start_ns = start;
  return r;
}

TEST(RangeStackTest, PopsInnermostWithDepth) {
  RangeStack stack{};
  EXPECT_EQ(stack.Push(Named(1, 0, 10)), 0);
  EXPECT_EQ(stack.Push(Named(2, 0, 20)), 1);
  EXPECT_EQ(stack.Push(Named(3, 0, 30)), 2);
  OpenRange closed{};
  ASSERT_EQ(stack.Pop(0, &closed), RangeStack::PopResult::kPopped);
  EXPECT_EQ(closed.name_id, 3u);
  EXPECT_EQ(closed.depth, 2u);
  EXPECT_EQ(closed.start_ns, 30u);
  ASSERT_EQ(stack.Pop(0, &closed), RangeStack::PopResult::kPopped);
  EXPECT_EQ(closed.name_id, 2u);
  ASSERT_EQ(stack.Pop(0, &closed), RangeStack::PopResult::kPopped);
  EXPECT_EQ(closed.depth, 0u);
  EXPECT_EQ(stack.Pop(0, &closed), RangeStack::PopResult::kEmpty);
}

TEST(RangeStackTest, DomainsNestIndependently) {
  RangeStack stack{};
  EXPECT_EQ(stack.Push(Named(1, 0, 1)), 0);
  EXPECT_EQ(stack.Push(Named(2, 9, 2)), 0);  // first range of domain 9
  EXPECT_EQ(stack.Push(Named(3, 0, 3)), 1);
  OpenRange closed{};
  // Popping domain 9 takes its range from under the default one.
  ASSERT_EQ(stack.Pop(9, &closed), RangeStack::PopResult::kPopped);
  EXPECT_EQ(closed.name_id, 2u);
  ASSERT_EQ(stack.Pop(0, &closed), RangeStack::PopResult::kPopped);
  EXPECT_EQ(closed.name_id, 3u);
  EXPECT_EQ(stack.Pop(9, &closed), RangeStack::PopResult::kEmpty);
  ASSERT_EQ(stack.Pop(0, &closed), RangeStack::PopResult::kPopped);
  EXPECT_EQ(closed.name_id, 1u);
}

TEST(RangeStackTest, PushesPastMaxDepthAreDroppedAndTheirPopsSwallowed) {
  RangeStack stack{};
  for (uint32_t i = 0; i < RangeStack::kMaxDepth; ++i) {
    EXPECT_EQ(stack.Push(Named(i + 1, 0, i)), static_cast<int>(i));
  }
  EXPECT_EQ(stack.Push(Named(1000, 0, 0)), -1);
  EXPECT_EQ(stack.Push(Named(1001, 0, 0)), -1);
  EXPECT_EQ(stack.dropped(), 2u);
  OpenRange closed{};
  EXPECT_EQ(stack.Pop(0, &closed), RangeStack::PopResult::kSwallowed);
  EXPECT_EQ(stack.Pop(0, &closed), RangeStack::PopResult::kSwallowed);
  // The next pop closes the innermost range that was kept.
  ASSERT_EQ(stack.Pop(0, &closed), RangeStack::PopResult::kPopped);
  EXPECT_EQ(closed.name_id, RangeStack::kMaxDepth);
  EXPECT_EQ(stack.size(), RangeStack::kMaxDepth - 1);
}

TEST(StartEndTableTest, EndReturnsWhatStartStoredOnce) {
  static StartEndTable table;
  uint32_t hint = 5;
  const uint64_t id = table.Start(Named(42, 3, 100), 777, &hint);
  ASSERT_NE(id, 0u);
  StartEndTable::Started started{};
  ASSERT_TRUE(table.End(id, &started));
  EXPECT_EQ(started.range.name_id, 42u);
  EXPECT_EQ(started.range.domain_id, 3u);
  EXPECT_EQ(started.range.start_ns, 100u);
  EXPECT_EQ(started.start_tid, 777u);
  EXPECT_FALSE(table.End(id, &started)) << "a second End is ignored";
  EXPECT_FALSE(table.End(0, &started));
  EXPECT_FALSE(table.End(0xFFFFFFFFull, &started));
  // The slot is reused with a new generation: the old id stays dead.
  hint = 5;
  const uint64_t reused = table.Start(Named(43, 0, 200), 1, &hint);
  ASSERT_NE(reused, 0u);
  EXPECT_NE(reused, id);
  EXPECT_FALSE(table.End(id, &started));
  EXPECT_TRUE(table.End(reused, &started));
  EXPECT_EQ(table.open_ranges(), 0u);
}

TEST(StartEndTableTest, FullTableDropsAndCounts) {
  static StartEndTable table;
  uint32_t hint = 0;
  std::vector<uint64_t> ids;
  for (uint32_t i = 0; i < StartEndTable::kSlots; ++i) {
    ids.push_back(table.Start(Named(1, 0, i), 1, &hint));
    ASSERT_NE(ids.back(), 0u);
  }
  EXPECT_EQ(table.Start(Named(1, 0, 0), 1, &hint), 0u);
  EXPECT_EQ(table.dropped(), 1u);
  StartEndTable::Started started{};
  for (uint64_t id : ids) EXPECT_TRUE(table.End(id, &started));
}

TEST(StartEndTableTest, RangesStartedOnOneThreadEndOnOthers) {
  static StartEndTable table;
  constexpr int kRanges = 2000;
  std::vector<uint64_t> ids(kRanges);
  uint32_t hint = 0;
  for (int i = 0; i < kRanges; ++i) {
    ids[i] = table.Start(Named(static_cast<uint32_t>(i + 1), 0, 0), 1, &hint);
  }
  // Two threads race to end every range; each range ends exactly once.
  std::atomic<int> ended{0};
  auto ender = [&] {
    StartEndTable::Started started{};
    for (uint64_t id : ids) {
      if (table.End(id, &started)) ended.fetch_add(1);
    }
  };
  std::thread a(ender);
  std::thread b(ender);
  a.join();
  b.join();
  EXPECT_EQ(ended.load(), kRanges);
  EXPECT_EQ(table.open_ranges(), 0u);
}

TEST(DomainTableTest, SameNameSameHandleAndNamesResolve) {
  nvtxDomainHandle_t a = CreateDomain(501);
  nvtxDomainHandle_t b = CreateDomain(502);
  EXPECT_NE(a, nullptr);
  EXPECT_NE(a, b);
  EXPECT_EQ(CreateDomain(501), a);
  EXPECT_EQ(DomainNameId(a), 501u);
  EXPECT_EQ(DomainNameId(b), 502u);
  EXPECT_EQ(DomainNameId(nullptr), 0u);
  int not_a_domain = 0;
  EXPECT_EQ(DomainNameId(reinterpret_cast<nvtxDomainHandle_t>(&not_a_domain)),
            0u);
}

TEST(DomainTableTest, CategoryNamesPerDomain) {
  EXPECT_TRUE(NameCategory(0, 7, 100));
  EXPECT_TRUE(NameCategory(501, 7, 200));
  EXPECT_EQ(CategoryNameId(0, 7), 100u);
  EXPECT_EQ(CategoryNameId(501, 7), 200u);
  EXPECT_TRUE(NameCategory(0, 7, 101));  // renaming replaces
  EXPECT_EQ(CategoryNameId(0, 7), 101u);
  EXPECT_EQ(CategoryNameId(0, 8), 0u);
}

}  // namespace
}  // namespace feedprof::preload::nvtx
