// The feedprof command line as a user types it: every subcommand parses
// through one parser, so --help has one layout, `--flag=value` and
// `--flag value` mean the same, and an unknown flag, a missing value or a
// bad value is one line naming it, a pointer to --help, and exit code 2.
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/cli/feedprof_cli_runner.h"

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
       "feedprof analyze: --format: unknown format 'xml': use text, json or "
       "html"},
      {"analyze x --rank=-1",
       "feedprof analyze: --rank: '-1' is not a rank number (0, 1, ...)"},
      {"analyze x --from=12parsecs",
       "feedprof analyze: --from: cannot read '12parsecs' as a time"},
      {"analyze x --from 10ms --to 5ms",
       "feedprof analyze: --to must be later than --from"},
      {"analyze x --step-range=",
       "feedprof analyze: --step-range needs a value"},
      {"dump a b", "feedprof dump: unexpected argument 'b'"},
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
