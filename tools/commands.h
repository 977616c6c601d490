// Subcommands of the feedprof CLI. Each takes the arguments after its own
// name and returns the process exit code.
#ifndef FEEDPROF_TOOLS_COMMANDS_H_
#define FEEDPROF_TOOLS_COMMANDS_H_

namespace feedprof::cli {

int RunRecord(int argc, char** argv);
int RunDump(int argc, char** argv);
int RunAnalyze(int argc, char** argv);

}  // namespace feedprof::cli

#endif  // FEEDPROF_TOOLS_COMMANDS_H_
