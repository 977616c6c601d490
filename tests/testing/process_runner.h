// Runs a program with extra environment variables and captures its stdout,
// stderr and wait status: how the process-level tests observe
// libfeedprof.so and `feedprof record` from the outside.
#ifndef FEEDPROF_TESTS_TESTING_PROCESS_RUNNER_H_
#define FEEDPROF_TESTS_TESTING_PROCESS_RUNNER_H_

#include <dirent.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "tests/testing/trace_test_util.h"

namespace feedprof::testing {

struct ProcessResult {
  int status = 0;  // raw waitpid status
  std::string out;
  std::string err;
  bool exited() const { return WIFEXITED(status); }
  int exit_code() const { return WIFEXITED(status) ? WEXITSTATUS(status) : -1; }
  int term_signal() const { return WIFSIGNALED(status) ? WTERMSIG(status) : 0; }
};

class RunningProcess {
 public:
  // `env`: variables to set (empty value: unset) on top of ours.
  RunningProcess(const std::vector<std::string>& argv,
                 const std::map<std::string, std::string>& env,
                 const std::string& scratch_dir) {
    out_path_ = scratch_dir + "/stdout." + std::to_string(counter_++);
    err_path_ = scratch_dir + "/stderr." + std::to_string(counter_);
    pid_ = fork();
    if (pid_ == 0) {
      const int out =
          open(out_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      const int err =
          open(err_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      dup2(out, 1);
      dup2(err, 2);
      for (const auto& [k, v] : env) {
        if (v.empty()) {
          unsetenv(k.c_str());
        } else {
          setenv(k.c_str(), v.c_str(), 1);
        }
      }
      std::vector<char*> args;
      for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
      args.push_back(nullptr);
      execvp(args[0], args.data());
      _exit(127);
    }
  }
  pid_t pid() const { return pid_; }
  ProcessResult Wait() {
    ProcessResult r;
    while (waitpid(pid_, &r.status, 0) < 0) {
    }
    r.out = ReadAll(out_path_);
    r.err = ReadAll(err_path_);
    return r;
  }

 private:
  static std::string ReadAll(const std::string& path) {
    return ReadFileBytes(path);
  }
  static inline int counter_ = 0;
  pid_t pid_ = -1;
  std::string out_path_;
  std::string err_path_;
};

inline ProcessResult RunProcess(const std::vector<std::string>& argv,
                                const std::map<std::string, std::string>& env,
                                const std::string& scratch_dir) {
  return RunningProcess(argv, env, scratch_dir).Wait();
}

// Lines of `text` that start with "feedprof: ".
inline std::vector<std::string> FeedprofLines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("feedprof: ", 0) == 0) lines.push_back(line);
  }
  return lines;
}

inline std::string WithoutFeedprofLines(const std::string& text) {
  std::string out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("feedprof: ", 0) != 0) out += line + "\n";
  }
  return out;
}

// Trace files (*.fpt) directly in `dir`, sorted.
inline std::vector<std::string> TraceFilesIn(const std::string& dir) {
  std::vector<std::string> files;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      const std::string name = e->d_name;
      if (name.size() > 4 && name.substr(name.size() - 4) == ".fpt") {
        files.push_back(dir + "/" + name);
      }
    }
    closedir(d);
  }
  std::sort(files.begin(), files.end());
  return files;
}

inline std::string MakeTempDir(const char* prefix) {
  std::string templ = std::string("/tmp/") + prefix + "-XXXXXX";
  char* p = mkdtemp(templ.data());
  return p == nullptr ? std::string() : std::string(p);
}

inline void RemoveTree(const std::string& dir) {
  if (dir.empty()) return;
  const std::string cmd = "rm -rf '" + dir + "'";
  if (std::system(cmd.c_str()) != 0) return;
}

}  // namespace feedprof::testing

#endif  // FEEDPROF_TESTS_TESTING_PROCESS_RUNNER_H_
