// The NVTX injection in-process: the test records with the recorder linked
// statically, drives every supported NVTX call through NVTX's real loader
// and function tables, stops the recorder and reads the trace file back.
// It covers what the example programs do not: names built in one reused
// buffer, nesting past the stack depth, unmatched pops and double ends,
// the wide-string variants of every call, category names, return values,
// and calls made while the thread is already inside feedprof.
#include <nvtx3/nvToolsExt.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <thread>

#include "gtest/gtest.h"
#include "preload/config.h"
#include "preload/nvtx/nvtx_injection.h"
#include "preload/recorder.h"
#include "preload/recorder_control.h"
#include "preload/reentrancy_guard.h"
#include "tests/e2e/child_process.h"
#include "tests/e2e/trace_file.h"

namespace feedprof::e2e {
namespace {

constexpr int kDeepPushes = 70;  // past the stack's 64

struct Recorded {
  std::string dir;
  std::string error;
  TraceFile trace;
  preload::nvtx::NvtxDropCounts drops;
  uint32_t main_tid = 0;
  uint32_t other_tid = 0;
  std::vector<int> push_returns;
  std::vector<int> pop_returns;
  int unmatched_pop_return = 0;
};
Recorded* g_recorded = nullptr;

uint32_t Tid() { return static_cast<uint32_t>(syscall(SYS_gettid)); }

nvtxEventAttributes_t WideAttributes(const wchar_t* name) {
  nvtxEventAttributes_t a;
  std::memset(&a, 0, sizeof a);
  a.version = NVTX_VERSION;
  a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  a.messageType = NVTX_MESSAGE_TYPE_UNICODE;
  a.message.unicode = name;
  a.payloadType = NVTX_PAYLOAD_TYPE_FLOAT;
  a.payload.fValue = 2.5f;
  return a;
}

// Everything the tests below check, done once while recording.
void DriveNvtx(Recorded* r) {
  r->main_tid = Tid();
  // Names built in one buffer: same pointer, different text.
  char buffer[32];
  for (int i = 0; i < 6; ++i) {
    std::snprintf(buffer, sizeof buffer, "dyn-%d", i);
    nvtxRangePushA(buffer);
    nvtxRangePop();
  }
  // Return values of push and pop.
  r->push_returns.push_back(nvtxRangePushA("ret-outer"));
  r->push_returns.push_back(nvtxRangePushA("ret-inner"));
  r->pop_returns.push_back(nvtxRangePop());
  r->pop_returns.push_back(nvtxRangePop());
  r->unmatched_pop_return = nvtxRangePop();
  // Deeper than the stack holds.
  for (int i = 0; i < kDeepPushes; ++i) nvtxRangePushA("deep");
  for (int i = 0; i < kDeepPushes; ++i) nvtxRangePop();
  // Wide variants, and a start/end range ended twice on another thread.
  nvtxDomainHandle_t domain = nvtxDomainCreateW(L"wide-domain");
  nvtxStringHandle_t registered =
      nvtxDomainRegisterStringW(domain, L"registered-wide");
  nvtxEventAttributes_t a = WideAttributes(L"domain-wide");
  nvtxDomainRangePushEx(domain, &a);
  nvtxRangePushW(L"push-wide");
  nvtxDomainRangePop(domain);  // closes the domain range under push-wide
  nvtxRangePop();
  nvtxEventAttributes_t reg = WideAttributes(nullptr);
  reg.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
  reg.message.registered = registered;
  nvtxDomainMarkEx(domain, &reg);
  nvtxMarkW(L"mark-wide");
  const nvtxRangeId_t id = nvtxRangeStartW(L"start-wide");
  std::thread other([&] {
    r->other_tid = Tid();
    nvtxNameOsThreadW(Tid(), L"other-w\u00e9");
    nvtxRangeEnd(id);
    nvtxRangeEnd(id);  // ignored
  });
  other.join();
  nvtxNameCategoryA(3, "cat-three");
  nvtxDomainNameCategoryW(domain, 4, L"cat-four");
  // Calls made while the thread is inside feedprof are skipped.
  preload::t_recorder.in_call = 1;
  nvtxRangePushA("reentrant");
  nvtxRangePop();
  nvtxMarkA("reentrant");
  preload::t_recorder.in_call = 0;
}

class NvtxInProcessTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    g_recorded = new Recorded;
    Recorded* r = g_recorded;
    if (getenv("NVTX_INJECTION64_PATH") != nullptr) {
      r->error = "NVTX_INJECTION64_PATH is set; unset it to run this test";
      return;
    }
    r->dir = MakeTempDir("nvtx-injection");
    preload::Config config;
    std::snprintf(config.output_dir, sizeof config.output_dir, "%s/traces",
                  r->dir.c_str());
    if (!preload::BeginRecording(config, preload::TraceOrigin::kLaunch)) {
      r->error = "the recorder did not start";
      return;
    }
    DriveNvtx(r);
    r->drops = preload::nvtx::GetNvtxDropCounts();
    preload::RecorderSummary summary;
    preload::StopRecorder("exit", &summary);
    if (!summary.file_written) {
      r->error = "the recorder wrote no file";
      return;
    }
    if (!ReadTraceFile(summary.path, &r->trace, &r->error)) return;
  }

  static void TearDownTestSuite() {
    std::error_code ec;
    if (!g_recorded->dir.empty())
      std::filesystem::remove_all(g_recorded->dir, ec);
    delete g_recorded;
  }

  void SetUp() override {
    ASSERT_TRUE(g_recorded->error.empty()) << g_recorded->error;
  }

  const TraceFile& trace() const { return g_recorded->trace; }
};

TEST_F(NvtxInProcessTest, NamesBuiltInOneBufferKeepTheirOwnText) {
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(trace().RangesNamed("dyn-" + std::to_string(i)).size(), 1u)
        << "dyn-" << i;
  }
}

TEST_F(NvtxInProcessTest, PushAndPopReturnTheDepth) {
  EXPECT_EQ(g_recorded->push_returns, (std::vector<int>{0, 1}));
  EXPECT_EQ(g_recorded->pop_returns, (std::vector<int>{1, 0}));
  EXPECT_LT(g_recorded->unmatched_pop_return, 0);
  EXPECT_EQ(g_recorded->drops.unmatched_pops, 1u);
}

TEST_F(NvtxInProcessTest, PushesPastTheStackAreDroppedAndCounted) {
  const auto deep = trace().RangesNamed("deep");
  ASSERT_EQ(deep.size(), 64u);
  std::vector<bool> seen(64, false);
  for (const Range& r : deep) {
    ASSERT_LT(r.depth, 64u);
    seen[r.depth] = true;
  }
  for (size_t d = 0; d < seen.size(); ++d) EXPECT_TRUE(seen[d]) << d;
  EXPECT_EQ(g_recorded->drops.pushes_past_max_depth,
            static_cast<uint64_t>(kDeepPushes - 64));
}

TEST_F(NvtxInProcessTest, NvtxDropsReachTheTracesDropCounts) {
  // 6 pushes past the stack and 1 unmatched pop; the recorder itself had
  // room for everything.
  ASSERT_TRUE(trace().has_drops);
  const auto& d = g_recorded->drops;
  EXPECT_EQ(d.start_end_table_full, 0u);
  EXPECT_EQ(trace().drops.events_dropped(),
            d.pushes_past_max_depth + d.unmatched_pops);
  EXPECT_EQ(trace().drops.events_dropped(),
            static_cast<uint64_t>(kDeepPushes - 64 + 1));
}

TEST_F(NvtxInProcessTest, WideNamesDomainsAndRegisteredStrings) {
  const auto domain_range = trace().RangesNamed("domain-wide");
  ASSERT_EQ(domain_range.size(), 1u);
  EXPECT_EQ(domain_range[0].domain, "wide-domain");
  EXPECT_EQ(domain_range[0].depth, 0u);
  double payload = 0;
  std::memcpy(&payload, &domain_range[0].payload, sizeof payload);
  EXPECT_EQ(payload, 2.5);
  const auto push = trace().RangesNamed("push-wide");
  ASSERT_EQ(push.size(), 1u);
  EXPECT_EQ(push[0].depth, 0u) << "the default domain nests on its own";
  EXPECT_EQ(push[0].domain, "");
  const auto marks = trace().MarksNamed("registered-wide");
  ASSERT_EQ(marks.size(), 1u);
  EXPECT_EQ(marks[0].domain, "wide-domain");
  EXPECT_EQ(trace().MarksNamed("mark-wide").size(), 1u);
}

TEST_F(NvtxInProcessTest, StartEndRangeEndsOnceOnTheOtherThread) {
  const auto ranges = trace().RangesNamed("start-wide");
  ASSERT_EQ(ranges.size(), 1u);
  EXPECT_TRUE(ranges[0].start_end);
  EXPECT_EQ(ranges[0].tid, g_recorded->other_tid);
  EXPECT_EQ(ranges[0].start_tid, g_recorded->main_tid);
}

TEST_F(NvtxInProcessTest, ThreadAndCategoryNames) {
  ASSERT_EQ(trace().thread_names.count(g_recorded->other_tid), 1u);
  EXPECT_EQ(trace().thread_names.at(g_recorded->other_tid), "other-w\xC3\xA9");
  const std::map<std::pair<std::string, uint32_t>, std::string> expected = {
      {{"", 3}, "cat-three"}, {{"wide-domain", 4}, "cat-four"}};
  EXPECT_EQ(trace().category_names, expected);
}

TEST_F(NvtxInProcessTest, CallsFromInsideFeedprofAreSkipped) {
  EXPECT_TRUE(trace().RangesNamed("reentrant").empty());
  EXPECT_TRUE(trace().MarksNamed("reentrant").empty());
}

TEST_F(NvtxInProcessTest, NothingElseWasRecorded) {
  // 6 dyn + 2 ret + 64 deep + domain-wide + push-wide + start-wide.
  EXPECT_EQ(trace().ranges.size(), 75u);
  EXPECT_EQ(trace().marks.size(), 2u);
}

}  // namespace
}  // namespace feedprof::e2e
