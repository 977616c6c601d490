// PreparedTimeline's threads: the window's calls in the analysis' order (by
// start, the longer first on equal starts) and the threads numbered by
// their first call in that order, whether the timeline holds the calls as
// the readers leave them (by start, a few that start together the other
// way round, as in a merged session) or in no order at all.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "analysis/prepared_timeline.h"
#include "feedprof/analysis.h"

namespace feedprof::analysis {
namespace {

struct Call {
  int32_t tid;
  TimeNs start;
  TimeNs end;
};

Timeline WithCalls(const std::vector<Call>& calls) {
  Timeline tl;
  const StringId name = tl.strings.Intern("cudaLaunchKernel");
  for (const Call& c : calls) {
    ApiCall a;
    a.pid = 7;
    a.tid = c.tid;
    a.start = c.start;
    a.end = c.end;
    a.name = name;
    a.domain = ApiDomain::kRuntime;
    tl.api_calls.push_back(a);
  }
  return tl;
}

// The window's calls as (tid, start, end), in the prepared order.
std::vector<std::vector<TimeNs>> WindowOrder(const PreparedTimeline& p) {
  std::vector<std::vector<TimeNs>> out;
  for (const uint32_t i : p.api_in_window()) {
    const ApiCall& c = p.timeline().api_calls[i];
    out.push_back({c.tid, c.start, c.end});
  }
  return out;
}

std::vector<int32_t> ThreadOrder(const PreparedTimeline& p) {
  std::vector<int32_t> out;
  for (const ThreadView& t : p.threads()) out.push_back(t.tid);
  return out;
}

// Thread 20's first call starts with thread 10's and is longer: it comes
// first, and so does thread 20. Then a group of three that start together
// (the longest first, equal ones in the order held) and one already in
// order.
const std::vector<Call> kByStart = {
    {10, 100, 105}, {20, 100, 150},                  // out of order
    {10, 200, 210}, {30, 300, 305}, {10, 300, 350},  // 300: out of order
    {20, 300, 320}, {30, 300, 320},                  //
    {20, 400, 480}, {30, 400, 410},                  // in order
    {10, 500, 505}};

const std::vector<std::vector<TimeNs>> kPrepared = {
    {20, 100, 150}, {10, 100, 105}, {10, 200, 210}, {10, 300, 350},
    {20, 300, 320}, {30, 300, 320}, {30, 300, 305}, {20, 400, 480},
    {30, 400, 410}, {10, 500, 505}};

TEST(PreparedThreadsTest, CallsThatStartTogetherAreSortedLongerFirst) {
  const Timeline tl = WithCalls(kByStart);
  const auto p = PreparedTimeline::Build(tl, AnalysisOptions());
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(WindowOrder(*p), kPrepared);
  EXPECT_EQ(ThreadOrder(*p), (std::vector<int32_t>{20, 10, 30}));
  // Each thread's view: its top-level calls, and all its calls counted.
  const ThreadView* t10 = p->FindThread(7, 10);
  const ThreadView* t20 = p->FindThread(7, 20);
  const ThreadView* t30 = p->FindThread(7, 30);
  ASSERT_NE(t10, nullptr);
  ASSERT_NE(t20, nullptr);
  ASSERT_NE(t30, nullptr);
  EXPECT_EQ(t10->tid, 10);
  EXPECT_EQ(t20->tid, 20);
  EXPECT_EQ(t30->tid, 30);
  EXPECT_EQ(t10->api_count, 4u);
  EXPECT_EQ(t20->api_count, 3u);
  EXPECT_EQ(t30->api_count, 3u);
  ASSERT_EQ(t20->calls.size(), 3u);
  EXPECT_EQ(t20->calls[0].start, 100);
  EXPECT_EQ(t20->calls[0].end, 150);
  // Thread 30's two calls at 300 nest: the shorter folds into the longer.
  ASSERT_EQ(t30->calls.size(), 2u);
  EXPECT_EQ(t30->calls[0].end, 320);
}

// Calls held in no order are sorted as the analysis orders them: by start,
// the longer first, equal ones in the order held; the threads by first call.
TEST(PreparedThreadsTest, CallsInNoOrderAreSortedAndTheirThreadsRenumbered) {
  std::vector<Call> reversed(kByStart.rbegin(), kByStart.rend());
  std::vector<Call> rotated = kByStart;
  std::rotate(rotated.begin(), rotated.begin() + 4, rotated.end());
  for (const std::vector<Call>* calls : {&reversed, &rotated}) {
    std::vector<Call> sorted = *calls;
    std::stable_sort(
        sorted.begin(), sorted.end(), [](const Call& a, const Call& b) {
          return a.start != b.start ? a.start < b.start : a.end > b.end;
        });
    std::vector<std::vector<TimeNs>> want;
    std::vector<int32_t> want_threads;
    for (const Call& c : sorted) {
      want.push_back({c.tid, c.start, c.end});
      if (std::find(want_threads.begin(), want_threads.end(), c.tid) ==
          want_threads.end()) {
        want_threads.push_back(c.tid);
      }
    }
    const Timeline tl = WithCalls(*calls);
    const auto p = PreparedTimeline::Build(tl, AnalysisOptions());
    ASSERT_TRUE(p.ok()) << p.status();
    EXPECT_EQ(WindowOrder(*p), want);
    EXPECT_EQ(ThreadOrder(*p), want_threads);
    for (const int32_t tid : {10, 20, 30}) {
      const ThreadView* t = p->FindThread(7, tid);
      ASSERT_NE(t, nullptr);
      EXPECT_EQ(t->tid, tid);
      EXPECT_EQ(t->api_count, tid == 10 ? 4u : 3u);
    }
  }
}

}  // namespace
}  // namespace feedprof::analysis
