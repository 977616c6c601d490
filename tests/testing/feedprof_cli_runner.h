// Runs the feedprof CLI of the build tree as a user types it, for the tests
// of its commands: stdout, stderr and the exit code of one invocation.
#ifndef FEEDPROF_TESTS_TESTING_FEEDPROF_CLI_RUNNER_H_
#define FEEDPROF_TESTS_TESTING_FEEDPROF_CLI_RUNNER_H_

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace feedprof::testing {

struct CliResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// `feedprof ARGS` through the shell (ARGS is shell words). Needs the
// FEEDPROF_BINARY_DIR definition every suite gets.
inline CliResult RunFeedprofCli(const std::string& args) {
  const std::string err_path =
      ::testing::TempDir() + "/feedprof_cli_err_" + std::to_string(getpid());
  const std::string command = std::string(FEEDPROF_BINARY_DIR) +
                              "/tools/feedprof " + args + " 2>" + err_path;
  CliResult r;
  std::FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return r;
  char buffer[4096];
  for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) {
    r.out.append(buffer, n);
  }
  const int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream in(err_path);
  std::stringstream s;
  s << in.rdbuf();
  r.err = s.str();
  std::filesystem::remove(err_path);
  return r;
}

}  // namespace feedprof::testing

#endif  // FEEDPROF_TESTS_TESTING_FEEDPROF_CLI_RUNNER_H_
