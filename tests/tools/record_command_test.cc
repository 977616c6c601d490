// `feedprof record`: runs the command under the library, returns its exit
// status, forwards termination signals, and rejects bad usage with 2.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>

#include "tests/testing/process_runner.h"

namespace feedprof::testing {
namespace {

const std::string kFeedprof =
    std::string(FEEDPROF_BINARY_DIR) + "/tools/feedprof";

class RecordCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = MakeTempDir("feedprof-record-test");
    ASSERT_FALSE(root_.empty());
  }
  void TearDown() override { RemoveTree(root_); }
  const std::map<std::string, std::string> env_ = {{"LD_PRELOAD", ""},
                                                   {"FEEDPROF_SESSION_DIR", ""},
                                                   {"FEEDPROF_OUTPUT_DIR", ""},
                                                   {"FEEDPROF_LIBRARY", ""}};
  std::string root_;
};

TEST_F(RecordCommandTest, ReturnsTheChildsExitCodeAndSaysWhere) {
  const std::string dir = root_ + "/run";
  // ls exits with 2 here, through exit(3): its trace file is complete.
  const ProcessResult r = RunProcess(
      {kFeedprof, "record", "-o", dir, "--", "ls", "-d", "/", "/nonexistent"},
      env_, root_);
  EXPECT_EQ(r.exit_code(), 2);
  EXPECT_EQ(r.out, "/\n");
  EXPECT_NE(r.err.find("feedprof: session written to " + dir),
            std::string::npos)
      << r.err;
  EXPECT_EQ(TraceFilesIn(dir).size(), 1u);
}

TEST_F(RecordCommandTest, ShellExitCodesAndOutputPassThrough) {
  const ProcessResult r =
      RunProcess({kFeedprof, "record", "--no-report", "-o", root_ + "/run",
                  "--", "sh", "-c", "echo hi; echo oops >&2; exit 3"},
                 env_, root_);
  EXPECT_EQ(r.exit_code(), 3);
  EXPECT_EQ(r.out, "hi\n");
  EXPECT_EQ(WithoutFeedprofLines(r.err), "oops\n");
}

TEST_F(RecordCommandTest, PrintsTheSessionsSummaryWhenTheCommandEnds) {
  // ls leaves a complete trace (it ends with exit(3), not _exit as dash).
  const std::string dir = root_ + "/run";
  const ProcessResult r = RunProcess(
      {kFeedprof, "record", "-o", dir, "--", "ls", "-d", "/", "/nonexistent"},
      env_, root_);
  EXPECT_EQ(r.exit_code(), 2);  // the command's, summary or not
  EXPECT_EQ(r.out, "/\n");      // the summary stays off the program's stdout
  const size_t written = r.err.find("feedprof: session written to " + dir);
  const size_t summary = r.err.find("feedprof analysis of " + dir);
  ASSERT_NE(written, std::string::npos) << r.err;
  ASSERT_NE(summary, std::string::npos) << r.err;
  EXPECT_LT(written, summary);
  EXPECT_NE(r.err.find("\nVerdict: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("\nNext steps:\n"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("---- details ----"), std::string::npos) << r.err;
  // The HTML report, in the session directory, said after the summary.
  const std::string html = ReadFileBytes(dir + "/report.html");
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u) << html.substr(0, 80);
  const size_t report_line =
      r.err.find("feedprof: report written to " + dir + "/report.html\n");
  ASSERT_NE(report_line, std::string::npos) << r.err;
  EXPECT_LT(summary, report_line);
  EXPECT_EQ(TraceFilesIn(dir).size(), 1u);  // report.html is not a trace

  const ProcessResult quiet =
      RunProcess({kFeedprof, "record", "--no-report", "-o", root_ + "/run2",
                  "--", "ls", "-d", "/", "/nonexistent"},
                 env_, root_);
  EXPECT_EQ(quiet.exit_code(), 2);
  EXPECT_EQ(quiet.err.find("Verdict:"), std::string::npos) << quiet.err;
  EXPECT_FALSE(std::filesystem::exists(root_ + "/run2/report.html"));
  EXPECT_NE(quiet.err.find("feedprof: session written to"), std::string::npos);
}

TEST_F(RecordCommandTest, PreloadsTheLibraryInFrontOfExistingPreloads) {
  const std::string dir = root_ + "/run";
  auto env = env_;
  env["LD_PRELOAD"] = "";
  const ProcessResult r =
      RunProcess({kFeedprof, "record", "-o", dir, "--", "sh", "-c",
                  "printf '%s|%s' \"$LD_PRELOAD\" \"$FEEDPROF_OUTPUT_DIR\""},
                 env, root_);
  EXPECT_EQ(r.exit_code(), 0);
  EXPECT_NE(r.out.find("libfeedprof.so|" + dir), std::string::npos) << r.out;
}

TEST_F(RecordCommandTest, ChildKilledBySignalGives128PlusSignal) {
  const ProcessResult r = RunProcess({kFeedprof, "record", "-o", root_ + "/run",
                                      "--", "sh", "-c", "kill -9 $$"},
                                     env_, root_);
  EXPECT_EQ(r.exit_code(), 128 + SIGKILL);
}

TEST_F(RecordCommandTest, ForwardsSigtermToTheChild) {
  RunningProcess p(
      {kFeedprof, "record", "-o", root_ + "/run", "--", "sleep", "30"}, env_,
      root_);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const auto start = std::chrono::steady_clock::now();
  ASSERT_EQ(kill(p.pid(), SIGTERM), 0);
  const ProcessResult r = p.Wait();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  EXPECT_EQ(r.exit_code(), 128 + SIGTERM) << r.err;
  EXPECT_LT(seconds, 10.0);  // not the full 30 s of sleep
}

TEST_F(RecordCommandTest, UsageErrorsExitWithTwo) {
  EXPECT_EQ(RunProcess({kFeedprof, "record"}, env_, root_).exit_code(), 2);
  EXPECT_EQ(RunProcess({kFeedprof, "record", "--"}, env_, root_).exit_code(),
            2);
  EXPECT_EQ(
      RunProcess({kFeedprof, "record", "--bogus", "--", "true"}, env_, root_)
          .exit_code(),
      2);
  EXPECT_EQ(RunProcess({kFeedprof, "record", "-o"}, env_, root_).exit_code(),
            2);
  const ProcessResult help =
      RunProcess({kFeedprof, "record", "--help"}, env_, root_);
  EXPECT_EQ(help.exit_code(), 0);
  EXPECT_NE(help.out.find("usage: feedprof record"), std::string::npos);
}

TEST_F(RecordCommandTest, MissingCommandOrLibraryIsReported) {
  const ProcessResult missing = RunProcess(
      {kFeedprof, "record", "-o", root_ + "/run", "--", "/nonexistent/cmd"},
      env_, root_);
  EXPECT_EQ(missing.exit_code(), 127);
  auto env = env_;
  env["FEEDPROF_LIBRARY"] = root_ + "/no-such-lib.so";
  const ProcessResult nolib =
      RunProcess({kFeedprof, "record", "--", "true"}, env, root_);
  EXPECT_EQ(nolib.exit_code(), 1);
  EXPECT_NE(nolib.err.find("FEEDPROF_LIBRARY"), std::string::npos);
}

}  // namespace
}  // namespace feedprof::testing
