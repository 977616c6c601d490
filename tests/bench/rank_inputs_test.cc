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
#include "tests/reader/trace_test_files.h"

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

  TimeNs first_of[2] = {-1, -1};
  size_t calls_of[2] = {0, 0};
  for (const ApiCall& c : both->api_calls) {
    const int p = c.pid - pid;
    ASSERT_TRUE(p == 0 || p == 1) << c.pid;
    if (first_of[p] < 0) first_of[p] = c.start;
    ++calls_of[p];
  }
  EXPECT_EQ(calls_of[0], one->api_calls.size());
  EXPECT_EQ(calls_of[1], one->api_calls.size());
  EXPECT_EQ(first_of[1], first_of[0] + 137'000);
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
