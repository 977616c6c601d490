// `feedprof diff` through the real binary: exit codes 0, 1, 2, 3 (the
// --fail-if-slower gate failed) and 4 (the gate cannot decide), on Kineto
// traces written here and on the shared Nsight pair.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
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
  EXPECT_NE(r.out.find("step time +20% (1 ms -> 1.2 ms median, slower beyond "
                       "noise)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("  gate (--fail-if-slower 10): slower: "),
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
  EXPECT_NE(r.out.find("data-schema=\"feedprof.diff/2\""), std::string::npos);
  EXPECT_NE(r.out.find("step time +20% (1 ms -&gt; 1.2 ms median, slower "
                       "beyond noise)"),
            std::string::npos);
  EXPECT_NE(r.out.find("id=\"gate\" data-outcome=\"slower\" "
                       "data-threshold-percent=\"10\""),
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
  EXPECT_NE(r.out.find(R"("schema": "feedprof.diff/2")"), std::string::npos);
  EXPECT_NE(r.out.find(R"("beyond_noise": false)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(R"("alternative": "after_larger")"), std::string::npos);
  EXPECT_NE(r.out.find(R"("outcome": "pass")"), std::string::npos) << r.out;
}

// The number after `"key": ` in the JSON diff, from the first `"key"`
// after `after` ("" when absent).
std::string JsonNumberAfter(const std::string& json, const std::string& after,
                            const std::string& key) {
  const size_t from = json.find(after);
  if (from == std::string::npos) return "";
  const std::string quoted = "\"" + key + "\": ";
  const size_t at = json.find(quoted, from);
  if (at == std::string::npos) return "";
  const size_t start = at + quoted.size();
  return json.substr(start, json.find_first_of(",\n}", start) - start);
}

// 6 against 6 steps, one warm-up outlier in BEFORE (9 ms) above every
// AFTER step, AFTER 39 % slower by the median (5 ms -> 6.95 ms). BEFORE's
// outlier wins its 6 pairs and no other step does: U_before = 6, and of the
// C(12, 6) = 924 orderings 30 have U <= 6. A two-sided test says p =
// 60/924 = 0.065, within noise; the gate asks whether AFTER is slower:
// one-sided p = 30/924 = 0.0325, and it fails. The Hodges-Lehmann shift
// (median of the 36 differences after - before) is 1.945 ms; its one-sided
// 95 % lower bound is the 8th smallest difference, 1.9 ms (P(U <= 7) =
// 43/924 <= 0.05).
const std::vector<double> kWarmupBefore = {9000, 4960, 4980, 4990, 5000, 5010};
const std::vector<double> kSlowerAfter = {8000, 6900, 6920, 6940, 6950, 6960};

TEST(DiffCli, WarmupOutlierSlowerFailsTheGate) {
  const std::string before = WriteKineto("warm_before.json", kWarmupBefore);
  const std::string after = WriteKineto("warm_after.json", kSlowerAfter);
  const RunResult r = Feedprof("diff " + before + " " + after +
                               " --fail-if-slower 10 --summary");
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_NE(r.err.find("feedprof diff: --fail-if-slower 10: slower: AFTER is "
                       "slower than BEFORE by more than 10% beyond noise: "
                       "median step +39.0% (Hodges-Lehmann shift +1.95 ms, "
                       "95% lower bound +1.9 ms); one-sided Mann-Whitney U p = "
                       "0.0325 < 0.05\n"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.out.find("step time +39% (5 ms -> 6.95 ms median, slower "
                       "beyond noise)"),
            std::string::npos)
      << r.out;
  // The same figures in the JSON, exact.
  const RunResult json = Feedprof("diff " + before + " " + after +
                                  " --fail-if-slower 10 --format json");
  EXPECT_EQ(json.exit_code, 3);
  EXPECT_NEAR(std::stod(JsonNumberAfter(json.out, "\"noise\"", "p_value")),
              30.0 / 924.0, 1e-12);
  EXPECT_EQ(JsonNumberAfter(json.out, "\"shift_ns\"", "estimate"), "1945000");
  EXPECT_EQ(JsonNumberAfter(json.out, "\"shift_ns\"", "low"), "1900000");
  EXPECT_EQ(JsonNumberAfter(json.out, "\"shift_ns\"", "high"), "null");
  EXPECT_EQ(JsonNumberAfter(json.out, "\"shift_ns\"", "order"), "8");
  EXPECT_NE(json.out.find(R"("outcome": "slower")"), std::string::npos);
  // Without the gate the diff describes the change two-sided: p = 0.065,
  // within noise, and the 95 % interval [D(6), D(31)] = [-1 ms, +2 ms]
  // holds 0.
  const RunResult described =
      Feedprof("diff " + before + " " + after + " --summary");
  EXPECT_EQ(described.exit_code, 0);
  EXPECT_NE(described.out.find("within noise (two-sided Mann-Whitney U p = "
                               "0.0649 over 6 and 6 steps)"),
            std::string::npos)
      << described.out;
  EXPECT_NE(described.out.find("change: median step +39.0% (Hodges-Lehmann "
                               "shift +1.95 ms, 95% interval -1 ms to +2 ms)"),
            std::string::npos)
      << described.out;
}

TEST(DiffCli, WarmupOutlierFasterPassesTheGate) {
  // The same runs swapped: AFTER 28 % faster, one-sided p = P(U <= 30) =
  // 905/924 = 0.979; the shift -1.945 ms, lower bound D(8) = -1.98 ms.
  const std::string before = WriteKineto("fast_before.json", kSlowerAfter);
  const std::string after = WriteKineto("fast_after.json", kWarmupBefore);
  const RunResult r =
      Feedprof("diff " + before + " " + after + " --fail-if-slower 10");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.err.find("feedprof diff: --fail-if-slower 10: pass: not more "
                       "than 10% slower: median step -28.1% (Hodges-Lehmann "
                       "shift -1.95 ms, 95% lower bound -1.98 ms); one-sided "
                       "Mann-Whitney U p = 0.979\n"),
            std::string::npos)
      << r.err;
}

TEST(DiffCli, WarmupOutlierWithinNoisePasses) {
  // AFTER's steps interleave BEFORE's (median 5 ms -> 5.005 ms, +0.1 %,
  // above a 0 % threshold): U_before = 16, one-sided p = P(U <= 16) =
  // 378/924 = 0.409, not slower beyond noise.
  const std::string before = WriteKineto("wn_before.json", kWarmupBefore);
  const std::string after =
      WriteKineto("wn_after.json", {8500, 4970, 4985, 4995, 5005, 5020});
  const RunResult r =
      Feedprof("diff " + before + " " + after + " --fail-if-slower 0");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.err.find("--fail-if-slower 0: pass: the median step is more "
                       "than 0% above BEFORE's, but not slower beyond noise: "
                       "median step +0.1% (Hodges-Lehmann shift +5 µs, 95% "
                       "lower bound -30 µs); one-sided Mann-Whitney U p = "
                       "0.409, not below 0.05"),
            std::string::npos)
      << r.err;
}

TEST(DiffCli, FewStepsCannotDecide) {
  // 3 against 3 steps reach at best p = 1/20 one-sided: the gate says it
  // cannot decide and exits 4, whichever way the runs differ.
  for (const auto& [before_us, after_us] :
       {std::pair<std::vector<double>, std::vector<double>>{{1000, 1000, 1000},
                                                            {2000, 2000, 2000}},
        {{2000, 2000, 2000}, {1000, 1000, 1000}}}) {
    const std::string before = WriteKineto("few_before.json", before_us);
    const std::string after = WriteKineto("few_after.json", after_us);
    const RunResult r =
        Feedprof("diff " + before + " " + after + " --fail-if-slower 0");
    EXPECT_EQ(r.exit_code, 4) << r.err;
    EXPECT_NE(r.err.find("feedprof diff: --fail-if-slower 0: cannot_decide: "
                         "3 and 3 steps: the one-sided Mann-Whitney U test "
                         "needs at least 4 steps per run to reach p < 0.05"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("record more steps"), std::string::npos) << r.err;
  }
  // Without the gate the same runs compare as before: exit 0.
  const std::string before = WriteKineto("few_before.json", {1000, 1000});
  EXPECT_EQ(Feedprof("diff " + before + " " + before).exit_code, 0);
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
    // No steps: the gate cannot decide.
    EXPECT_EQ(r.exit_code, 4) << pct;
    EXPECT_NE(r.err.find("cannot_decide: the runs do not both have steps"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.out.find("idle by cause unchanged; GPU busy 90.1% -> 90.1%"),
              std::string::npos)
        << r.out;
  }
}

}  // namespace
