// Subcommands of the feedprof CLI. Each registers its options and a
// callback on the root app (tools/command_line.h); the callback runs the
// command and stores its exit code in `*exit_code`.
#ifndef FEEDPROF_TOOLS_COMMANDS_H_
#define FEEDPROF_TOOLS_COMMANDS_H_

#include "CLI/CLI.hpp"

namespace feedprof::cli {

void AddRecordCommand(CLI::App& root, int* exit_code);
void AddDumpCommand(CLI::App& root, int* exit_code);
void AddAnalyzeCommand(CLI::App& root, int* exit_code);
void AddReportCommand(CLI::App& root, int* exit_code);
void AddExportCommand(CLI::App& root, int* exit_code);
void AddDigestCommand(CLI::App& root, int* exit_code);
void AddDiffCommand(CLI::App& root, int* exit_code);
void AddDoctorCommand(CLI::App& root, int* exit_code);

}  // namespace feedprof::cli

#endif  // FEEDPROF_TOOLS_COMMANDS_H_
