// The user's code in a Python stack: which files count as the user's, and
// the call site a report prints for a Python stack (its innermost user
// frame), checked on the paths the PyTorch profiler and the recorder write.
#include "analysis/user_code.h"

#include "analysis/call_site_text.h"
#include "gtest/gtest.h"

namespace feedprof::analysis {
namespace {

TEST(IsUserPythonFile, RelativePathsAsTheProfilerWritesThem) {
  EXPECT_TRUE(IsUserPythonFile("moca/library/profiling/profile.py"));
  EXPECT_TRUE(IsUserPythonFile("train.py"));
  EXPECT_TRUE(IsUserPythonFile("transformers/modeling_utils.py"));
  EXPECT_FALSE(IsUserPythonFile("torch/cuda/__init__.py"));
  EXPECT_FALSE(IsUserPythonFile("torchvision/transforms/functional.py"));
  EXPECT_FALSE(IsUserPythonFile("threading.py"));
  EXPECT_FALSE(IsUserPythonFile("multiprocessing/spawn.py"));
  EXPECT_FALSE(IsUserPythonFile("concurrent/futures/thread.py"));
  // A module whose name starts like a standard one is not one.
  EXPECT_TRUE(IsUserPythonFile("threadingtools/pool.py"));
  EXPECT_TRUE(IsUserPythonFile("torchmetrics/metric.py"));
}

TEST(IsUserPythonFile, AbsolutePathsAsTheRecorderWritesThem) {
  EXPECT_TRUE(IsUserPythonFile("/home/ana/project/train.py"));
  EXPECT_TRUE(IsUserPythonFile("/home/ana/python3proj/train.py"));
  EXPECT_TRUE(IsUserPythonFile(
      "/usr/lib/python3/dist-packages/transformers/trainer.py"));
  EXPECT_FALSE(
      IsUserPythonFile("/usr/lib/python3/dist-packages/torch/_tensor.py"));
  EXPECT_FALSE(IsUserPythonFile(
      "/opt/venv/lib/python3.11/site-packages/torch/nn/modules/module.py"));
  EXPECT_FALSE(IsUserPythonFile("/usr/lib/python3.11/threading.py"));
  EXPECT_FALSE(
      IsUserPythonFile("/root/.pyenv/versions/3.12.1/lib/"
                       "python3.12/multiprocessing/process.py"));
}

TEST(IsUserPythonFile, NoFileIsNoUserCode) {
  EXPECT_FALSE(IsUserPythonFile(""));
  EXPECT_FALSE(IsUserPythonFile("<string>"));
  EXPECT_FALSE(IsUserPythonFile("<frozen importlib._bootstrap>"));
}

// A stack from the Qwen TraceLens trace: the report names the profile.py
// line, not the framework's synchronize nor the C function under it.
TEST(CallSiteText, APythonStackPrintsItsInnermostUserFrame) {
  Timeline t;
  const auto frame = [&t](const char* file, uint32_t line,
                          const char* function) {
    Frame f;
    f.file = t.strings.Intern(file);
    f.line = line;
    f.function = t.strings.Intern(function);
    return f;
  };
  CallSite site;
  site.python = true;
  site.frames = {
      frame("", 0, "<built-in function _cuda_synchronize>"),
      frame("torch/cuda/__init__.py", 975, "synchronize"),
      frame("moca/library/profiling/profile.py", 34, "run_torch_profiler"),
      frame("multiprocessing/process.py", 108, "run")};
  t.call_sites.push_back(site);
  EXPECT_EQ(CallSiteText(t, 1),
            "run_torch_profiler (moca/library/profiling/profile.py:34)");
  // Without a user frame, the innermost one.
  site.frames.erase(site.frames.begin() + 2);
  t.call_sites.push_back(site);
  EXPECT_EQ(CallSiteText(t, 2), "<built-in function _cuda_synchronize>");
}

}  // namespace
}  // namespace feedprof::analysis
