// feedprof: records, dumps and analyzes traces of "can the CPU feed the GPU".
#include "CLI/CLI.hpp"
#include "tools/command_line.h"
#include "tools/commands.h"

int main(int argc, char** argv) {
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
  feedprof::cli::AddDigestCommand(app, &exit_code);
  feedprof::cli::AddDiffCommand(app, &exit_code);
  feedprof::cli::AddDoctorCommand(app, &exit_code);
  return feedprof::cli::RunCommandLine(app, argc, argv, exit_code);
}
