// Every packet kind the injected library encodes, parsed back with
// libprotobuf field by field: the proof that the hand-written encoder and
// proto/feedprof.proto agree.
#include "preload/trace_packets.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "preload/event_batch_encoder.h"
#include "preload/process_facts.h"
#include "preload/wire_writer.h"
#include "tests/testing/trace_test_util.h"

namespace feedprof::preload {
namespace {

using feedprof::testing::ParsedTrace;
using feedprof::testing::ParseTraceBytes;

struct Buffer {
  std::vector<uint8_t> bytes = std::vector<uint8_t>(1 << 20);
  wire::WireWriter w{bytes.data(), bytes.size()};
  ParsedTrace Parse() const {
    EXPECT_FALSE(w.overflowed());
    return ParseTraceBytes(w.data(), w.size());
  }
};

void AddEntry(char* area, size_t* used, const char* text) {
  const size_t len = std::strlen(text) + 1;
  std::memcpy(area + *used, text, len);
  *used += len;
}

void PlatformStub(wire::WireWriter& w, uint32_t field) {
  const auto n = w.BeginNested(field, 2);
  w.String(1, "Test CPU @ 3.0GHz");
  w.Uint(2, 64);
  w.EndNested(n);
}

TEST(TracePacketsTest, HeaderRoundTrips) {
  ProcessFacts facts;
  facts.pid = 4242;
  facts.ppid = 17;
  std::strcpy(facts.hostname, "node-7.cluster");
  std::strcpy(facts.executable, "/usr/bin/python3");
  AddEntry(facts.cmdline, &facts.cmdline_bytes, "python3");
  AddEntry(facts.cmdline, &facts.cmdline_bytes, "");
  AddEntry(facts.cmdline, &facts.cmdline_bytes, "train.py");
  facts.rank = 3;
  facts.local_rank = -1;
  facts.world_size = 8;
  AddEntry(facts.environment, &facts.environment_bytes, "RANK=3");
  AddEntry(facts.environment, &facts.environment_bytes,
           "FEEDPROF_SAMPLING_HZ=200");
  facts.origin = TraceOrigin::kFork;
  facts.parent_trace_pid = 4000;
  facts.sampling_interval_ns = 5000000;
  facts.start_monotonic_ns = 123456789012ull;
  facts.start_realtime_ns = 1790000000123456789ull;

  Buffer b;
  EncodeHeaderPacket(facts, PlatformStub, b.w);
  const ParsedTrace t = b.Parse();
  ASSERT_TRUE(t.clean_end);
  ASSERT_EQ(t.packets.size(), 1u);
  ASSERT_TRUE(t.packets[0].has_header());
  const auto& h = t.packets[0].header();
  EXPECT_EQ(h.format_version(), kTraceFormatVersion);
  EXPECT_FALSE(h.feedprof_version().empty());
  EXPECT_EQ(h.pid(), 4242u);
  EXPECT_EQ(h.ppid(), 17u);
  EXPECT_EQ(h.hostname(), "node-7.cluster");
  EXPECT_EQ(h.executable(), "/usr/bin/python3");
  ASSERT_EQ(h.argv_size(), 3);
  EXPECT_EQ(h.argv(0), "python3");
  EXPECT_EQ(h.argv(1), "");
  EXPECT_EQ(h.argv(2), "train.py");
  EXPECT_EQ(h.rank(), 3);
  EXPECT_EQ(h.local_rank(), -1);
  EXPECT_EQ(h.world_size(), 8);
  EXPECT_EQ(h.clock().monotonic_ns(), 123456789012ull);
  EXPECT_EQ(h.clock().realtime_ns(), 1790000000123456789ull);
  EXPECT_EQ(h.platform().cpu_model(), "Test CPU @ 3.0GHz");
  EXPECT_EQ(h.platform().logical_cpus(), 64u);
  ASSERT_EQ(h.environment_size(), 2);
  EXPECT_EQ(h.environment(0).key(), "RANK");
  EXPECT_EQ(h.environment(0).value(), "3");
  EXPECT_EQ(h.environment(1).key(), "FEEDPROF_SAMPLING_HZ");
  EXPECT_EQ(h.environment(1).value(), "200");
  EXPECT_EQ(h.origin(), "fork");
  EXPECT_EQ(h.parent_trace_pid(), 4000u);
  EXPECT_EQ(h.sampling_interval_ns(), 5000000u);
}

std::string_view StringsOf(void* context, uint32_t id) {
  auto* v = static_cast<std::vector<std::string>*>(context);
  return (*v)[id - 1];
}

TEST(TracePacketsTest, InternedStringsRoundTrip) {
  std::vector<std::string> strings = {"cudaLaunchKernel", "forward",
                                      std::string(300, 'k'), "\xce\xbc-step"};
  Buffer b;
  const uint32_t last = EncodeStringsPacket(1, 4, StringsOf, &strings, 0, b.w);
  EXPECT_EQ(last, 4u);
  const ParsedTrace t = b.Parse();
  ASSERT_EQ(t.packets.size(), 1u);
  ASSERT_TRUE(t.packets[0].has_strings());
  const auto& s = t.packets[0].strings();
  ASSERT_EQ(s.strings_size(), 4);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(s.strings(i).id(), static_cast<uint32_t>(i + 1));
    EXPECT_EQ(s.strings(i).value(), strings[static_cast<size_t>(i)]);
  }
}

TEST(TracePacketsTest, StringsPacketStopsWhenFull) {
  std::vector<std::string> strings(10, std::string(100, 's'));
  std::vector<uint8_t> bytes(400);
  wire::WireWriter w(bytes.data(), bytes.size());
  const uint32_t last = EncodeStringsPacket(1, 10, StringsOf, &strings, 0, w);
  EXPECT_GE(last, 1u);
  EXPECT_LT(last, 10u);
  const ParsedTrace t = ParseTraceBytes(w.data(), w.size());
  ASSERT_EQ(t.packets.size(), 1u);
  EXPECT_EQ(t.packets[0].strings().strings_size(), static_cast<int>(last));
}

TEST(TracePacketsTest, EventBatchDeltaEncodesEachFieldOnItsOwn) {
  std::vector<EventRecord> records(5);
  records[0].kind = RecordKind::kNvtxRange;
  records[0].range =
      NvtxRangeRecord{1000000, 1005000, 99, 7, 2, 3, 0xFF00FF, 0, 0, false};
  records[1].kind = RecordKind::kApiCall;
  records[1].api =
      ApiCallRecord{1001000, 1001500, 55, 4096, 11, 12, 211, -2, 1};
  records[2].kind = RecordKind::kNvtxRange;
  // Nested range recorded at its end: starts after the first one.
  records[2].range =
      NvtxRangeRecord{1000500, 1002000, 0, 8, 0, 0, 0, 1, 4321, true};
  records[3].kind = RecordKind::kNvtxMark;
  records[3].mark = NvtxMarkRecord{999000, 9, 1, 4, 5};
  records[4].kind = RecordKind::kApiCall;
  // No name: the callback id is written. An older correlation id than the
  // previous call's: a negative delta.
  records[4].api = ApiCallRecord{1003000, 1002000, 50, 0, 0, 0, 1, 0, 2};

  Buffer b;
  ASSERT_EQ(EncodeEventBatch(777, records.data(), records.size(), b.w), 5u);
  const ParsedTrace t = b.Parse();
  ASSERT_EQ(t.packets.size(), 1u);
  ASSERT_TRUE(t.packets[0].has_events());
  const auto& e = t.packets[0].events();
  EXPECT_EQ(e.tid(), 777u);
  EXPECT_EQ(e.base_ts_ns(), 1000000u);

  ASSERT_EQ(e.ranges_size(), 2);
  const auto& r0 = e.ranges(0);
  EXPECT_EQ(r0.start_delta(), 0);
  EXPECT_EQ(r0.duration_ns(), 5000u);
  EXPECT_EQ(r0.payload(), 99u);
  EXPECT_EQ(r0.name_id(), 7u);
  EXPECT_EQ(r0.domain_id(), 2u);
  EXPECT_EQ(r0.category(), 3u);
  EXPECT_EQ(r0.color(), 0xFF00FFu);
  EXPECT_EQ(r0.depth(), 0u);
  EXPECT_EQ(r0.kind(), trace::RANGE_KIND_PUSH_POP);
  const auto& r1 = e.ranges(1);
  EXPECT_EQ(r1.start_delta(), 500);  // relative to the previous range
  EXPECT_EQ(r1.duration_ns(), 1500u);
  EXPECT_EQ(r1.name_id(), 8u);
  EXPECT_EQ(r1.depth(), 1u);
  EXPECT_EQ(r1.kind(), trace::RANGE_KIND_START_END);
  EXPECT_EQ(r1.start_tid(), 4321u);

  ASSERT_EQ(e.api_calls_size(), 2);
  // Correlation ids: a base per batch, a delta per call.
  EXPECT_EQ(e.base_correlation_id(), 55u);
  const auto& a0 = e.api_calls(0);
  EXPECT_EQ(a0.start_delta(), 1000);  // relative to base
  EXPECT_EQ(a0.duration_ns(), 500u);
  EXPECT_EQ(a0.correlation_id(), 0u);  // not written
  EXPECT_EQ(a0.correlation_delta(), 0);
  EXPECT_EQ(a0.bytes(), 4096u);
  EXPECT_EQ(a0.name_id(), 11u);
  EXPECT_EQ(a0.call_site_id(), 12u);
  EXPECT_EQ(a0.callback_id(), 0u);  // named: the callback id is left out
  EXPECT_EQ(a0.return_code(), -2);
  EXPECT_EQ(a0.domain(), trace::API_DOMAIN_RUNTIME);
  const auto& a1 = e.api_calls(1);
  EXPECT_EQ(a1.start_delta(), 2000);  // relative to the previous call
  EXPECT_EQ(a1.duration_ns(), 0u);    // end before start clamps to 0
  EXPECT_EQ(a1.domain(), trace::API_DOMAIN_DRIVER);
  EXPECT_EQ(a1.correlation_id(), 0u);
  EXPECT_EQ(a1.correlation_delta(), -5);  // 50 after 55
  EXPECT_EQ(a1.name_id(), 0u);
  EXPECT_EQ(a1.callback_id(), 1u);

  ASSERT_EQ(e.marks_size(), 1);
  EXPECT_EQ(e.marks(0).ts_delta(), -1000);  // before the base: negative
  EXPECT_EQ(e.marks(0).name_id(), 9u);
  EXPECT_EQ(e.marks(0).domain_id(), 1u);
  EXPECT_EQ(e.marks(0).category(), 4u);
  EXPECT_EQ(e.marks(0).color(), 5u);
}

TEST(TracePacketsTest, EventBatchSplitsWhenTheBufferIsFull) {
  std::vector<EventRecord> records(1000);
  for (size_t i = 0; i < records.size(); ++i) {
    records[i].kind = RecordKind::kNvtxMark;
    records[i].mark = NvtxMarkRecord{1000 + i * 10, 3, 0, 0, 0};
  }
  std::vector<uint8_t> bytes(2048);
  wire::WireWriter w(bytes.data(), bytes.size());
  const size_t n = EncodeEventBatch(1, records.data(), records.size(), w);
  EXPECT_GT(n, 100u);
  EXPECT_LT(n, records.size());
  const ParsedTrace t = ParseTraceBytes(w.data(), w.size());
  ASSERT_EQ(t.packets.size(), 1u);
  EXPECT_EQ(t.packets[0].events().marks_size(), static_cast<int>(n));
}

TEST(TracePacketsTest, SmallPacketsRoundTrip) {
  Buffer b;
  EncodeThreadInfoPacket(31337, "dataloader-3", false, b.w);
  EncodeThreadInfoPacket(100, "python3", true, b.w);
  EncodeClockSnapshotPacket(5555, 1790000000000000001ull, b.w);
  DropTotals d;
  d.events_recorded = 1;
  d.events_dropped = 2;
  d.cupti_records_dropped = 3;
  d.zero_timestamp_records = 4;
  d.cupti_buffers_dropped = 5;
  d.strings_dropped = 6;
  d.samples_dropped = 7;
  d.bytes_written = 8;
  d.packets_dropped = 9;
  EncodeDropCountsPacket(d, b.w);
  EncodeFooterPacket(987654321, "signal", 15, b.w);

  const ParsedTrace t = b.Parse();
  ASSERT_TRUE(t.clean_end);
  ASSERT_EQ(t.packets.size(), 5u);
  EXPECT_EQ(t.packets[0].thread().tid(), 31337u);
  EXPECT_EQ(t.packets[0].thread().name(), "dataloader-3");
  EXPECT_FALSE(t.packets[0].thread().is_main());
  EXPECT_TRUE(t.packets[1].thread().is_main());
  EXPECT_EQ(t.packets[2].clock().monotonic_ns(), 5555u);
  EXPECT_EQ(t.packets[2].clock().realtime_ns(), 1790000000000000001ull);
  const auto& drops = t.packets[3].drops();
  EXPECT_EQ(drops.events_recorded(), 1u);
  EXPECT_EQ(drops.events_dropped(), 2u);
  EXPECT_EQ(drops.cupti_records_dropped(), 3u);
  EXPECT_EQ(drops.zero_timestamp_records(), 4u);
  EXPECT_EQ(drops.cupti_buffers_dropped(), 5u);
  EXPECT_EQ(drops.strings_dropped(), 6u);
  EXPECT_EQ(drops.samples_dropped(), 7u);
  EXPECT_EQ(drops.bytes_written(), 8u);
  EXPECT_EQ(drops.packets_dropped(), 9u);
  EXPECT_EQ(t.packets[4].footer().end_ns(), 987654321u);
  EXPECT_EQ(t.packets[4].footer().reason(), "signal");
  EXPECT_EQ(t.packets[4].footer().signal(), 15);
}

TEST(TracePacketsTest, TypicalEventsTakeAFewBytes) {
  // A realistic stream: ranges ~20 us apart lasting ~10 us, API calls with
  // consecutive correlation ids. Names are small interned ids.
  constexpr size_t kCount = 500;
  std::vector<EventRecord> ranges(kCount), calls(kCount);
  for (size_t i = 0; i < kCount; ++i) {
    const uint64_t t0 = 5000000000ull + i * 20000;
    ranges[i].kind = RecordKind::kNvtxRange;
    ranges[i].range = NvtxRangeRecord{t0, t0 + 10000 + (i % 7) * 100,
                                      0,  static_cast<uint32_t>(1 + i % 5),
                                      0,  0,
                                      0,  static_cast<uint32_t>(i % 3),
                                      0,  false};
    calls[i].kind = RecordKind::kApiCall;
    calls[i].api = ApiCallRecord{
        t0, t0 + 4000, 100000 + i, 0, static_cast<uint32_t>(1 + i % 4),
        0,  211,       0,          1};
  }
  auto bytes_per_event = [](std::vector<EventRecord>& records) {
    Buffer b;
    EXPECT_EQ(EncodeEventBatch(12345, records.data(), records.size(), b.w),
              records.size());
    return static_cast<double>(b.w.size()) / static_cast<double>(kCount);
  };
  EXPECT_LE(bytes_per_event(ranges), 16.0);
  // An API call also carries its correlation id (as a one-byte delta) and
  // domain; the callback id is left out beside a name.
  EXPECT_LE(bytes_per_event(calls), 16.0);
}

}  // namespace
}  // namespace feedprof::preload
