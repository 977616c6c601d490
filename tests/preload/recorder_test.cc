// The recorder end to end in one process: several threads record, the
// writer thread writes, and the file is parsed back with libprotobuf.
#include "preload/recorder.h"

#include <dirent.h>
#include <gtest/gtest.h>
#include <sys/prctl.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "preload/recorder_control.h"
#include "preload/reentrancy_guard.h"
#include "preload/thread_buffer.h"
#include "preload/trace_framing.h"
#include "preload/trace_packets.h"
#include "preload/wire_writer.h"
#include "tests/testing/trace_test_util.h"

namespace feedprof::preload {
namespace {

using feedprof::testing::ParsedTrace;
using feedprof::testing::ParseTraceFile;

class RecorderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char templ[] = "/tmp/feedprof-recorder-test-XXXXXX";
    ASSERT_NE(mkdtemp(templ), nullptr);
    root_ = templ;
  }
  void TearDown() override {
    RecorderSummary ignored;
    StopRecorder("shutdown", &ignored);
    std::string cmd = "rm -rf '" + root_ + "'";
    ASSERT_EQ(std::system(cmd.c_str()), 0);
  }
  Config MakeConfig(uint32_t buffer_mb, uint32_t flush_ms) {
    Config c;
    std::snprintf(c.output_dir, sizeof c.output_dir, "%s/session",
                  root_.c_str());
    c.buffer_mb = buffer_mb;
    c.flush_interval_ms = flush_ms;
    c.log_level = LogLevel::kQuiet;
    return c;
  }
  std::string root_;
};

// Absolute start times of one repeated field, undoing the delta encoding.
template <typename Events, typename DeltaFn>
std::vector<uint64_t> Decode(uint64_t base, const Events& events,
                             DeltaFn delta) {
  std::vector<uint64_t> out;
  uint64_t prev = base;
  for (const auto& e : events) {
    prev += static_cast<uint64_t>(delta(e));
    out.push_back(prev);
  }
  return out;
}

TEST_F(RecorderTest, ThreadsRecordAndTheFileHoldsEveryEvent) {
  ASSERT_TRUE(BeginRecording(MakeConfig(32, 100), TraceOrigin::kLaunch));
  EXPECT_TRUE(RecordingEnabled());
  constexpr int kThreads = 4;
  constexpr uint64_t kRangesPerThread = 3000;  // spans several chunks
  std::map<uint32_t, int> tid_to_index;
  std::vector<uint32_t> tids(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t, &tids] {
      tids[t] = CurrentTid();
      const uint32_t name = InternString("range-" + std::to_string(t));
      const uint32_t api = InternString("cudaLaunchKernel");
      for (uint64_t i = 0; i < kRangesPerThread; ++i) {
        // Synthetic times: thread t, event i starts at 10^9 + t*10^6 + i*100.
        const uint64_t start = 1000000000ull + t * 1000000ull + i * 100;
        RecordNvtxRange(NvtxRangeRecord{start, start + 50 + i % 10, i, name, 0,
                                        0, 0, static_cast<uint32_t>(i % 4), 0,
                                        false});
        if (i % 10 == 0) {
          RecordApiCall(ApiCallRecord{start + 10, start + 30, i + 1, 0, api, 0,
                                      211, 0, 1});
        }
      }
      RecordNvtxMark(NvtxMarkRecord{2000000000ull, name, 0, 0, 0});
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) tid_to_index[tids[t]] = t;

  // A producer's own packet goes through the queue.
  uint8_t packet[64];
  wire::WireWriter pw(packet, sizeof packet);
  const auto clock = pw.BeginNested(kPacketClock, 1);
  pw.Uint(1, 42);
  pw.EndNested(clock);
  ASSERT_TRUE(SubmitPacket(packet, pw.size()));

  FlushNow(5000);
  RecorderSummary summary;
  StopRecorder("shutdown", &summary);
  EXPECT_FALSE(RecordingEnabled());
  ASSERT_TRUE(summary.file_written);
  const uint64_t expected_events =
      kThreads * (kRangesPerThread + kRangesPerThread / 10 + 1);
  EXPECT_EQ(summary.events, expected_events);
  EXPECT_EQ(summary.dropped, 0u);

  const ParsedTrace trace = ParseTraceFile(summary.path);
  ASSERT_TRUE(trace.clean_end);
  ASSERT_GE(trace.packets.size(), 4u);
  ASSERT_TRUE(trace.packets.front().has_header());
  EXPECT_EQ(trace.packets.front().header().pid(),
            static_cast<uint32_t>(getpid()));
  EXPECT_EQ(trace.packets.front().header().origin(), "start");
  ASSERT_TRUE(trace.packets.back().has_footer());
  EXPECT_EQ(trace.packets.back().footer().reason(), "shutdown");

  std::map<uint32_t, std::string> strings;
  std::vector<uint64_t> ranges_per_thread(kThreads), calls_per_thread(kThreads),
      marks_per_thread(kThreads);
  std::set<uint32_t> thread_infos;
  bool saw_submitted = false;
  const trace::DropCounts* last_drops = nullptr;
  for (const auto& p : trace.packets) {
    if (p.has_strings()) {
      for (const auto& s : p.strings().strings()) strings[s.id()] = s.value();
    } else if (p.has_thread()) {
      thread_infos.insert(p.thread().tid());
    } else if (p.has_clock() && p.clock().monotonic_ns() == 42) {
      saw_submitted = true;
    } else if (p.has_drops()) {
      last_drops = &p.drops();
    } else if (p.has_events()) {
      const auto& e = p.events();
      ASSERT_TRUE(tid_to_index.count(e.tid())) << e.tid();
      EXPECT_TRUE(thread_infos.count(e.tid()));  // thread info comes first
      const int t = tid_to_index[e.tid()];
      const std::string want_name = "range-" + std::to_string(t);
      const auto starts = Decode(e.base_ts_ns(), e.ranges(),
                                 [](const auto& r) { return r.start_delta(); });
      for (int i = 0; i < e.ranges_size(); ++i) {
        const auto& r = e.ranges(i);
        // The string was defined before this packet.
        ASSERT_EQ(strings[r.name_id()], want_name);
        const uint64_t index = r.payload();
        EXPECT_EQ(starts[static_cast<size_t>(i)],
                  1000000000ull + t * 1000000ull + index * 100);
        EXPECT_EQ(r.duration_ns(), 50 + index % 10);
        EXPECT_EQ(r.depth(), index % 4);
      }
      const auto call_starts =
          Decode(e.base_ts_ns(), e.api_calls(),
                 [](const auto& a) { return a.start_delta(); });
      // Correlation ids: the batch's base plus each call's delta.
      uint64_t correlation = e.base_correlation_id();
      for (int i = 0; i < e.api_calls_size(); ++i) {
        const auto& a = e.api_calls(i);
        ASSERT_EQ(strings[a.name_id()], "cudaLaunchKernel");
        correlation += static_cast<uint64_t>(a.correlation_delta());
        const uint64_t index = correlation - 1;
        EXPECT_EQ(call_starts[static_cast<size_t>(i)],
                  1000000000ull + t * 1000000ull + index * 100 + 10);
        EXPECT_EQ(a.duration_ns(), 20u);
        EXPECT_EQ(a.callback_id(), 0u);  // left out: the call is named
      }
      for (const auto& m : e.marks()) {
        (void)m;
        ++marks_per_thread[static_cast<size_t>(t)];
      }
      ranges_per_thread[static_cast<size_t>(t)] +=
          static_cast<uint64_t>(e.ranges_size());
      calls_per_thread[static_cast<size_t>(t)] +=
          static_cast<uint64_t>(e.api_calls_size());
    }
  }
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(ranges_per_thread[static_cast<size_t>(t)], kRangesPerThread);
    EXPECT_EQ(calls_per_thread[static_cast<size_t>(t)], kRangesPerThread / 10);
    EXPECT_EQ(marks_per_thread[static_cast<size_t>(t)], 1u);
  }
  EXPECT_TRUE(saw_submitted);
  ASSERT_NE(last_drops, nullptr);
  EXPECT_EQ(last_drops->events_recorded(), expected_events);
  EXPECT_EQ(last_drops->events_dropped(), 0u);
}

TEST_F(RecorderTest, FullBuffersDropAndCount) {
  // 1 MiB cap: room for ~13,000 records. The fork-prepare hook takes the
  // recorder's locks as fork(2) would; the writer then stalls at its next
  // drain, so at most about two pools' worth of a 2,000,000-record burst is
  // written and the rest must be dropped and counted.
  ASSERT_TRUE(BeginRecording(MakeConfig(1, 3600000), TraceOrigin::kLaunch));
  const uint32_t name = InternString("burst");
  constexpr uint64_t kBurst = 2000000;
  RecorderPrepareFork();
  for (uint64_t i = 0; i < kBurst; ++i) {
    RecordNvtxMark(NvtxMarkRecord{1000 + i, name, 0, 0, 0});
  }
  RecorderParentAfterFork();
  RecorderSummary summary;
  StopRecorder("shutdown", &summary);
  ASSERT_TRUE(summary.file_written);
  EXPECT_GT(summary.dropped, kBurst / 2);
  EXPECT_EQ(summary.events + summary.dropped, kBurst);

  const ParsedTrace trace = ParseTraceFile(summary.path);
  ASSERT_TRUE(trace.clean_end);
  uint64_t marks = 0;
  const trace::DropCounts* drops = nullptr;
  for (const auto& p : trace.packets) {
    if (p.has_events()) marks += static_cast<uint64_t>(p.events().marks_size());
    if (p.has_drops()) drops = &p.drops();
  }
  EXPECT_EQ(marks, summary.events);
  ASSERT_NE(drops, nullptr);
  EXPECT_EQ(drops->events_recorded(), summary.events);
  EXPECT_EQ(drops->events_dropped(), summary.dropped);
}

TEST_F(RecorderTest, PeriodicFlushWritesBeforeTheEnd) {
  ASSERT_TRUE(BeginRecording(MakeConfig(4, 50), TraceOrigin::kLaunch));
  const uint32_t name = InternString("early");
  RecordNvtxMark(NvtxMarkRecord{NowNs(), name, 0, 0, 0});
  // No FlushNow: the 50 ms flush interval must get it to disk.
  std::string path;
  for (int i = 0; i < 100 && path.empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    // The directory itself appears with the first write.
    DIR* d = opendir((root_ + "/session").c_str());
    if (d == nullptr) continue;
    while (dirent* e = readdir(d)) {
      if (std::string(e->d_name).find(".fpt") != std::string::npos) {
        path = root_ + "/session/" + e->d_name;
      }
    }
    closedir(d);
  }
  ASSERT_FALSE(path.empty());
  int marks = 0;
  for (int i = 0; i < 100 && marks == 0; ++i) {
    for (const auto& p : ParseTraceFile(path).packets) {
      if (p.has_events()) marks += p.events().marks_size();
    }
    if (marks == 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(marks, 1);
}

// What the periodic hook saw: it runs on the writer thread, outside the
// recorder's guard, so a packet it submits is accepted.
std::atomic<int> g_hook_calls{0};
std::atomic<int> g_hook_in_call{-1};
std::atomic<int> g_hook_submitted{0};

void PeriodicHookForTest() {
  g_hook_in_call.store(t_recorder.in_call);
  if (g_hook_calls.fetch_add(1) == 0) {
    // A ThreadInfo packet for a made-up tid, as CUPTI's buffers would be.
    uint8_t packet[64];
    wire::WireWriter w(packet, sizeof packet);
    const auto thread = w.BeginNested(8);  // Packet.thread
    w.Uint(1, 424242);
    w.String(2, "hooked");
    w.EndNested(thread);
    if (SubmitPacket(w.data(), w.size())) g_hook_submitted.store(1);
  }
}

TEST_F(RecorderTest, PeriodicFlushCallsTheHookOutsideTheGuard) {
  g_hook_calls.store(0);
  g_hook_submitted.store(0);
  ASSERT_TRUE(BeginRecording(MakeConfig(4, 20), TraceOrigin::kLaunch));
  SetPeriodicFlushHook(&PeriodicHookForTest);
  // Every 20 ms: at least 3 calls within 2 s even on a loaded machine.
  for (int i = 0; i < 200 && g_hook_calls.load() < 3; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  SetPeriodicFlushHook(nullptr);
  EXPECT_GE(g_hook_calls.load(), 3);
  EXPECT_EQ(g_hook_in_call.load(), 0);
  EXPECT_EQ(g_hook_submitted.load(), 1);
  const int calls_after_reset = g_hook_calls.load();
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_LE(g_hook_calls.load(), calls_after_reset + 1);  // one in flight
  RecorderSummary summary;
  StopRecorder("shutdown", &summary);
  ASSERT_TRUE(summary.file_written);
  int hooked = 0;
  for (const auto& p : ParseTraceFile(summary.path).packets) {
    if (p.has_thread() && p.thread().tid() == 424242u) ++hooked;
  }
  EXPECT_EQ(hooked, 1);
}

TEST_F(RecorderTest, ThreadInfoNeverHasAnEmptyName) {
  ASSERT_TRUE(BeginRecording(MakeConfig(4, 3600000), TraceOrigin::kLaunch));
  const uint32_t name = InternString("unnamed-then-named");
  uint32_t tid = 0;
  std::thread worker([&] {
    tid = CurrentTid();
    prctl(PR_SET_NAME, "");
    RecordNvtxMark(NvtxMarkRecord{NowNs(), name, 0, 0, 0});
    FlushNow(2000);  // the first chunk is written without a name
    prctl(PR_SET_NAME, "named-later");
    // Fill the first chunk: the next one carries the new name.
    for (uint32_t i = 0; i < kChunkRecords + 1; ++i) {
      RecordNvtxMark(NvtxMarkRecord{NowNs(), name, 0, 0, 0});
    }
  });
  worker.join();
  RecorderSummary summary;
  StopRecorder("shutdown", &summary);
  ASSERT_TRUE(summary.file_written);
  std::vector<std::string> names;
  int marks = 0;
  for (const auto& p : ParseTraceFile(summary.path).packets) {
    if (p.has_thread() && p.thread().tid() == tid) {
      names.push_back(p.thread().name());
    }
    if (p.has_events() && p.events().tid() == tid) {
      marks += p.events().marks_size();
    }
  }
  EXPECT_EQ(marks, static_cast<int>(kChunkRecords) + 2);
  ASSERT_EQ(names.size(), 1u);
  EXPECT_EQ(names[0], "named-later");
}

TEST_F(RecorderTest, NothingHappensWhenNotRecording) {
  EXPECT_FALSE(RecordingEnabled());
  RecordNvtxMark(NvtxMarkRecord{1, 1, 0, 0, 0});
  uint8_t byte = 0;
  EXPECT_FALSE(SubmitPacket(&byte, 1));
  FlushNow(10);  // returns at once
  RecorderSummary summary;
  StopRecorder("shutdown", &summary);
  EXPECT_FALSE(summary.started);
}

TEST_F(RecorderTest, InternedIdsAreStable) {
  ASSERT_TRUE(BeginRecording(MakeConfig(4, 1000), TraceOrigin::kLaunch));
  const uint32_t a = InternString("alpha");
  const uint32_t b = InternString("beta");
  EXPECT_NE(a, 0u);
  EXPECT_NE(a, b);
  EXPECT_EQ(InternString("alpha"), a);
  EXPECT_EQ(InternString(std::string("al") + "pha"), a);
  EXPECT_EQ(InternString(""), 0u);
  std::vector<std::thread> threads;
  std::vector<uint32_t> ids(8);
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([t, &ids] { ids[t] = InternString("shared-name"); });
  }
  for (auto& th : threads) th.join();
  for (uint32_t id : ids) EXPECT_EQ(id, ids[0]);
}

}  // namespace
}  // namespace feedprof::preload
