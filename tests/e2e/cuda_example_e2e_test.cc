// The CUDA examples, built with nvcc and linked to the static CUDA runtime,
// run under libfeedprof.so on a machine without a GPU: the program prints
// the same output, on stdout and stderr, and exits with the same code as
// without the library, as itself and as its fix (--fixed). Their command
// line is read before any CUDA call, so it is checked here too: every
// example but gpu_bound offers --fixed, gpu_bound refuses it, a wrong
// argument is refused. (Where a driver and GPU exist, tools/gpu_check.sh is
// the check.)
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "tests/e2e/child_process.h"
#include "tests/e2e/e2e_paths.h"

namespace feedprof::e2e {
namespace {

struct ExampleRun {
  ExitStatus status;
  std::string out;
  std::string err;
};

ExampleRun RunExample(const std::string& path, const std::string& dir,
                      const std::map<std::string, std::string>& env,
                      const std::string& tag,
                      const std::vector<std::string>& args = {}) {
  std::vector<std::string> argv = {path};
  argv.insert(argv.end(), args.begin(), args.end());
  ChildProcess child(argv, env, dir + "/" + tag);
  ExampleRun run;
  EXPECT_TRUE(child.started()) << path;
  EXPECT_TRUE(child.Wait(120'000, &run.status)) << path << " did not end";
  run.out = child.Stdout();
  run.err = child.Stderr();
  return run;
}

class CudaExampleTest : public ::testing::TestWithParam<const char*> {
 protected:
  std::string Path() const {
    return FEEDPROF_BINARY_DIR "/examples/cuda/example_" +
           std::string(GetParam());
  }
  // gpu_bound's verdict names no host-side fix: it has no --fixed.
  bool HasFix() const { return std::string(GetParam()) != "gpu_bound"; }

  // Runs the example with `args` without and with the library: the same
  // exit code and output. Without a GPU the example stops at its first CUDA
  // call, saying why; with one it runs to the end and prints its verdict
  // line, and "variant=fixed" when it ran its fix.
  void ExpectSameRunUnderTheLibrary(const std::vector<std::string>& args,
                                    const std::string& tag) {
    const std::string dir = MakeTempDir("cuda_" + tag + "_" + GetParam());
    const ExampleRun plain =
        RunExample(Path(), dir, {{"LD_PRELOAD", ""}}, "plain", args);
    const ExampleRun recorded = RunExample(
        Path(), dir, RecordingEnv(dir + "/traces"), "recorded", args);

    ASSERT_TRUE(plain.status.exited);
    ASSERT_TRUE(recorded.status.exited);
    EXPECT_EQ(recorded.status.code, plain.status.code);
    EXPECT_EQ(recorded.out, plain.out);
    EXPECT_EQ(WithoutFeedprofLines(recorded.err),
              WithoutFeedprofLines(plain.err));
    const bool fixed =
        std::find(args.begin(), args.end(), "--fixed") != args.end();
    if (plain.status.code != 0) {
      EXPECT_EQ(plain.status.code, 1) << plain.err;
      EXPECT_NE(plain.err.find("failed"), std::string::npos) << plain.err;
    } else {
      EXPECT_NE(plain.out.find("expected_verdict=" + std::string(GetParam())),
                std::string::npos);
      EXPECT_EQ(plain.out.find("variant=fixed") != std::string::npos, fixed);
    }
  }
};

TEST_P(CudaExampleTest, SameOutputAndExitCodeUnderTheLibrary) {
  ExpectSameRunUnderTheLibrary({}, "as_is");
}

TEST_P(CudaExampleTest, FixedRunsTheSameWayUnderTheLibrary) {
  if (!HasFix()) GTEST_SKIP() << GetParam() << " has no --fixed";
  ExpectSameRunUnderTheLibrary({"2", "--fixed"}, "fixed");
}

TEST_P(CudaExampleTest, HelpSaysWhetherThereIsAFix) {
  const std::string dir = MakeTempDir(std::string("cuda_help_") + GetParam());
  const ExampleRun help = RunExample(Path(), dir, {}, "help", {"--help"});
  ASSERT_TRUE(help.status.exited);
  EXPECT_EQ(help.status.code, 0);
  const std::string usage = "usage: example_" + std::string(GetParam()) +
                            (HasFix() ? " [STEPS] [--fixed]\n" : " [STEPS]\n");
  EXPECT_EQ(help.out.rfind(usage, 0), 0u) << help.out;
  EXPECT_EQ(help.out.find("--fixed  the same work with the fix: ") !=
                std::string::npos,
            HasFix())
      << help.out;
}

TEST_P(CudaExampleTest, RefusesAWrongArgumentBeforeAnyCudaCall) {
  const std::string dir = MakeTempDir(std::string("cuda_args_") + GetParam());
  const ExampleRun wrong = RunExample(Path(), dir, {}, "wrong", {"--fast"});
  ASSERT_TRUE(wrong.status.exited);
  EXPECT_EQ(wrong.status.code, 2);
  EXPECT_EQ(wrong.err.rfind("example_" + std::string(GetParam()) +
                                ": unknown argument --fast\n",
                            0),
            0u)
      << wrong.err;
  EXPECT_EQ(wrong.out, "");
  if (!HasFix()) {
    const ExampleRun fixed = RunExample(Path(), dir, {}, "fixed", {"--fixed"});
    ASSERT_TRUE(fixed.status.exited);
    EXPECT_EQ(fixed.status.code, 2);
    EXPECT_NE(fixed.err.find("no --fixed variant: the gpu_bound verdict names "
                             "no host-side fix"),
              std::string::npos)
        << fixed.err;
  }
}

INSTANTIATE_TEST_SUITE_P(Examples, CudaExampleTest,
                         ::testing::Values("launch_bound", "sync_bound",
                                           "transfer_bound", "gpu_bound",
                                           "preprocessing_bound", "io_bound",
                                           "latency_bound"));

}  // namespace
}  // namespace feedprof::e2e
