// The multi-rank input of the trace-size benchmark (make_big_traces
// --ranks): each file one rank of one run, with its rank and world size,
// a pid of its own and its times a little later than the rank before, so
// that reading the directory merges interleaved ranks as a real run's are.
// Two files written from the shared ResNet trace must read back as ranks 0
// and 1 of 2, host pids one apart, each with the same events, the second's
// 137 µs later; without a rank, the file is the plain repeated trace.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "absl/status/statusor.h"
#include "bench/bigtrace/kineto_repeater.h"
#include "feedprof/kineto_reader.h"
#include "feedprof/trace_loader.h"
#include "tests/bench/two_process_calls.h"
#include "tests/testing/trace_test_files.h"

namespace feedprof {
namespace {

constexpr const char* kSource = FEEDPROF_SHARED_TRACES_DIR
    "/hta_ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz";

// The process that made the host side's CUDA calls.
const Process* CallingProcess(const Timeline& t) {
  if (t.api_calls.empty()) return nullptr;
  for (const Process& p : t.processes) {
    if (p.pid == t.api_calls.front().pid) return &p;
  }
  return nullptr;
}

TEST(RankInputsTest, EachFileIsARankOfOneRunStaggeredInTime) {
  if (!std::filesystem::exists(kSource)) {
    GTEST_SKIP() << kSource << " is missing (the shared real traces)";
  }
  testing::TempDir dir;
  testing::TempDir plain_dir;
  const std::string plain = plain_dir.File("plain.json");
  ASSERT_TRUE(bench::WriteRepeatedKinetoTrace(kSource, 300'000, plain).ok());
  for (int k = 0; k < 2; ++k) {
    const bench::KinetoRank rank{k, 2, k * 137};
    absl::StatusOr<bench::RepeatedTrace> made = bench::WriteRepeatedKinetoTrace(
        kSource, 300'000, dir.File("rank" + std::to_string(k) + ".json"),
        &rank);
    ASSERT_TRUE(made.ok()) << made.status();
    EXPECT_GE(made->bytes, 300'000u);
  }
  // Rank 0 of the source's own pid and times differs from the plain
  // repetition only in the world size it gives.
  std::string rank0 = testing::ReadFile(dir.File("rank0.json"));
  const std::string plain_text = testing::ReadFile(plain);
  const size_t at = rank0.find("\"world_size\": 2");
  ASSERT_NE(at, std::string::npos);
  rank0.replace(at, 15, "\"world_size\": 1");
  EXPECT_TRUE(rank0 == plain_text);

  absl::StatusOr<Timeline> one = ReadKinetoTrace(dir.File("rank0.json"));
  absl::StatusOr<Timeline> both = LoadTrace(dir.path());
  ASSERT_TRUE(one.ok()) << one.status();
  ASSERT_TRUE(both.ok()) << both.status();
  ASSERT_FALSE(one->api_calls.empty());
  EXPECT_EQ(both->api_calls.size(), 2 * one->api_calls.size());
  EXPECT_EQ(both->gpu_ops.size(), 2 * one->gpu_ops.size());
  const int32_t pid = one->api_calls.front().pid;

  const testing::TwoProcessCalls calls =
      testing::CallsOfTwoProcesses(*both, pid);
  ASSERT_TRUE(calls.only_the_two);
  EXPECT_EQ(calls.count[0], one->api_calls.size());
  EXPECT_EQ(calls.count[1], one->api_calls.size());
  EXPECT_EQ(calls.first[1], calls.first[0] + 137'000);
  for (int k = 0; k < 2; ++k) {
    bool found = false;
    for (const Process& p : both->processes) {
      if (p.pid != pid + k) continue;
      found = true;
      EXPECT_EQ(p.rank, k);
      EXPECT_EQ(p.world_size, 2);
    }
    EXPECT_TRUE(found) << "no process " << pid + k;
  }
  const Process* alone = CallingProcess(*one);
  ASSERT_NE(alone, nullptr);
  EXPECT_EQ(alone->rank, 0);
  EXPECT_EQ(alone->world_size, 2);
}

}  // namespace
}  // namespace feedprof
