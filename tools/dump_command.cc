// `feedprof dump PATH`: prints a trace file or session directory as JSON
// lines (one header line per file, then one line per event), for checking
// what a recording holds and for feeding it to other tools. The line format
// is documented in docs/trace-format.md.
#include <cstdio>
#include <string>
#include <string_view>

#include "readers/trace_dumper.h"
#include "tools/commands.h"

namespace feedprof::cli {
namespace {

constexpr char kUsage[] =
    "usage: feedprof dump PATH\n"
    "\n"
    "Prints a feedprof trace as JSON lines on stdout: a \"header\" line per\n"
    "file (process, rank, host, argv, platform), then one line per event\n"
    "(api_call, nvtx_range, nvtx_mark, kernel, memcpy, memset, sync,\n"
    "thread_sample, process_sample, system_sample, counter, thread, device,\n"
    "drops, footer, ...) with type, pid, tid, ts_ns, dur_ns and name, names\n"
    "resolved and times in absolute nanoseconds.\n"
    "\n"
    "PATH is a *.fpt trace file or a session directory from 'feedprof\n"
    "record' (all its *.fpt files, in name order). A truncated or damaged\n"
    "file is dumped up to its last whole packet, with a warning on stderr.\n"
    "\n"
    "Exit codes: 0 dumped, 1 the trace could not be read, 2 usage error.\n";

// Prints `problem` and the usage text to stderr; returns the usage exit code.
int UsageError(const std::string& problem) {
  std::fprintf(stderr, "feedprof dump: %s\n\n%s", problem.c_str(), kUsage);
  return 2;
}

}  // namespace

int RunDump(int argc, char** argv) {
  std::string path;
  for (int i = 0; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (arg == "--") {
      if (!path.empty() || i + 2 != argc) {
        return UsageError("expected exactly one PATH");
      }
      path = argv[i + 1];
      break;
    }
    if (arg.size() > 1 && arg[0] == '-') {
      return UsageError("unknown option '" + std::string(arg) + "'");
    }
    if (!path.empty()) return UsageError("expected exactly one PATH");
    path = std::string(arg);
  }
  if (path.empty()) return UsageError("missing PATH");

  absl::StatusOr<readers::DumpSummary> summary =
      readers::DumpTraceAsJsonLines(path, stdout);
  if (std::fflush(stdout) != 0 && summary.ok()) {
    std::fputs("feedprof dump: writing to stdout failed\n", stderr);
    return 1;
  }
  if (!summary.ok()) {
    std::fprintf(stderr, "feedprof dump: %s\n",
                 std::string(summary.status().message()).c_str());
    return 1;
  }
  for (const std::string& warning : summary->warnings) {
    std::fprintf(stderr, "feedprof dump: warning: %s\n", warning.c_str());
  }
  return 0;
}

}  // namespace feedprof::cli
