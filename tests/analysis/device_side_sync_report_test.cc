// How the report speaks of device-side serialization (work on the legacy
// default stream): not as a call that blocked the host. The top sync point
// quoted by the summary, the verdict and the next steps is host-blocking
// only; the JSON says which groups block the host; a next step names the
// legacy stream when it held work back for 1% of the window or more.
#include <gtest/gtest.h>

#include <string>

#include "feedprof/analysis.h"
#include "feedprof/report.h"
#include "tests/analysis/must_analyze.h"
#include "tests/analysis/timeline_builder.h"

namespace feedprof {
namespace {

using testing::MustAnalyze;
using testing::TimelineBuilder;
using testing::Us;

constexpr int64_t kLegacyStream = 7;
constexpr int64_t kOtherStream = 13;

void Describe(Timeline& tl, int64_t stream, StreamKind kind) {
  StreamInfo s;
  s.pid = TimelineBuilder::kPid;
  s.context = 1;
  s.stream = stream;
  s.kind = kind;
  tl.streams.push_back(s);
}

// The legacy-stream kernel launched at 5 µs waits for stream 13's kernel
// until 50 µs: held back 45 µs of a 70 µs window.
Report SerializedReport(bool with_host_sync) {
  TimelineBuilder b;
  b.Launch(0, 1, 2, 50, kOtherStream);
  b.Launch(5, 6, 50, 60, kLegacyStream);
  b.Launch(61, 62, 63, 70, kOtherStream);
  if (with_host_sync) b.Api("cudaStreamSynchronize", 62, 70);
  Describe(b.timeline(), kLegacyStream, StreamKind::kLegacyNull);
  Describe(b.timeline(), kOtherStream, StreamKind::kDefaultBlocking);
  return MustAnalyze(b.timeline());
}

bool AnyStepMentions(const Report& r, const std::string& text) {
  for (const std::string& step : r.verdict.next_steps) {
    if (step.find(text) != std::string::npos) return true;
  }
  return false;
}

TEST(DeviceSideSyncReportTest, LegacyWorkIsNeverTheTopHostSyncPoint) {
  const Report r = SerializedReport(/*with_host_sync=*/false);
  ASSERT_EQ(r.sync_points.size(), 1u);
  const SyncPoint& p = r.sync_points[0];
  EXPECT_FALSE(p.blocks_host);
  EXPECT_EQ(p.blocked_ns, Us(45));
  EXPECT_EQ(TopHostSyncPoint(r.sync_points), nullptr);

  const std::string text = WriteTextReport(r);
  EXPECT_EQ(text.find("  - sync point "), std::string::npos) << text;
  EXPECT_NE(text.find("1x held back on the GPU 45"), std::string::npos) << text;
  const std::string json = WriteJsonReport(r);
  EXPECT_NE(json.find("\"blocks_host\": false"), std::string::npos) << json;
  // 45 of 68 µs: far above the 1% that earns a next step.
  EXPECT_TRUE(AnyStepMentions(r,
                              "legacy default stream (1 operation) "
                              "waited 45"));
}

TEST(DeviceSideSyncReportTest, HostSyncComesFirstAndIsTheOneQuoted) {
  const Report r = SerializedReport(/*with_host_sync=*/true);
  ASSERT_EQ(r.sync_points.size(), 2u);
  EXPECT_TRUE(r.sync_points[0].blocks_host);
  EXPECT_FALSE(r.sync_points[1].blocks_host);
  const SyncPoint* top = TopHostSyncPoint(r.sync_points);
  ASSERT_NE(top, nullptr);
  EXPECT_EQ(top->api, "cudaStreamSynchronize");
  EXPECT_NE(WriteJsonReport(r).find("\"blocks_host\": true"),
            std::string::npos);
}

TEST(DeviceSideSyncReportTest, NoLegacyStepWithoutLegacyWork) {
  TimelineBuilder b;
  b.Launch(0, 1, 2, 50, kOtherStream);
  b.Api("cudaStreamSynchronize", 2, 50);
  const Report r = MustAnalyze(b.timeline());
  EXPECT_FALSE(AnyStepMentions(r, "legacy default stream"));
}

}  // namespace
}  // namespace feedprof
