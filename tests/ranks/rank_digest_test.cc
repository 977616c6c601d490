// Rank digests: a job's ranks digested one by one (or a trace of several
// ranks at once) give the same multi-rank report as the ranks' events —
// ranks table, collectives, the rank waited for, the job's verdict — and
// a damaged or foreign file gets a clear error.
#include "feedprof/rank_digest.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "feedprof/analysis.h"
#include "feedprof/report.h"
#include "feedprof/trace_loader.h"
#include "tests/analysis/must_analyze.h"
#include "tests/ranks/rank_run_builder.h"

namespace feedprof {
namespace {

using testing::FourRanksOneLate;
using testing::MustAnalyze;

class RankDigestTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::path(::testing::TempDir()) /
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string Path(const std::string& name) const {
    return (dir_ / name).string();
  }
  std::filesystem::path dir_;
};

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string bytes(std::filesystem::file_size(path), '\0');
  in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return bytes;
}

// What a report from digests must share with the report from events.
void ExpectSameMultiRankReport(const Report& digests, const Report& events) {
  ASSERT_EQ(digests.ranks.size(), events.ranks.size());
  for (size_t i = 0; i < events.ranks.size(); ++i) {
    SCOPED_TRACE(i);
    const RankReport& d = digests.ranks[i];
    const RankReport& e = events.ranks[i];
    EXPECT_EQ(d.rank, e.rank);
    EXPECT_EQ(d.pids, e.pids);
    EXPECT_EQ(d.span_ns, e.span_ns);
    EXPECT_EQ(d.busy_ns, e.busy_ns);
    EXPECT_EQ(d.median_step_ns, e.median_step_ns);
    EXPECT_EQ(d.communication_ns, e.communication_ns);
    EXPECT_EQ(d.collectives, e.collectives);
    EXPECT_EQ(d.collective_wait_ns, e.collective_wait_ns);
    EXPECT_EQ(d.arrived_last, e.arrived_last);
    EXPECT_EQ(d.caused_wait_ns, e.caused_wait_ns);
    EXPECT_EQ(d.clock_offset_ns, e.clock_offset_ns);
    EXPECT_EQ(d.straggler, e.straggler);
    EXPECT_EQ(d.slowest, e.slowest);
    EXPECT_EQ(d.verdict, e.verdict);
  }
  EXPECT_EQ(digests.collectives.matched, events.collectives.matched);
  EXPECT_EQ(digests.collectives.unaligned, events.collectives.unaligned);
  EXPECT_EQ(digests.collectives.wait_ns, events.collectives.wait_ns);
  EXPECT_EQ(digests.collectives.median_end_spread_ns,
            events.collectives.median_end_spread_ns);
  EXPECT_EQ(digests.straggler.kind, events.straggler.kind);
  EXPECT_EQ(digests.straggler.ranks, events.straggler.ranks);
  EXPECT_EQ(digests.straggler.pids, events.straggler.pids);
  EXPECT_EQ(digests.straggler.caused_wait_ns, events.straggler.caused_wait_ns);
  EXPECT_EQ(digests.straggler.cause, events.straggler.cause);
  EXPECT_EQ(digests.straggler.explanation, events.straggler.explanation);
  EXPECT_EQ(digests.straggler.steps.size(), events.straggler.steps.size());
  EXPECT_EQ(digests.verdict.basis, events.verdict.basis);
  if (events.verdict.basis == VerdictBasis::kLateRank) {
    EXPECT_EQ(digests.verdict.primary, events.verdict.primary);
  }
}

TEST_F(RankDigestTest, RanksDigestedOneByOneGiveTheReportOfTheirEvents) {
  const Timeline run = FourRanksOneLate(3);
  for (int rank = 0; rank < 4; ++rank) {
    AnalysisOptions one;
    one.rank = rank;
    absl::StatusOr<DigestStats> stats = WriteRankDigest(
        run, one, std::nullopt, Path("rank" + std::to_string(rank)));
    ASSERT_TRUE(stats.ok()) << stats.status();
    EXPECT_EQ(stats->ranks, 1u);
    EXPECT_EQ(stats->collectives, 6u);
  }
  ASSERT_TRUE(IsRankDigestInput(dir_.string()));
  absl::StatusOr<Report> from_digests = AnalyzeRankDigests(dir_.string());
  ASSERT_TRUE(from_digests.ok()) << from_digests.status();
  EXPECT_EQ(from_digests->rank_digests, 4u);
  const Report from_events = MustAnalyze(run);
  ExpectSameMultiRankReport(*from_digests, from_events);
  EXPECT_EQ(from_digests->straggler.ranks, std::vector<int32_t>{3});
  EXPECT_EQ(from_digests->verdict.primary, VerdictClass::kPreprocessingBound);
  EXPECT_FALSE(from_digests->what_if.available);
  // Every renderer draws it.
  const std::string text = WriteTextReport(*from_digests, {});
  EXPECT_NE(text.find("(4 rank digests of feedprof traces)"), std::string::npos)
      << text;
  EXPECT_NE(text.find("<- waited for"), std::string::npos) << text;
  EXPECT_FALSE(WriteJsonReport(*from_digests).empty());
  EXPECT_NE(WriteHtmlReport(*from_digests).find("data-straggler=\"true\""),
            std::string::npos);
}

TEST_F(RankDigestTest, ATraceOfAllRanksDigestsAtOnce) {
  const Timeline run = FourRanksOneLate(1);
  absl::StatusOr<DigestStats> stats =
      WriteRankDigest(run, {}, std::nullopt, Path("all.digest"));
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_EQ(stats->ranks, 4u);
  absl::StatusOr<Report> from_digest = AnalyzeRankDigests(Path("all.digest"));
  ASSERT_TRUE(from_digest.ok()) << from_digest.status();
  ExpectSameMultiRankReport(*from_digest, MustAnalyze(run));
}

TEST_F(RankDigestTest, TheSharedTwoGpuNsightPairDigestsToTheSameReport) {
  const std::string dir = std::string(FEEDPROF_SHARED_TRACES_DIR) + "/nsys_ai";
  if (!std::filesystem::exists(dir + "/mfu_2gpu_before.sqlite")) {
    GTEST_SKIP() << "shared trace " << dir << " not found";
  }
  for (const char* name : {"mfu_2gpu_before.sqlite", "mfu_2gpu_after.sqlite"}) {
    SCOPED_TRACE(name);
    absl::StatusOr<Timeline> t = LoadTrace(dir + "/" + name);
    ASSERT_TRUE(t.ok()) << t.status();
    const std::string out = Path(std::string(name) + ".digest");
    absl::StatusOr<DigestStats> stats =
        WriteRankDigest(*t, {}, std::nullopt, out);
    ASSERT_TRUE(stats.ok()) << stats.status();
    // At most 5 % of the trace's size (here about 0.2 %).
    EXPECT_LT(stats->bytes, std::filesystem::file_size(dir + "/" + name) / 20);
    absl::StatusOr<Report> from_digest = AnalyzeRankDigests(out);
    ASSERT_TRUE(from_digest.ok()) << from_digest.status();
    ExpectSameMultiRankReport(*from_digest, MustAnalyze(*t));
  }
}

TEST_F(RankDigestTest, AsRankNamesTheRankOfATraceWithoutOne) {
  testing::TimelineBuilder b;
  b.Launch(0, 1, 0, 100);
  ASSERT_TRUE(WriteRankDigest(b.timeline(), {}, 5, Path("five")).ok());
  absl::StatusOr<Report> r = AnalyzeRankDigests(Path("five"));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->ranks.empty());  // one rank: no ranks table
  // Several processes cannot take one rank.
  const absl::StatusOr<DigestStats> two =
      WriteRankDigest(FourRanksOneLate(0), {}, 5, Path("two"));
  ASSERT_FALSE(two.ok());
  EXPECT_NE(two.status().message().find("--as-rank"), std::string::npos);
}

TEST_F(RankDigestTest, DamagedAndForeignFilesGetClearErrors) {
  ASSERT_TRUE(
      WriteRankDigest(FourRanksOneLate(3), {}, std::nullopt, Path("good"))
          .ok());
  // Commands that need a trace say what a digest is for.
  const absl::StatusOr<Timeline> as_trace = LoadTrace(Path("good"));
  ASSERT_FALSE(as_trace.ok());
  EXPECT_NE(as_trace.status().message().find(
                "is a rank digest, not a trace: 'feedprof analyze' and "
                "'feedprof report' read digests"),
            std::string::npos)
      << as_trace.status();
  const std::string bytes = ReadFile(Path("good"));
  {
    std::ofstream out(Path("cut"), std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size() / 2));
  }
  absl::StatusOr<Report> cut = AnalyzeRankDigests(Path("cut"));
  ASSERT_FALSE(cut.ok());
  EXPECT_NE(cut.status().message().find("damaged or cut short"),
            std::string::npos)
      << cut.status();
  {
    std::ofstream out(Path("trace.json"));
    out << "{\"traceEvents\": []}";
  }
  EXPECT_FALSE(IsRankDigestInput(Path("trace.json")));
  absl::StatusOr<Report> foreign = AnalyzeRankDigests(Path("trace.json"));
  ASSERT_FALSE(foreign.ok());
  EXPECT_NE(foreign.status().message().find("no rank digest here"),
            std::string::npos);
  // No GPU work: nothing to digest, said so.
  Timeline empty;
  empty.source_path = "empty.json";
  const absl::StatusOr<DigestStats> none =
      WriteRankDigest(empty, {}, std::nullopt, Path("none"));
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("no GPU work to digest"),
            std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(Path("none")));
}

}  // namespace
}  // namespace feedprof
