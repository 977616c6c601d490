// A program run to its end, with and without the library: what the
// end-to-end tests that compare the two runs of one program share.
#ifndef FEEDPROF_TESTS_E2E_PROGRAM_RUN_H_
#define FEEDPROF_TESTS_E2E_PROGRAM_RUN_H_

#include <gtest/gtest.h>
#include <sys/types.h>

#include <map>
#include <string>
#include <vector>

#include "tests/e2e/child_process.h"

namespace feedprof::e2e {

// The environment of a run without the library (nothing of a session an
// outer recording may have set either).
inline std::map<std::string, std::string> EnvWithoutLibrary() {
  return {{"LD_PRELOAD", ""},
          {"NVTX_INJECTION64_PATH", ""},
          {"FEEDPROF_OUTPUT_DIR", ""},
          {"FEEDPROF_SESSION_DIR", ""}};
}

struct ProgramRun {
  pid_t pid = 0;
  ExitStatus status;
  std::string out;
  std::string err;
};

// Runs `argv` to its end; a fatal test failure when it cannot start or
// still runs after `timeout_ms` (it is then killed).
inline void RunToEnd(const std::vector<std::string>& argv,
                     const std::map<std::string, std::string>& env,
                     const std::string& output_prefix, ProgramRun* run,
                     int timeout_ms = 60'000) {
  ChildProcess process(argv, env, output_prefix);
  ASSERT_TRUE(process.started()) << argv[0];
  run->pid = process.pid();
  ASSERT_TRUE(process.Wait(timeout_ms, &run->status))
      << argv[0] << " still runs after " << timeout_ms << " ms";
  run->out = process.Stdout();
  run->err = process.Stderr();
}

}  // namespace feedprof::e2e

#endif  // FEEDPROF_TESTS_E2E_PROGRAM_RUN_H_
