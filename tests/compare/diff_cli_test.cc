// `feedprof diff` through the real binary: exit codes 0, 1, 2 and 3 (the
// --fail-if-slower gate), on Kineto traces written here and on the shared
// Nsight pair.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "tests/testing/feedprof_cli_runner.h"

namespace {

using RunResult = feedprof::testing::CliResult;

RunResult Feedprof(const std::string& args) {
  return feedprof::testing::RunFeedprofCli(args);
}

// A Kineto trace of steps of the given lengths (µs): each step launches
// one kernel that runs until 20 µs before the step ends.
std::string WriteKineto(const std::string& name,
                        const std::vector<double>& steps_us) {
  std::string events;
  double t = 1000;
  int corr = 1;
  for (size_t i = 0; i < steps_us.size(); ++i, ++corr) {
    const double d = steps_us[i];
    events += absl::StrFormat(
        R"({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d", )"
        R"("pid": 10, "tid": 10, "ts": %.3f, "dur": %.3f},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 10, )"
        R"("tid": 10, "ts": %.3f, "dur": 5, "args": {"correlation": %d}},
{"ph": "X", "cat": "kernel", "name": "step_kernel", "pid": 0, "tid": 7, )"
        R"("ts": %.3f, "dur": %.3f, "args": {"device": 0, "stream": 7, )"
        R"("correlation": %d}},
)",
        i, t, d, t + 1, corr, t + 10, d - 30, corr);
    t += d;
  }
  events.resize(events.size() - 2);  // the last ",\n"
  const std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path) << R"({"schemaVersion": 1, "traceEvents": [)" << events
                      << "]}\n";
  return path;
}

TEST(DiffCli, SlowdownBeyondNoiseFailsTheGate) {
  const std::string before = WriteKineto(
      "diff_before.json", {1000, 1010, 990, 1005, 995, 1002, 998, 1008});
  const std::string after = WriteKineto(
      "diff_after.json", {1200, 1210, 1190, 1205, 1195, 1202, 1198, 1208});
  RunResult r = Feedprof("diff " + before + " " + after +
                         " --fail-if-slower 10 --summary");
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_NE(r.out.find("step time +20% (1 ms -> 1.2 ms median, beyond "
                       "noise)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.err.find("AFTER is slower than BEFORE by more than 10%"),
            std::string::npos)
      << r.err;
  // Below the threshold, or faster: 0.
  EXPECT_EQ(Feedprof("diff " + before + " " + after + " --fail-if-slower 25")
                .exit_code,
            0);
  EXPECT_EQ(Feedprof("diff " + after + " " + before + " --fail-if-slower 0")
                .exit_code,
            0);
}

TEST(DiffCli, HtmlFormatWritesThePageAndKeepsTheGate) {
  const std::string before = WriteKineto(
      "html_before.json", {1000, 1010, 990, 1005, 995, 1002, 998, 1008});
  const std::string after = WriteKineto(
      "html_after.json", {1200, 1210, 1190, 1205, 1195, 1202, 1198, 1208});
  const RunResult r = Feedprof("diff " + before + " " + after +
                               " --format html --fail-if-slower 10");
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_EQ(r.out.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(r.out.find("data-schema=\"feedprof.diff/1\""), std::string::npos);
  EXPECT_NE(r.out.find("step time +20% (1 ms -&gt; 1.2 ms median, beyond "
                       "noise)"),
            std::string::npos);
  EXPECT_NE(r.out.find("data-plot=\"after-device-0\""), std::string::npos);
}

TEST(DiffCli, SlowdownWithinNoisePasses) {
  // AFTER's steps interleave BEFORE's: the median is 1 µs higher, but the
  // rank test sees no change.
  const std::string before = WriteKineto(
      "noise_before.json", {1000, 1040, 960, 1020, 980, 1030, 970, 1010});
  const std::string after = WriteKineto(
      "noise_after.json", {1001, 1041, 961, 1021, 981, 1031, 971, 1011});
  const RunResult r = Feedprof("diff " + before + " " + after +
                               " --fail-if-slower 0 --format json");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(R"("schema": "feedprof.diff/1")"), std::string::npos);
  EXPECT_NE(r.out.find(R"("beyond_noise": false)"), std::string::npos) << r.out;
}

TEST(DiffCli, FewStepsCannotFailTheGate) {
  const std::string before = WriteKineto("few_before.json", {1000, 1000});
  const std::string after = WriteKineto("few_after.json", {2000, 2000});
  const RunResult r =
      Feedprof("diff " + before + " " + after + " --fail-if-slower 0");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.err.find("significance cannot be judged: 2 and 2 steps"),
            std::string::npos)
      << r.err;
}

TEST(DiffCli, UsageAndInputErrors) {
  const std::string before = WriteKineto("err_before.json", {1000, 1000});
  EXPECT_EQ(Feedprof("diff " + before).exit_code, 2);
  EXPECT_EQ(
      Feedprof("diff " + before + " " + before + " --steps 3:1").exit_code, 2);
  EXPECT_EQ(
      Feedprof("diff " + before + " " + before + " --format pdf").exit_code, 2);
  EXPECT_EQ(Feedprof("diff " + before + " " + before + " --fail-if-slower x")
                .exit_code,
            2);
  const RunResult missing =
      Feedprof("diff " + before + " /nonexistent/after.json");
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("/nonexistent/after.json"), std::string::npos);
  // Steps count from 1, as export --steps: 0 is a usage error, a step the
  // runs do not have an input error naming their count.
  EXPECT_EQ(
      Feedprof("diff " + before + " " + before + " --steps 0:5").exit_code, 2);
  const RunResult steps =
      Feedprof("diff " + before + " " + before + " --steps 1:5");
  EXPECT_EQ(steps.exit_code, 1);
  EXPECT_NE(steps.err.find("the trace has 2 steps"), std::string::npos)
      << steps.err;
}

TEST(DiffCli, RealRunAgainstItselfIsUnchanged) {
  const std::string path = std::string(FEEDPROF_SHARED_TRACES_DIR) +
                           "/nsys_ai/mfu_2gpu_before.sqlite";
  if (!std::filesystem::exists(path)) {
    GTEST_SKIP() << "shared trace " << path << " not found";
  }
  for (const char* pct : {"0", "5", "100"}) {
    const RunResult r = Feedprof("diff " + path + " " + path +
                                 " --summary --fail-if-slower " + pct);
    EXPECT_EQ(r.exit_code, 0) << pct;
    EXPECT_NE(r.out.find("idle by cause unchanged; GPU busy 90.1% -> 90.1%"),
              std::string::npos)
        << r.out;
  }
}

}  // namespace
