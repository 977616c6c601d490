// feedprof: records, dumps and analyzes traces of "can the CPU feed the GPU".
#include <malloc.h>

#include "CLI/CLI.hpp"
#include "tools/command_line.h"
#include "tools/commands.h"

namespace {

// A big trace is read file by file into vectors of hundreds of MiB that are
// freed once merged. By default glibc gives each such block its own mmap
// and unmaps it when freed, so every file's events are page-faulted in
// afresh (half the run's time went to the kernel on an 8-file session).
// Serving blocks up to 1 GiB from the heap reuses freed pages instead:
// 8 x 100 MB session, 1 thread, 11.6 -> 7.8 s at 6 % more peak memory.
// Only this process: `feedprof record` execs the profiled program, which
// keeps glibc's defaults.
void ServeBigBlocksFromTheHeap() { mallopt(M_MMAP_THRESHOLD, 1 << 30); }

}  // namespace

int main(int argc, char** argv) {
  ServeBigBlocksFromTheHeap();
  CLI::App app(
      "Records what the host threads and the GPU did, and says which feeding "
      "of the GPU limits the run.",
      "feedprof");
  feedprof::cli::ConfigureRootApp(app, FEEDPROF_VERSION);
  int exit_code = feedprof::cli::kExitOk;
  feedprof::cli::AddRecordCommand(app, &exit_code);
  feedprof::cli::AddDumpCommand(app, &exit_code);
  feedprof::cli::AddAnalyzeCommand(app, &exit_code);
  feedprof::cli::AddReportCommand(app, &exit_code);
  feedprof::cli::AddExportCommand(app, &exit_code);
  feedprof::cli::AddDiffCommand(app, &exit_code);
  feedprof::cli::AddDoctorCommand(app, &exit_code);
  return feedprof::cli::RunCommandLine(app, argc, argv, exit_code);
}
