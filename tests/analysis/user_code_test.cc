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

// Native modules: the program and its own libraries are the user's; the
// system's, CUDA's, Python's, PyTorch's, MPI's and profilers' are not.
TEST(UserCode, NativeModules) {
  EXPECT_TRUE(IsUserNativeModule("/opt/app/bin/server"));
  EXPECT_TRUE(IsUserNativeModule("/home/me/build/libmodel.so"));
  EXPECT_TRUE(IsUserNativeModule("saxpy-mpi-cuda"));
  EXPECT_FALSE(IsUserNativeModule(""));
  EXPECT_FALSE(IsUserNativeModule("[kernel.kallsyms]"));
  EXPECT_FALSE(IsUserNativeModule("/usr/lib/x86_64-linux-gnu/libc.so.6"));
  EXPECT_FALSE(IsUserNativeModule("/usr/local/cuda/lib64/libcudart.so.13"));
  EXPECT_FALSE(IsUserNativeModule("/opt/conda/lib/libpython3.11.so.1.0"));
  EXPECT_FALSE(IsUserNativeModule(
      "/opt/conda/lib/python3.11/site-packages/torch/lib/libtorch_cuda.so"));
  EXPECT_FALSE(IsUserNativeModule("libfabric.so.1.18.2"));
  EXPECT_FALSE(IsUserNativeModule("libmpi_nvidia.so.12.0.0"));
  EXPECT_FALSE(IsUserNativeModule("libToolsInjectionMPICH64.so"));
}

// --user-code / --not-user-code: `not_user` first, then `user`, then the
// built-in rule.
TEST(UserCode, TheRuleOverridesTheBuiltInOne) {
  UserCodeRule rule;
  rule.user = {"torch/nn/", "libmpi"};
  rule.not_user = {"transformers/", "torch/nn/functional"};
  EXPECT_TRUE(IsUserPythonFile("torch/nn/modules/linear.py", rule));
  EXPECT_FALSE(IsUserPythonFile("torch/nn/functional.py", rule));
  EXPECT_FALSE(IsUserPythonFile("transformers/models/qwen2/m.py", rule));
  EXPECT_TRUE(IsUserPythonFile("train.py", rule));
  EXPECT_FALSE(IsUserPythonFile("torch/cuda/__init__.py", rule));
  EXPECT_TRUE(IsUserNativeModule("libmpi_nvidia.so.12.0.0", rule));
  EXPECT_FALSE(IsUserNativeModule("/usr/lib/libc.so.6", rule));
  // C functions have no file: never the user's, whatever the rule.
  rule.user.push_back("<built-in");
  EXPECT_FALSE(IsUserPythonFile("<built-in function linear>", rule));
}

}  // namespace
}  // namespace feedprof::analysis
