// `feedprof doctor` run for real on this machine, as a user runs it: it
// exits 0 or 1, prints every check in text and JSON (which parses, with the
// same checks and counts), finishes in about a second, and answers usage
// errors with exit code 2.
#include <chrono>
#include <set>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/testing/feedprof_cli_runner.h"
#include "tests/testing/json_test_parser.h"

namespace feedprof::testing {
namespace {

// The checks every machine gets, GPU or not.
const std::vector<std::string> kMachineChecks = {"gpus",
                                                 "process_numa",
                                                 "cpu_frequency",
                                                 "cpu_smt",
                                                 "cpu_online",
                                                 "cgroup_cpu",
                                                 "cpu_load",
                                                 "cpu_iowait",
                                                 "mem_available",
                                                 "mem_dirty",
                                                 "mem_swap",
                                                 "mem_thp",
                                                 "mem_locked_limit",
                                                 "cgroup_memory",
                                                 "data_filesystem",
                                                 "data_device",
                                                 "data_read_latency",
                                                 "nvidia_driver",
                                                 "nvml"};

std::string SourceDir() { return FEEDPROF_SOURCE_DIR; }

TEST(DoctorCli, TextPrintsEveryCheckOnOneLineEach) {
  const auto start = std::chrono::steady_clock::now();
  const CliResult r = RunFeedprofCli("doctor --data " + SourceDir() + "/docs");
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.exit_code << "\n"
                                                    << r.err;
  EXPECT_LT(seconds, 3.0) << "doctor should take about a second";
  EXPECT_EQ(r.err, "");
  for (const std::string& check : kMachineChecks) {
    bool found = false;
    for (const char* status : {"ok", "warn", "fail", "unknown"}) {
      const std::string prefix =
          std::string(status) +
          std::string(8 - std::string(status).size(), ' ') + check + " ";
      found |= r.out.find("\n  " + prefix) != std::string::npos;
    }
    EXPECT_TRUE(found) << "no line for " << check << " in\n" << r.out;
  }
  EXPECT_NE(r.out.find("--data " + SourceDir() + "/docs: "), std::string::npos);
  EXPECT_NE(
      r.out.find(r.exit_code == 0 ? "; exit code 0\n" : "; exit code 1\n"),
      std::string::npos);
}

TEST(DoctorCli, JsonParsesAndAgreesWithTheExitCode) {
  const CliResult r =
      RunFeedprofCli("doctor --format json --data " + SourceDir() + "/docs");
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err;
  const std::optional<JsonValue> doc = ParseJson(r.out);
  ASSERT_TRUE(doc.has_value()) << r.out;
  EXPECT_EQ(doc->Str("schema"), "feedprof.doctor/1");
  EXPECT_EQ(doc->Int("exit_code"), r.exit_code);
  EXPECT_LT(doc->Double("elapsed_s"), 3.0);
  const JsonValue* checks = doc->Find("checks");
  ASSERT_NE(checks, nullptr);
  std::set<std::string> ids;
  uint64_t fails = 0;
  for (const JsonValue& c : checks->items) {
    ids.insert(c.Str("check"));
    const std::string status = c.Str("status");
    EXPECT_TRUE(status == "ok" || status == "warn" || status == "fail" ||
                status == "unknown")
        << status;
    fails += status == "fail";
    EXPECT_FALSE(c.Str("value").empty()) << c.Str("check");
    EXPECT_FALSE(c.Str("meaning").empty()) << c.Str("check");
  }
  for (const std::string& check : kMachineChecks) {
    EXPECT_EQ(ids.count(check), 1u) << check;
  }
  const JsonValue* summary = doc->Find("summary");
  ASSERT_NE(summary, nullptr);
  EXPECT_EQ(summary->Uint("ok") + summary->Uint("warn") +
                summary->Uint("fail") + summary->Uint("unknown"),
            checks->items.size());
  EXPECT_EQ(summary->Uint("fail"), fails);
  EXPECT_EQ(r.exit_code, fails > 0 ? 1 : 0);
  // GPUs found: each has its link and NUMA lines.
  for (const JsonValue& c : checks->items) {
    if (c.Str("check") != "gpus" || c.Str("status") != "ok") continue;
    EXPECT_EQ(ids.count("gpu_pcie_link"), 1u);
    EXPECT_EQ(ids.count("gpu_numa"), 1u);
  }
}

TEST(DoctorCli, OwnProcessIsChecked) {
  const CliResult r = RunFeedprofCli("doctor --pid 1 --format json");
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err;
  EXPECT_NE(r.out.find("\"subject\": \"process 1"), std::string::npos) << r.out;
}

TEST(DoctorCli, HelpHasTheSharedLayoutAndTheRootListsDoctor) {
  const CliResult r = RunFeedprofCli("doctor --help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out.rfind("usage: feedprof doctor [--pid PID] [--data PATH] "
                        "[--format text|json]\n",
                        0),
            0u)
      << r.out;
  EXPECT_NE(r.out.find("\nOptions:\n  -h,--help "), std::string::npos);
  EXPECT_NE(r.out.find("Exit codes: 0 no check failed, 1 a check failed, 2 "
                       "usage error."),
            std::string::npos);
  EXPECT_NE(RunFeedprofCli("--help").out.find("\n  doctor "),
            std::string::npos);
}

TEST(DoctorCli, UsageErrorsExitTwo) {
  for (const char* args :
       {"doctor --format xml", "doctor --pid 0", "doctor --pid abc",
        "doctor --pid 2147483646", "doctor --frobnicate", "doctor extra"}) {
    const CliResult r = RunFeedprofCli(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.err;
    EXPECT_NE(r.err.find("Run 'feedprof doctor --help'"), std::string::npos)
        << args << "\n"
        << r.err;
  }
  const CliResult missing = RunFeedprofCli("doctor --pid 2147483646");
  EXPECT_NE(missing.err.find("no such process"), std::string::npos);
}

}  // namespace
}  // namespace feedprof::testing
