#include "tests/e2e/child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sstream>

extern char** environ;

namespace feedprof::e2e {

ChildProcess::ChildProcess(const std::vector<std::string>& argv,
                           const std::map<std::string, std::string>& env,
                           const std::string& output_prefix)
    : out_path_(output_prefix + ".out"), err_path_(output_prefix + ".err") {
  // Everything the child needs is prepared before fork().
  std::map<std::string, std::string> merged;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry(*e);
    const size_t eq = entry.find('=');
    if (eq != std::string::npos)
      merged[entry.substr(0, eq)] = entry.substr(eq + 1);
  }
  for (const auto& [key, value] : env) {
    if (value.empty()) {
      merged.erase(key);
    } else {
      merged[key] = value;
    }
  }
  std::vector<std::string> env_strings;
  for (const auto& [key, value] : merged)
    env_strings.push_back(key + "=" + value);
  std::vector<char*> envp;
  for (std::string& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = argv;
  std::vector<char*> argp;
  for (std::string& s : args) argp.push_back(s.data());
  argp.push_back(nullptr);

  const int out = open(out_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  const int err = open(err_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (out < 0 || err < 0) return;
  pid_ = fork();
  if (pid_ == 0) {
    dup2(out, 1);
    dup2(err, 2);
    execve(argp[0], argp.data(), envp.data());
    _exit(127);
  }
  close(out);
  close(err);
}

ChildProcess::~ChildProcess() {
  if (pid_ > 0 && !reaped_) {
    kill(pid_, SIGKILL);
    int status = 0;
    waitpid(pid_, &status, 0);
  }
}

bool ChildProcess::Wait(int timeout_ms, ExitStatus* status) {
  if (pid_ <= 0) return false;
  int raw = 0;
  const bool done =
      WaitFor(timeout_ms, [&] { return waitpid(pid_, &raw, WNOHANG) == pid_; });
  if (!done) return false;
  reaped_ = true;
  status->exited = WIFEXITED(raw);
  status->code = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  status->signal = WIFSIGNALED(raw) ? WTERMSIG(raw) : 0;
  return true;
}

void ChildProcess::Signal(int signal) const {
  if (pid_ > 0 && !reaped_) kill(pid_, signal);
}

std::string ChildProcess::Stdout() const { return ReadWholeFile(out_path_); }
std::string ChildProcess::Stderr() const { return ReadWholeFile(err_path_); }

std::string ReadWholeFile(const std::string& path) {
  std::string data;
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return data;
  char buffer[1 << 16];
  ssize_t n;
  while ((n = read(fd, buffer, sizeof buffer)) > 0) {
    data.append(buffer, static_cast<size_t>(n));
  }
  close(fd);
  return data;
}

std::string WithoutFeedprofLines(const std::string& text) {
  std::istringstream lines(text);
  std::string line;
  std::string out;
  while (std::getline(lines, line)) {
    if (line.rfind("feedprof:", 0) == 0) continue;
    out += line;
    out += '\n';
  }
  return out;
}

std::string MakeTempDir(const std::string& tag) {
  const char* base = getenv("TMPDIR");
  std::string pattern = std::string(base != nullptr ? base : "/tmp") +
                        "/feedprof-e2e-" + tag + "-XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) return "";
  return pattern;
}

}  // namespace feedprof::e2e
