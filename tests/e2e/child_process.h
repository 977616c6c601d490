// Runs a real program for the end-to-end tests.
//
// The tests start the example programs exactly as a user would, as separate
// processes with LD_PRELOAD and FEEDPROF_* in their environment, with stdout
// and stderr going to files so that the output can be compared between runs
// with and without the library, and with signals sent from outside.
#ifndef FEEDPROF_TESTS_E2E_CHILD_PROCESS_H_
#define FEEDPROF_TESTS_E2E_CHILD_PROCESS_H_

#include <sys/types.h>

#include <map>
#include <string>
#include <vector>

namespace feedprof::e2e {

struct ExitStatus {
  bool exited = false;  // false: killed by a signal (or still running)
  int code = -1;        // exit code when `exited`
  int signal = 0;       // terminating signal otherwise
};

class ChildProcess {
 public:
  // Starts `argv` with the current environment plus `env` (a value of ""
  // removes the variable); stdout and stderr go to `output_prefix`.out/.err.
  ChildProcess(const std::vector<std::string>& argv,
               const std::map<std::string, std::string>& env,
               const std::string& output_prefix);
  ~ChildProcess();  // kills the process if it still runs
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  bool started() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }

  // Waits up to `timeout_ms`; false when the process is still running.
  bool Wait(int timeout_ms, ExitStatus* status);
  void Signal(int signal) const;

  std::string Stdout() const;
  std::string Stderr() const;

 private:
  pid_t pid_ = -1;
  bool reaped_ = false;
  std::string out_path_;
  std::string err_path_;
};

// Reads a whole file; "" when it cannot be read.
std::string ReadWholeFile(const std::string& path);

// `text` without the lines that start with "feedprof:".
std::string WithoutFeedprofLines(const std::string& text);

// Creates a fresh temporary directory for one test.
std::string MakeTempDir(const std::string& tag);

// Polls `condition` every 20 ms for up to `timeout_ms`.
template <typename Condition>
bool WaitFor(int timeout_ms, Condition condition);

}  // namespace feedprof::e2e

#include <chrono>
#include <thread>

template <typename Condition>
bool feedprof::e2e::WaitFor(int timeout_ms, Condition condition) {
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (std::chrono::steady_clock::now() < deadline) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return condition();
}

#endif  // FEEDPROF_TESTS_E2E_CHILD_PROCESS_H_
