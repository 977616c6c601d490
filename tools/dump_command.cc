// `feedprof dump PATH`: prints a trace file or session directory as JSON
// lines (one header line per file, then one line per event), for checking
// what a recording holds and for feeding it to other tools. The line format
// is documented in docs/trace-format.md.
#include <cstdio>
#include <memory>
#include <string>

#include "feedprof/trace_dump.h"
#include "tools/command_line.h"
#include "tools/commands.h"

namespace feedprof::cli {
namespace {

int Run(const std::string& path) {
  absl::StatusOr<DumpSummary> summary = DumpTraceAsJsonLines(path, stdout);
  if (std::fflush(stdout) != 0 && summary.ok()) {
    std::fputs("feedprof dump: writing to stdout failed\n", stderr);
    return kExitFailed;
  }
  if (!summary.ok()) {
    std::fprintf(stderr, "feedprof dump: %s\n",
                 std::string(summary.status().message()).c_str());
    return kExitFailed;
  }
  for (const std::string& warning : summary->warnings) {
    std::fprintf(stderr, "feedprof dump: warning: %s\n", warning.c_str());
  }
  return kExitOk;
}

}  // namespace

void AddDumpCommand(CLI::App& root, int* exit_code) {
  auto path = std::make_shared<std::string>();
  CLI::App* sub = AddCommand(
      root, "dump", "PATH", "print a feedprof trace as JSON lines",
      "Prints a feedprof trace as JSON lines on stdout: a \"header\" line per\n"
      "file (process, rank, host, argv, platform), then one line per event\n"
      "(api_call, nvtx_range, nvtx_mark, kernel, memcpy, memset, sync,\n"
      "thread_sample, process_sample, system_sample, counter, thread, device,\n"
      "drops, footer, ...) with type, pid, tid, ts_ns, dur_ns and name, names\n"
      "resolved and times in absolute nanoseconds.\n"
      "\n"
      "PATH is a *.fpt trace file or a session directory from 'feedprof\n"
      "record' (all its *.fpt files, in name order). A truncated or damaged\n"
      "file is dumped up to its last whole packet, with a warning on stderr.",
      "Exit codes: 0 dumped, 1 the trace could not be read, 2 usage error.");
  sub->add_option("PATH", *path, "Trace file or session directory")->required();
  sub->callback([path, exit_code] { *exit_code = Run(*path); });
}

}  // namespace feedprof::cli
