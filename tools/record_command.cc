// `feedprof record [-o DIR] -- CMD [ARGS...]`: runs CMD with libfeedprof.so
// preloaded and the session directory chosen, forwards termination signals
// to it, and exits with CMD's exit status.
//
// The command does not create the session directory itself: the first
// recorded process does (docs/recording.md), so this command only decides
// its name and says where it is afterwards.
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "tools/commands.h"

namespace feedprof::cli {
namespace {

constexpr int kUsageError = 2;
constexpr int kSetupError = 1;
constexpr int kSignalsToForward[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

volatile sig_atomic_t g_child_pid = 0;

void PrintRecordUsage(std::FILE* out) {
  std::fputs(
      "usage: feedprof record [-o DIR] [--] CMD [ARGS...]\n"
      "\n"
      "Runs CMD with libfeedprof.so preloaded; every process it starts\n"
      "writes a trace file into one session directory.\n"
      "\n"
      "  -o, --output DIR   session directory (default: a new\n"
      "                     feedprof-YYYYmmdd-HHMMSS-PID under the current\n"
      "                     directory)\n"
      "  -h, --help         this text\n"
      "\n"
      "Environment: FEEDPROF_LIBRARY overrides where libfeedprof.so is\n"
      "found; FEEDPROF_* variables configure recording (docs/recording.md).\n"
      "The exit status is CMD's (128+N when CMD died of signal N).\n",
      out);
}

// Prints `problem` and the usage text to stderr; returns the usage exit code.
int UsageError(const std::string& problem) {
  std::fprintf(stderr, "feedprof record: %s\n", problem.c_str());
  PrintRecordUsage(stderr);
  return kUsageError;
}

// Signals sent to `feedprof record` with kill(1) go on to CMD. A terminal's
// Ctrl-C (si_code SI_KERNEL) already reached CMD through the foreground
// process group; passing it on would deliver it twice.
void ForwardSignal(int sig, siginfo_t* info, void*) {
  const pid_t child = g_child_pid;
  if (child <= 0) return;
  if (info != nullptr && info->si_code == SI_KERNEL) return;
  kill(child, sig);
}

bool Readable(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
         access(path.c_str(), R_OK) == 0;
}

std::string DirectoryOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

// libfeedprof.so: FEEDPROF_LIBRARY, else next to this executable in the
// installed layout (bin/../lib*) or the build tree (tools/../preload).
std::string FindLibrary(std::string* tried) {
  if (const char* env = std::getenv("FEEDPROF_LIBRARY");
      env != nullptr && env[0] != '\0') {
    *tried = env;
    return Readable(env) ? std::string(env) : std::string();
  }
  char self[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return {};
  self[n] = '\0';
  const std::string bin = DirectoryOf(self);
  const std::string candidates[] = {
      bin + "/../lib/libfeedprof.so",
      bin + "/../lib64/libfeedprof.so",
      bin + "/../lib/x86_64-linux-gnu/libfeedprof.so",
      bin + "/../lib/aarch64-linux-gnu/libfeedprof.so",
      bin + "/../preload/libfeedprof.so",
      bin + "/libfeedprof.so",
  };
  for (const std::string& c : candidates) {
    if (!tried->empty()) *tried += ", ";
    *tried += c;
    if (Readable(c)) {
      char resolved[PATH_MAX];
      return realpath(c.c_str(), resolved) != nullptr ? std::string(resolved)
                                                      : c;
    }
  }
  return {};
}

std::string AbsolutePath(const std::string& path) {
  if (!path.empty() && path[0] == '/') return path;
  char cwd[PATH_MAX];
  if (getcwd(cwd, sizeof cwd) == nullptr) return path;
  return std::string(cwd) + "/" + path;
}

std::string DefaultSessionDir() {
  const time_t now = time(nullptr);
  struct tm local;
  localtime_r(&now, &local);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &local);
  return AbsolutePath(std::string("feedprof-") + stamp + "-" +
                      std::to_string(getpid()));
}

struct RecordOptions {
  std::string output_dir;
  std::vector<char*> command;
};

// Returns -1 when parsing succeeded, else the exit code to return.
int ParseArguments(int argc, char** argv, RecordOptions* options) {
  int i = 0;
  for (; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--") {
      ++i;
      break;
    }
    if (arg == "-h" || arg == "--help") {
      PrintRecordUsage(stdout);
      return 0;
    }
    if (arg == "-o" || arg == "--output") {
      if (i + 1 >= argc || argv[i + 1][0] == '\0') {
        return UsageError(arg + " needs a directory");
      }
      options->output_dir = argv[++i];
      continue;
    }
    if (arg.rfind("--output=", 0) == 0) {
      options->output_dir = arg.substr(9);
      continue;
    }
    if (!arg.empty() && arg[0] == '-') {
      return UsageError("unknown option '" + arg + "'");
    }
    break;  // the command starts here
  }
  for (; i < argc; ++i) options->command.push_back(argv[i]);
  if (options->command.empty()) return UsageError("no command to run");
  options->command.push_back(nullptr);
  return -1;
}

void SetChildEnvironment(const std::string& library,
                         const std::string& session_dir) {
  const char* existing = std::getenv("LD_PRELOAD");
  std::string preload = library;
  if (existing != nullptr && existing[0] != '\0') {
    preload += ":";
    preload += existing;
  }
  setenv("LD_PRELOAD", preload.c_str(), 1);
  setenv("FEEDPROF_OUTPUT_DIR", session_dir.c_str(), 1);
  // A session inherited from an outer recording must not capture this one.
  unsetenv("FEEDPROF_SESSION_DIR");
}

int ExitStatusOf(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

}  // namespace

int RunRecord(int argc, char** argv) {
  RecordOptions options;
  if (const int rc = ParseArguments(argc, argv, &options); rc >= 0) return rc;

  std::string tried;
  const std::string library = FindLibrary(&tried);
  if (library.empty()) {
    std::fprintf(stderr,
                 "feedprof record: cannot find libfeedprof.so (looked at %s); "
                 "set FEEDPROF_LIBRARY to its path\n",
                 tried.c_str());
    return kSetupError;
  }
  const std::string session_dir = options.output_dir.empty()
                                      ? DefaultSessionDir()
                                      : AbsolutePath(options.output_dir);

  // Forward termination signals from before the fork, so none is lost in
  // between; the child restores the default handlers before exec.
  struct sigaction forward;
  std::memset(&forward, 0, sizeof forward);
  forward.sa_sigaction = ForwardSignal;
  forward.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&forward.sa_mask);
  struct sigaction previous[std::size(kSignalsToForward)];
  for (size_t i = 0; i < std::size(kSignalsToForward); ++i) {
    sigaction(kSignalsToForward[i], &forward, &previous[i]);
  }

  const pid_t child = fork();
  if (child < 0) {
    std::fprintf(stderr, "feedprof record: cannot fork: %s\n",
                 std::strerror(errno));
    return kSetupError;
  }
  if (child == 0) {
    for (size_t i = 0; i < std::size(kSignalsToForward); ++i) {
      sigaction(kSignalsToForward[i], &previous[i], nullptr);
    }
    SetChildEnvironment(library, session_dir);
    execvp(options.command[0], options.command.data());
    const int err = errno;
    std::fprintf(stderr, "feedprof record: cannot run %s: %s\n",
                 options.command[0], std::strerror(err));
    _exit(err == ENOENT ? 127 : 126);
  }
  g_child_pid = child;

  int status = 0;
  while (waitpid(child, &status, 0) < 0) {
    if (errno != EINTR) {
      std::fprintf(stderr, "feedprof record: waiting for %s failed: %s\n",
                   options.command[0], std::strerror(errno));
      return kSetupError;
    }
  }
  g_child_pid = 0;
  for (size_t i = 0; i < std::size(kSignalsToForward); ++i) {
    sigaction(kSignalsToForward[i], &previous[i], nullptr);
  }

  struct stat st;
  if (stat(session_dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    std::fprintf(stderr,
                 "feedprof: session written to %s (analyze it with "
                 "'feedprof analyze %s')\n",
                 session_dir.c_str(), session_dir.c_str());
  } else {
    std::fputs(
        "feedprof: no trace was written (no process wrote a file; see any "
        "messages above)\n",
        stderr);
  }
  return ExitStatusOf(status);
}

}  // namespace feedprof::cli
