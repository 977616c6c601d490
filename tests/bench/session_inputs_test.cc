// The session input of the trace-size benchmark (make_big_traces
// --session): each file a process of its own, with its own pid and start
// time, so that reading the directory merges interleaved processes as a
// real session's are. Two files written from the shared ResNet trace must
// read back as two processes, pids one apart, each with the same events,
// the second's 137 µs later.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "absl/status/statusor.h"
#include "bench/bigtrace/feedprof_trace_repeater.h"
#include "feedprof/trace_reader.h"
#include "tests/bench/two_process_calls.h"
#include "tests/testing/trace_test_files.h"

namespace feedprof {
namespace {

constexpr const char* kSource = FEEDPROF_SHARED_TRACES_DIR
    "/hta_ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz";

TEST(SessionInputsTest, EachFileIsAProcessOfItsOwnStaggeredInTime) {
  if (!std::filesystem::exists(kSource)) {
    GTEST_SKIP() << kSource << " is missing (the shared real traces)";
  }
  testing::TempDir dir;
  const int64_t stagger_ns = 137'000;
  for (int k = 0; k < 2; ++k) {
    const bench::SessionProcess process{k, k * stagger_ns};
    absl::StatusOr<bench::RepeatedTrace> made =
        bench::WriteRepeatedFeedprofTrace(
            kSource, 300'000, dir.File("p" + std::to_string(k + 1) + ".fpt"),
            process);
    ASSERT_TRUE(made.ok()) << made.status();
    EXPECT_GE(made->bytes, 300'000u);
    EXPECT_GE(made->repetitions, 1u);
  }
  absl::StatusOr<Timeline> one = ReadFeedprofTrace(dir.File("p1.fpt"));
  absl::StatusOr<Timeline> both = ReadFeedprofTrace(dir.path());
  ASSERT_TRUE(one.ok()) << one.status();
  ASSERT_TRUE(both.ok()) << both.status();
  ASSERT_EQ(one->processes.size(), 1u);
  ASSERT_EQ(both->processes.size(), 2u);
  const int32_t pid = one->processes[0].pid;
  EXPECT_EQ(both->processes[0].pid, pid);
  EXPECT_EQ(both->processes[1].pid, pid + 1);
  EXPECT_EQ(both->api_calls.size(), 2 * one->api_calls.size());
  EXPECT_EQ(both->gpu_ops.size(), 2 * one->gpu_ops.size());
  ASSERT_FALSE(one->api_calls.empty());

  // The second process's calls are the first's, 137 µs later.
  const testing::TwoProcessCalls calls =
      testing::CallsOfTwoProcesses(*both, pid);
  ASSERT_TRUE(calls.only_the_two);
  EXPECT_EQ(calls.first[0], one->api_calls.front().start);
  EXPECT_EQ(calls.first[1], calls.first[0] + stagger_ns);
  EXPECT_EQ(calls.count[0], one->api_calls.size());
  EXPECT_EQ(calls.count[1], one->api_calls.size());
  // Merged in time order, the two processes interleave.
  size_t switches = 0;
  for (size_t i = 1; i < both->api_calls.size(); ++i) {
    switches += both->api_calls[i].pid != both->api_calls[i - 1].pid;
  }
  EXPECT_GT(switches, one->api_calls.size() / 10);
}

}  // namespace
}  // namespace feedprof
