// The hand-written protobuf encoder: varints, zig-zag, padded and widened
// length prefixes, and overflow behaviour.
#include "preload/wire_writer.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace feedprof::wire {
namespace {

std::vector<uint8_t> Bytes(const WireWriter& w) {
  return std::vector<uint8_t>(w.data(), w.data() + w.size());
}

TEST(WireWriterTest, VarintsHaveTheirMinimalSize) {
  const uint64_t values[] = {
      0, 1, 127, 128, 300, 16383, 16384, (1ull << 32), UINT64_MAX, 1ull << 63};
  const size_t sizes[] = {1, 1, 1, 2, 2, 2, 3, 5, 10, 10};
  for (size_t i = 0; i < std::size(values); ++i) {
    uint8_t buf[16];
    uint8_t* end = WriteVarint(values[i], buf);
    EXPECT_EQ(static_cast<size_t>(end - buf), sizes[i]) << values[i];
    EXPECT_EQ(VarintSize(values[i]), sizes[i]) << values[i];
  }
  uint8_t buf[16];
  WriteVarint(300, buf);
  EXPECT_EQ(buf[0], 0xAC);
  EXPECT_EQ(buf[1], 0x02);
}

TEST(WireWriterTest, ZigZagMatchesProtobuf) {
  EXPECT_EQ(ZigZag(0), 0u);
  EXPECT_EQ(ZigZag(-1), 1u);
  EXPECT_EQ(ZigZag(1), 2u);
  EXPECT_EQ(ZigZag(-2), 3u);
  EXPECT_EQ(ZigZag(INT64_MAX), UINT64_MAX - 1);
  EXPECT_EQ(ZigZag(INT64_MIN), UINT64_MAX);
}

TEST(WireWriterTest, FieldsEncodeTagsAndSkipZero) {
  uint8_t buf[64];
  WireWriter w(buf, sizeof buf);
  w.Uint(1, 0);  // skipped
  w.Uint(1, 150);
  w.Sint(2, -3);
  w.String(3, "hi");
  w.String(4, "");  // skipped
  EXPECT_EQ(Bytes(w), (std::vector<uint8_t>{0x08, 0x96, 0x01, 0x10, 0x05, 0x1A,
                                            0x02, 'h', 'i'}));
}

TEST(WireWriterTest, PaddedLengthPrefixIsNonMinimalVarint) {
  uint8_t buf[64];
  WireWriter w(buf, sizeof buf);
  auto n = w.BeginNested(5, 3);
  w.Uint(1, 7);
  w.EndNested(n);
  // tag (5<<3|2), 3-byte length 2 = 0x82 0x80 0x00, payload 08 07
  EXPECT_EQ(Bytes(w),
            (std::vector<uint8_t>{0x2A, 0x82, 0x80, 0x00, 0x08, 0x07}));
}

TEST(WireWriterTest, ShortPrefixIsWidenedByMovingThePayload) {
  uint8_t buf[512];
  WireWriter w(buf, sizeof buf);
  auto n = w.BeginNested(1, 1);
  const std::string text(200, 'x');
  w.String(2, text);  // 1 + 2 + 200 = 203 bytes: needs a 2-byte prefix
  w.EndNested(n);
  ASSERT_FALSE(w.overflowed());
  ASSERT_EQ(w.size(), 1u + 2u + 203u);
  EXPECT_EQ(buf[1], 0xCB);  // 203 = 0xCB 0x01
  EXPECT_EQ(buf[2], 0x01);
  EXPECT_EQ(buf[3], 0x12);  // field 2 tag
  EXPECT_EQ(buf[4], 0xC8);  // 200 = 0xC8 0x01
  EXPECT_EQ(buf[5], 0x01);
  EXPECT_EQ(buf[6], 'x');
  EXPECT_EQ(buf[205], 'x');
}

TEST(WireWriterTest, OverflowStopsWritingAndIsSticky) {
  uint8_t buf[8];
  WireWriter w(buf, sizeof buf);
  w.String(1, "abcd");  // 6 bytes
  EXPECT_FALSE(w.overflowed());
  EXPECT_EQ(w.size(), 6u);
  w.String(2, "abcd");
  EXPECT_TRUE(w.overflowed());
  EXPECT_LE(w.size(), sizeof buf);
  const size_t size_after = w.size();
  w.Uint(3, 1);
  EXPECT_EQ(w.size(), size_after);
  w.Truncate(6);
  EXPECT_FALSE(w.overflowed());
  w.Uint(3, 1);
  EXPECT_EQ(w.size(), 8u);
}

TEST(WireWriterTest, WideningThatDoesNotFitOverflows) {
  uint8_t buf[140];
  WireWriter w(buf, sizeof buf);
  auto n = w.BeginNested(1, 1);
  w.RawBytes(std::string(138, 'y').data(), 138);  // 2 + 138 = 140 bytes
  ASSERT_FALSE(w.overflowed());
  w.EndNested(n);  // needs one more byte than there is
  EXPECT_TRUE(w.overflowed());
}

}  // namespace
}  // namespace feedprof::wire
