// A trace cut off at any byte reads up to its last whole packet: the
// property that makes a killed process's trace usable.
#include <gtest/gtest.h>

#include <vector>

#include "preload/event_batch_encoder.h"
#include "preload/trace_packets.h"
#include "tests/testing/trace_test_util.h"

namespace feedprof::preload {
namespace {

using feedprof::testing::ParseTraceBytes;

TEST(TraceTruncationTest, EveryCutReadsUpToTheLastWholePacket) {
  std::vector<uint8_t> bytes(1 << 16);
  wire::WireWriter w(bytes.data(), bytes.size());
  std::vector<size_t> packet_ends;
  ProcessFacts facts;
  facts.pid = 1;
  std::strcpy(facts.hostname, "h");
  EncodeHeaderPacket(facts, nullptr, w);
  packet_ends.push_back(w.size());
  EncodeThreadInfoPacket(7, "main", true, w);
  packet_ends.push_back(w.size());
  std::vector<EventRecord> records(40);
  for (size_t i = 0; i < records.size(); ++i) {
    records[i].kind = RecordKind::kNvtxRange;
    records[i].range = NvtxRangeRecord{
        1000 + i * 500, 1200 + i * 500, 0, 3, 0, 0, 0, 0, 0, false};
  }
  ASSERT_EQ(EncodeEventBatch(7, records.data(), 20, w), 20u);
  packet_ends.push_back(w.size());
  ASSERT_EQ(EncodeEventBatch(7, records.data() + 20, 20, w), 20u);
  packet_ends.push_back(w.size());
  DropTotals d;
  d.events_recorded = 40;
  EncodeDropCountsPacket(d, w);
  packet_ends.push_back(w.size());
  EncodeFooterPacket(99999, "exit", 0, w);
  packet_ends.push_back(w.size());
  ASSERT_FALSE(w.overflowed());

  for (size_t cut = 0; cut <= w.size(); ++cut) {
    const auto t = ParseTraceBytes(bytes.data(), cut);
    size_t whole = 0;
    while (whole < packet_ends.size() && packet_ends[whole] <= cut) ++whole;
    ASSERT_EQ(t.packets.size(), whole) << "cut at byte " << cut;
    ASSERT_FALSE(t.bad_packet) << "cut at byte " << cut;
    EXPECT_EQ(t.consumed_bytes, whole == 0 ? 0 : packet_ends[whole - 1]);
    EXPECT_EQ(t.clean_end,
              whole > 0 ? packet_ends[whole - 1] == cut : cut == 0);
  }
  const auto full = ParseTraceBytes(bytes.data(), w.size());
  ASSERT_EQ(full.packets.size(), 6u);
  EXPECT_EQ(full.packets[3].events().ranges_size(), 20);
  EXPECT_EQ(full.packets[5].footer().reason(), "exit");
}

}  // namespace
}  // namespace feedprof::preload
