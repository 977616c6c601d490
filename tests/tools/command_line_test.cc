// The feedprof command line as a user types it: every subcommand parses
// through one parser, so --help has one layout, `--flag=value` and
// `--flag value` mean the same, and an unknown flag, a missing value or a
// bad value is one line naming it, a pointer to --help, and exit code 2.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/testing/feedprof_cli_runner.h"

namespace {

using RunResult = feedprof::testing::CliResult;

RunResult Feedprof(const std::string& args) {
  return feedprof::testing::RunFeedprofCli(args);
}

const std::vector<std::string> kCommands = {"record", "dump",   "analyze",
                                            "report", "export", "diff"};

TEST(CommandLine, EveryCommandsHelpHasTheSameLayout) {
  for (const std::string& command : kCommands) {
    const RunResult r = Feedprof(command + " --help");
    EXPECT_EQ(r.exit_code, 0) << command;
    EXPECT_TRUE(r.err.empty()) << command << ": " << r.err;
    EXPECT_EQ(r.out.rfind("usage: feedprof " + command + " ", 0), 0u) << r.out;
    EXPECT_NE(r.out.find("\nOptions:\n  -h,--help "), std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("Exit "), std::string::npos) << r.out;
    // -h is the same as --help.
    EXPECT_EQ(Feedprof(command + " -h").out, r.out) << command;
  }
  const RunResult root = Feedprof("--help");
  EXPECT_EQ(root.exit_code, 0);
  EXPECT_EQ(root.out.rfind("usage: feedprof <command> [options]", 0), 0u);
  for (const std::string& command : kCommands) {
    EXPECT_NE(root.out.find("\n  " + command + " "), std::string::npos)
        << root.out;
  }
}

TEST(CommandLine, VersionAndNoCommand) {
  const RunResult version = Feedprof("--version");
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_EQ(version.out, std::string("feedprof ") + FEEDPROF_VERSION + "\n");
  const RunResult none = Feedprof("");
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_EQ(none.err.rfind("usage: feedprof <command>", 0), 0u) << none.err;
  const RunResult unknown = Feedprof("frobnicate x");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_EQ(unknown.err.rfind("feedprof: unknown command 'frobnicate'\n", 0),
            0u)
      << unknown.err;
}

TEST(CommandLine, UnknownFlagsAreNamedWithExitTwo) {
  for (const std::string& command : kCommands) {
    const RunResult r = Feedprof(command + " --bogus x");
    EXPECT_EQ(r.exit_code, 2) << command;
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_EQ(r.err, "feedprof " + command +
                         ": unknown option '--bogus'\nRun 'feedprof " +
                         command + " --help' for the options.\n");
  }
}

TEST(CommandLine, MissingValuesAreNamedWithExitTwo) {
  const struct {
    std::string args, message;
  } cases[] = {
      {"analyze x --format", "feedprof analyze: --format needs a value"},
      {"analyze x --from", "feedprof analyze: --from needs a value"},
      {"analyze x --rank", "feedprof analyze: --rank needs a value"},
      {"record -o", "feedprof record: --output needs a value"},
      {"analyze", "feedprof analyze: PATH is required"},
      {"dump", "feedprof dump: PATH is required"},
      {"record", "feedprof record: no command to run"},
      {"record -o /tmp/x --", "feedprof record: no command to run"},
  };
  for (const auto& c : cases) {
    const RunResult r = Feedprof(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args;
    EXPECT_EQ(r.err.substr(0, r.err.find('\n')), c.message) << c.args;
  }
}

TEST(CommandLine, BadValuesAreNamedWithExitTwo) {
  const struct {
    std::string args, message;
  } cases[] = {
      {"analyze x --format xml",
       "feedprof analyze: --format: unknown format 'xml': use text, json, "
       "html or folded"},
      {"analyze x --rank=-1",
       "feedprof analyze: --rank: '-1' is not a rank number (0, 1, ...)"},
      {"analyze x --from=12parsecs",
       "feedprof analyze: --from: cannot read '12parsecs' as a time"},
      {"analyze x --from 10ms --to 5ms",
       "feedprof analyze: --to must be later than --from"},
      {"analyze x --step-range=",
       "feedprof analyze: --step-range needs a value"},
      {"dump a b", "feedprof dump: unexpected argument 'b'"},
      {"analyze x --what-if-gpu-speedup 150",
       "feedprof analyze: --what-if-gpu-speedup: '150' is not a speedup: a "
       "percentage above 0 and below 100 (20: every kernel 20% shorter)"},
      {"analyze x --what-if-gpu-speedup=0",
       "feedprof analyze: --what-if-gpu-speedup: '0' is not a speedup"},
      {"report x --what-if-gpu-speedup fast",
       "feedprof report: --what-if-gpu-speedup: 'fast' is not a speedup"},
      {"diff a b --what-if-gpu-speedup 100",
       "feedprof diff: --what-if-gpu-speedup: '100' is not a speedup"},
      {"analyze x --what-if-launch-cost 1parsec",
       "feedprof analyze: --what-if-launch-cost: '1parsec' is not a launch "
       "cost: a duration with a unit (1us, 800ns) or a multiple of the "
       "recorded launch time above 0 and at most 100 (0.5x; 1.5x asks what "
       "slower launches would cost)"},
      {"analyze x --what-if-launch-cost 101x",
       "feedprof analyze: --what-if-launch-cost: '101x' is not a launch cost"},
      {"analyze x --what-if-launch-cost=0x",
       "feedprof analyze: --what-if-launch-cost: '0x' is not a launch cost"},
      {"report x --what-if-launch-cost=-1us",
       "feedprof report: --what-if-launch-cost: '-1us' is not a launch cost"},
      {"analyze x --what-if-launch-cost",
       "feedprof analyze: --what-if-launch-cost needs a value"},
      // export shows no prediction: the what-if options are not its own.
      {"export x -o y.json --what-if-gpu-speedup 20",
       "feedprof export: unknown option '--what-if-gpu-speedup'"},
      {"record -o '' -- true", "feedprof record: --output: needs a directory"},
  };
  for (const auto& c : cases) {
    const RunResult r = Feedprof(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args;
    EXPECT_EQ(r.err.substr(0, c.message.size()), c.message)
        << c.args << ": " << r.err;
  }
}

TEST(CommandLine, EqualsAndSpaceFormsMeanTheSame) {
  // Both reach the reader (exit 1: the file is missing), neither is a
  // usage error, and both say the same thing.
  const RunResult spaced = Feedprof(
      "analyze /nonexistent.fpt --format json "
      "--from 1ms --to 2ms --rank 0");
  const RunResult joined = Feedprof(
      "analyze /nonexistent.fpt --format=json "
      "--from=1ms --to=2ms --rank=0");
  EXPECT_EQ(spaced.exit_code, 1) << spaced.err;
  EXPECT_EQ(joined.exit_code, 1) << joined.err;
  EXPECT_EQ(spaced.err, joined.err);
  // Options may come before the path too.
  EXPECT_EQ(Feedprof("analyze --format=json /nonexistent.fpt").exit_code, 1);
}

TEST(CommandLine, WhatIfValuesThatParseReachTheReader) {
  // Exit 1 (the file is missing), not 2: each value is accepted.
  for (const std::string& options :
       {std::string("--what-if"), std::string("--what-if-gpu-speedup 35"),
        std::string("--what-if-gpu-speedup=0.5"),
        std::string("--what-if-launch-cost 0.5x"),
        std::string("--what-if-launch-cost=800ns"),
        std::string("--what-if-launch-cost 1.5us"),
        std::string("--what-if-launch-cost 0ns")}) {
    const RunResult r = Feedprof("analyze /nonexistent.fpt " + options);
    EXPECT_EQ(r.exit_code, 1) << options << ": " << r.err;
  }
}

// A Kineto trace of ten steps, each launching two kernels after a host gap.
// `python`: each step inside a Python function "train.py(12): step", as a
// trace recorded with with_stack=True has it.
std::string WriteStepsTrace(const std::string& path, bool python = false) {
  std::string events;
  double ts = 1000;
  int corr = 1;
  for (int step = 0; step < 10; ++step) {
    const double start = ts;
    for (int k = 0; k < 2; ++k) {
      ts += 200;  // host work before the launch
      events +=
          "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":"
          "\"cudaLaunchKernel\",\"pid\":100,\"tid\":101,\"ts\":" +
          std::to_string(ts) +
          ",\"dur\":5,\"args\":{\"correlation\":" + std::to_string(corr) +
          "}},";
      events +=
          "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\","
          "\"pid\":0,\"tid\":7,\"ts\":" +
          std::to_string(ts + 8) +
          ",\"dur\":100,\"args\":{"
          "\"correlation\":" +
          std::to_string(corr) + ",\"device\":0,\"stream\":7}},";
      ++corr;
      ts += 120;
    }
    events +=
        "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":"
        "\"ProfilerStep#" +
        std::to_string(step) +
        "\",\"pid\":100,\"tid\":101,\"ts\":" + std::to_string(start) +
        ",\"dur\":" + std::to_string(ts - start) + "},";
    if (python) {
      events +=
          "{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":"
          "\"train.py(12): step\",\"pid\":100,\"tid\":101,\"ts\":" +
          std::to_string(start) + ",\"dur\":" + std::to_string(ts - start) +
          "},";
    }
  }
  events.pop_back();
  std::ofstream(path) << "{\"traceEvents\":[" << events << "]}";
  return path;
}

TEST(CommandLine, WhatIfTableAndParametersReachTheReport) {
  const std::string trace =
      WriteStepsTrace(::testing::TempDir() + "/cli_what_if_" +
                      std::to_string(getpid()) + ".json");
  const RunResult table = Feedprof("analyze " + trace + " --what-if --summary");
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("\nWhat-if: "), std::string::npos) << table.out;
  const RunResult plain = Feedprof("analyze " + trace + " --summary");
  EXPECT_EQ(plain.out.find("What-if"), std::string::npos) << plain.out;
  const RunResult json =
      Feedprof("analyze " + trace +
               " --json --what-if-gpu-speedup 35 --what-if-launch-cost 0.5x");
  const RunResult skipped =
      Feedprof("analyze " + trace + " --json --no-what-if");
  std::filesystem::remove(trace);
  ASSERT_EQ(skipped.exit_code, 0) << skipped.err;
  EXPECT_NE(skipped.out.find("\"unavailable_reason\": \"not computed "
                             "(--no-what-if)\""),
            std::string::npos)
      << skipped.out;
  EXPECT_EQ(skipped.out.find("Worth up to"), std::string::npos);
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const size_t what_if = json.out.find("\n  \"what_if\": {\n");
  ASSERT_NE(what_if, std::string::npos) << json.out;
  const size_t available = json.out.find("\"available\": ", what_if);
  ASSERT_NE(available, std::string::npos);
  ASSERT_EQ(json.out.compare(available + 13, 4, "true"), 0)
      << json.out.substr(what_if, 200);
  EXPECT_NE(json.out.find("\"gpu_speedup\": 0.35,", what_if), std::string::npos)
      << json.out.substr(what_if, 800);
  EXPECT_NE(json.out.find("\"launch_cost_ns\": null,", what_if),
            std::string::npos);
  EXPECT_NE(json.out.find("\"launch_cost_fraction\": 0.5,", what_if),
            std::string::npos);
}

// --format folded: one line per stack with its nanoseconds; the user-code
// options reach the analysis.
TEST(CommandLine, FoldedStacksAndTheUserCodeRule) {
  const std::string dir = ::testing::TempDir() + "/cli_folded_" +
                          std::to_string(getpid());
  const std::string stacks = WriteStepsTrace(dir + "_python.json", true);
  const std::string plain = WriteStepsTrace(dir + "_plain.json");
  const RunResult folded = Feedprof("analyze " + stacks + " --format folded");
  const RunResult none = Feedprof("analyze " + plain + " --format folded");
  const RunResult json = Feedprof("analyze " + stacks + " --json");
  const RunResult not_user =
      Feedprof("analyze " + stacks + " --json --not-user-code train.py");
  std::filesystem::remove(stacks);
  std::filesystem::remove(plain);
  ASSERT_EQ(folded.exit_code, 0) << folded.err;
  // Ten steps of 640 µs in step(); twenty 5 µs launch calls inside them.
  EXPECT_EQ(folded.out,
            "launching;step (train.py:12) 6300000\n"
            "launching;step (train.py:12);cudaLaunchKernel 100000\n");
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_NE(none.err.find("holds no stacks to fold"), std::string::npos)
      << none.err;
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_NE(json.out.find("\"user_lines\": [\n          {\n            "
                          "\"location\": \"step (train.py:12)\""),
            std::string::npos)
      << json.out;
  ASSERT_EQ(not_user.exit_code, 0) << not_user.err;
  EXPECT_NE(not_user.out.find("\"user_lines\": []"), std::string::npos)
      << not_user.out;
}

TEST(CommandLine, RecordStopsParsingAtTheCommand) {
  // The command's own flags are its own, with or without "--".
  const std::string dir =
      ::testing::TempDir() + "/cli_record_" + std::to_string(getpid());
  const RunResult r = Feedprof("record --output=" + dir +
                               " sh -c 'echo \"$0 $1\"' -o --format");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "-o --format\n");
  const RunResult with_marker =
      Feedprof("record -o " + dir + " -- sh -c 'exit 7'");
  EXPECT_EQ(with_marker.exit_code, 7) << with_marker.err;
  // Our own option names after CMD, and a "--" of CMD's, are CMD's.
  const RunResult ours =
      Feedprof("record -o " + dir + " printf '%s,' -o x -- --help");
  EXPECT_EQ(ours.exit_code, 0) << ours.err;
  EXPECT_EQ(ours.out, "-o,x,--,--help,");
  std::filesystem::remove_all(dir);
}

}  // namespace
