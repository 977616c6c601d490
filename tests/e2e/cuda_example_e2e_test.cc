// The CUDA examples, built with nvcc and linked to the static CUDA runtime,
// run under libfeedprof.so on a machine without a GPU: the program prints
// the same output, on stdout and stderr, and exits with the same code as
// without the library. (Where a driver and GPU exist, tools/gpu_check.sh is
// the check.)
#include <gtest/gtest.h>

#include <map>
#include <string>

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
                      const std::string& tag) {
  ChildProcess child({path}, env, dir + "/" + tag);
  ExampleRun run;
  EXPECT_TRUE(child.started()) << path;
  EXPECT_TRUE(child.Wait(120'000, &run.status)) << path << " did not end";
  run.out = child.Stdout();
  run.err = child.Stderr();
  return run;
}

class CudaExampleTest : public ::testing::TestWithParam<const char*> {};

TEST_P(CudaExampleTest, SameOutputAndExitCodeUnderTheLibrary) {
  const std::string path =
      FEEDPROF_BINARY_DIR "/examples/cuda/example_" + std::string(GetParam());
  const std::string dir = MakeTempDir(std::string("cuda_") + GetParam());
  const ExampleRun plain = RunExample(path, dir, {{"LD_PRELOAD", ""}}, "plain");
  const ExampleRun recorded =
      RunExample(path, dir, RecordingEnv(dir + "/traces"), "recorded");

  ASSERT_TRUE(plain.status.exited);
  ASSERT_TRUE(recorded.status.exited);
  EXPECT_EQ(recorded.status.code, plain.status.code);
  EXPECT_EQ(recorded.out, plain.out);
  EXPECT_EQ(WithoutFeedprofLines(recorded.err),
            WithoutFeedprofLines(plain.err));
  // Without a GPU the example stops at its first CUDA call, saying why;
  // with one it runs to the end and prints its verdict line.
  if (plain.status.code != 0) {
    EXPECT_NE(plain.err.find("failed"), std::string::npos) << plain.err;
  } else {
    EXPECT_NE(plain.out.find("expected_verdict="), std::string::npos);
  }
}

INSTANTIATE_TEST_SUITE_P(Examples, CudaExampleTest,
                         ::testing::Values("launch_bound", "sync_bound",
                                           "transfer_bound", "gpu_bound",
                                           "preprocessing_bound", "io_bound",
                                           "latency_bound"));

}  // namespace
}  // namespace feedprof::e2e
