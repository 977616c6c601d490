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
#include <memory>
#include <string>
#include <vector>

#include "tools/command_line.h"
#include "tools/commands.h"
#include "tools/session_summary.h"

namespace feedprof::cli {
namespace {

constexpr int kSetupError = kExitFailed;
constexpr int kSignalsToForward[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

volatile sig_atomic_t g_child_pid = 0;

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
  bool no_report = false;
  std::vector<std::string> command;
};

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
  unsetenv("FEEDPROF_SESSION_PID");
}

int ExitStatusOf(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

int Run(const RecordOptions& options) {
  std::vector<char*> argv;
  for (const std::string& a : options.command) {
    argv.push_back(const_cast<char*>(a.c_str()));
  }
  argv.push_back(nullptr);

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
    execvp(argv[0], argv.data());
    const int err = errno;
    std::fprintf(stderr, "feedprof record: cannot run %s: %s\n", argv[0],
                 std::strerror(err));
    _exit(err == ENOENT ? 127 : 126);
  }
  g_child_pid = child;

  int status = 0;
  while (waitpid(child, &status, 0) < 0) {
    if (errno != EINTR) {
      std::fprintf(stderr, "feedprof record: waiting for %s failed: %s\n",
                   argv[0], std::strerror(errno));
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
    if (!options.no_report) PrintSessionSummary(session_dir);
  } else {
    std::fputs(
        "feedprof: no trace was written (no process wrote a file; see any "
        "messages above)\n",
        stderr);
  }
  return ExitStatusOf(status);
}

}  // namespace

void AddRecordCommand(CLI::App& root, int* exit_code) {
  auto options = std::make_shared<RecordOptions>();
  CLI::App* sub = AddCommand(
      root, "record", "[options] [--] CMD [ARGS...]",
      "run CMD under the profiler",
      "Runs CMD with libfeedprof.so preloaded; every process it starts\n"
      "writes a trace file into one session directory.",
      "Options end at CMD: everything from it on is CMD's own arguments.\n"
      "Environment: FEEDPROF_LIBRARY overrides where libfeedprof.so is\n"
      "found; FEEDPROF_* variables configure recording (docs/recording.md).\n"
      "Exit status: CMD's (128+N when CMD died of signal N); 1 when it\n"
      "could not be started; 2 usage error.");
  sub->add_option("-o,--output", options->output_dir,
                  "Session directory (default: a new\n"
                  "feedprof-YYYYmmdd-HHMMSS-PID under the current directory)")
      ->type_name("DIR")
      ->check(Check([](const std::string& v) {
        return v.empty() ? std::string("needs a directory") : std::string();
      }));
  sub->add_flag("--no-report", options->no_report,
                "Do not analyse the session when CMD ends (by default its\n"
                "summary is printed to stderr and report.html written into\n"
                "it)");
  // CMD and its arguments are not ours to parse: from CMD on, every word
  // is CMD's, dashes or not.
  sub->add_option("CMD", options->command,
                  "The program to run, then its own arguments");
  sub->positionals_at_end();
  sub->callback([options, exit_code] {
    if (options->command.empty()) throw UsageError("no command to run");
    *exit_code = Run(*options);
  });
}

}  // namespace feedprof::cli
