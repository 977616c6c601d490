// libfeedprof.so in a real process on a machine without a GPU: the CUPTI
// start fails the way it fails on a CPU-only host, prints its one line, and
// the program's output and exit code stay the same.
#include <dlfcn.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "feedprof/analysis.h"
#include "feedprof/trace_loader.h"

extern char** environ;

namespace {

struct RunResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Runs the program with `extra_env`; `inspect`, when given, sees the
// session directory before it is removed.
RunResult RunProgram(
    std::vector<std::string> argv_strings,
    const std::vector<std::string>& extra_env,
    const std::function<void(const std::string&)>& inspect = nullptr) {
  const std::string dir =
      ::testing::TempDir() + "/cupti_injection_" + std::to_string(getpid());
  std::filesystem::create_directories(dir);
  const std::string out_path = dir + "/out.txt";
  const std::string err_path = dir + "/err.txt";
  std::vector<std::string> env;
  // The test's environment, less FEEDPROF_* and what `extra_env` sets.
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry(*e);
    const std::string name = entry.substr(0, entry.find('='));
    bool replaced = name.rfind("FEEDPROF_", 0) == 0;
    for (const auto& x : extra_env) {
      replaced |= x.substr(0, x.find('=')) == name;
    }
    if (!replaced) env.push_back(entry);
  }
  env.push_back("FEEDPROF_OUTPUT_DIR=" + dir + "/traces");
  for (const auto& e : extra_env) env.push_back(e);
  std::vector<char*> envp;
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<char*> argv;
  for (auto& a : argv_strings) argv.push_back(a.data());
  argv.push_back(nullptr);
  const std::string program = argv_strings[0];
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0600);
  pid_t pid = 0;
  RunResult result;
  if (posix_spawnp(&pid, program.c_str(), &actions, nullptr, argv.data(),
                   envp.data()) != 0) {
    return result;
  }
  posix_spawn_file_actions_destroy(&actions);
  int status = 0;
  waitpid(pid, &status, 0);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.out = ReadFile(out_path);
  result.err = ReadFile(err_path);
  if (inspect) inspect(dir + "/traces");
  std::filesystem::remove_all(dir);
  return result;
}

RunResult RunTarget(const std::vector<std::string>& extra_env) {
  return RunProgram({FEEDPROF_INJECTION_TARGET}, extra_env);
}

std::vector<std::string> LinesMentioning(const std::string& text,
                                         const std::string& word) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.find(word) != std::string::npos) lines.push_back(line);
  }
  return lines;
}

bool DriverPresent() {
  void* h = dlopen("libcuda.so.1", RTLD_LAZY);
  if (h != nullptr) dlclose(h);
  return h != nullptr;
}

const char kExpectedOutput[] = "injection entry found\nprogram output\n";

TEST(InjectionTest, NoDriverLeavesOutputAndExitCodeUnchanged) {
  if (DriverPresent()) GTEST_SKIP() << "a CUDA driver is installed here";
  const RunResult plain = RunTarget({});  // baseline without the library
  EXPECT_EQ(plain.exit_code, 3);
  EXPECT_EQ(plain.out, "injection entry absent\nprogram output\n");

  const RunResult r =
      RunTarget({std::string("LD_PRELOAD=") + FEEDPROF_LIBRARY_PATH});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.out, kExpectedOutput);
  const auto lines = LinesMentioning(r.err, "CUPTI");
  ASSERT_EQ(lines.size(), 1u) << r.err;
  EXPECT_EQ(lines[0].rfind("feedprof: ", 0), 0u) << lines[0];
  EXPECT_NE(lines[0].find("host-only"), std::string::npos) << lines[0];
}

TEST(InjectionTest, MissingLibcuptiLeavesOutputAndExitCodeUnchanged) {
  const RunResult r =
      RunTarget({std::string("LD_PRELOAD=") + FEEDPROF_LIBRARY_PATH,
                 "FEEDPROF_CUPTI_PATH=/nonexistent/libcupti.so"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.out, kExpectedOutput);
  const auto lines = LinesMentioning(r.err, "FEEDPROF_CUPTI_PATH");
  ASSERT_EQ(lines.size(), 1u) << r.err;
  EXPECT_EQ(lines[0].rfind("feedprof: ", 0), 0u) << lines[0];
}

// The outcome is in the trace too, for 'feedprof analyze' to quote.
TEST(InjectionTest, MissingLibcuptiIsRecordedInTheTrace) {
  feedprof::Timeline timeline;
  const RunResult r = RunProgram(
      {FEEDPROF_INJECTION_TARGET},
      {std::string("LD_PRELOAD=") + FEEDPROF_LIBRARY_PATH,
       "FEEDPROF_CUPTI_PATH=/nonexistent/libcupti.so"},
      [&](const std::string& traces) {
        absl::StatusOr<feedprof::Timeline> t = feedprof::LoadTrace(traces);
        ASSERT_TRUE(t.ok()) << t.status();
        timeline = *std::move(t);
      });
  EXPECT_EQ(r.exit_code, 3);
  ASSERT_EQ(timeline.processes.size(), 1u);
  const feedprof::Process& p = timeline.processes[0];
  EXPECT_EQ(p.gpu_collection, feedprof::GpuCollectionState::kOff);
  EXPECT_NE(p.gpu_collection_detail.find("/nonexistent/libcupti.so"),
            std::string::npos)
      << p.gpu_collection_detail;
  // The printed line and the recorded detail are the same words.
  const auto lines = LinesMentioning(r.err, "FEEDPROF_CUPTI_PATH");
  ASSERT_EQ(lines.size(), 1u) << r.err;
  EXPECT_EQ(lines[0], "feedprof: " + p.gpu_collection_detail);

  absl::StatusOr<feedprof::Report> report = feedprof::Analyze(timeline, {});
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_TRUE(report->no_gpu_activity.has_value());
  const bool gpu_machine = !timeline.platform.nvidia_pci_bus_ids.empty() ||
                           !timeline.platform.nvidia_driver_version.empty();
  EXPECT_TRUE(timeline.platform.nvidia_probed);
  EXPECT_EQ(report->no_gpu_activity->cause,
            gpu_machine ? feedprof::NoGpuCause::kCollectionOff
                        : feedprof::NoGpuCause::kNoGpuOnMachine);
}

TEST(InjectionTest, AnotherToolsCudaInjectionIsRecordedInTheTrace) {
  // The program the user started (it makes the session) is always kept.
  feedprof::Timeline timeline;
  const RunResult r = RunProgram(
      {"/bin/sleep", "0.1"},
      {std::string("LD_PRELOAD=") + FEEDPROF_LIBRARY_PATH,
       "CUDA_INJECTION64_PATH=/opt/other/libtool.so"},
      [&](const std::string& traces) {
        absl::StatusOr<feedprof::Timeline> t = feedprof::LoadTrace(traces);
        ASSERT_TRUE(t.ok()) << t.status();
        timeline = *std::move(t);
      });
  EXPECT_EQ(r.exit_code, 0);
  ASSERT_EQ(timeline.processes.size(), 1u);
  EXPECT_EQ(timeline.processes[0].gpu_collection,
            feedprof::GpuCollectionState::kOff);
  EXPECT_NE(
      timeline.processes[0].gpu_collection_detail.find(
          "CUDA_INJECTION64_PATH is already set to /opt/other/libtool.so"),
      std::string::npos)
      << timeline.processes[0].gpu_collection_detail;
}

TEST(InjectionTest, ClaimsTheCudaInjectionVariableForItsChildren) {
  const std::string preload =
      std::string("LD_PRELOAD=") + FEEDPROF_LIBRARY_PATH;
  const RunResult r =
      RunProgram({"sh", "-c", "printf '%s' \"$CUDA_INJECTION64_PATH\""},
                 {preload, "CUDA_INJECTION64_PATH="});
  EXPECT_EQ(r.exit_code, 0);
  char resolved[4096];
  ASSERT_NE(realpath(FEEDPROF_LIBRARY_PATH, resolved), nullptr);
  EXPECT_EQ(r.out, resolved);
  EXPECT_TRUE(LinesMentioning(r.err, "CUDA_INJECTION64_PATH").empty()) << r.err;
}

TEST(InjectionTest, AnotherToolsCudaInjectionIsLeftAloneWithOneLine) {
  const RunResult r =
      RunProgram({"sh", "-c", "printf '%s' \"$CUDA_INJECTION64_PATH\""},
                 {std::string("LD_PRELOAD=") + FEEDPROF_LIBRARY_PATH,
                  "CUDA_INJECTION64_PATH=/opt/other/libtool.so"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, "/opt/other/libtool.so");
  const auto lines = LinesMentioning(r.err, "CUDA_INJECTION64_PATH");
  ASSERT_EQ(lines.size(), 1u) << r.err;
  EXPECT_EQ(lines[0].rfind("feedprof: ", 0), 0u) << lines[0];
  EXPECT_NE(lines[0].find("records no GPU activity"), std::string::npos)
      << lines[0];
}

}  // namespace
