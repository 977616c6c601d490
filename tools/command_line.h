// The feedprof command line: one parser (CLI11) for every subcommand.
//
// Each subcommand registers its options on the shared CLI::App and a
// callback that runs it; this file holds what they all share, so that every
// command has the same --help layout, accepts `--flag=value` and
// `--flag value` alike, and answers an unknown flag, a missing value or a
// bad value the same way: one line naming the problem, a pointer to
// --help, exit code 2.
#ifndef FEEDPROF_TOOLS_COMMAND_LINE_H_
#define FEEDPROF_TOOLS_COMMAND_LINE_H_

#include <functional>
#include <string>

#include "CLI/CLI.hpp"

namespace feedprof::cli {

// Exit codes every command uses.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;  // the input could not be used
inline constexpr int kExitUsage = 2;

// A usage problem found after parsing (two options that contradict each
// other): thrown from a command's callback, reported like a parse error.
class UsageError : public CLI::ValidationError {
 public:
  explicit UsageError(const std::string& problem)
      : CLI::ValidationError(problem) {}
};

// The root `feedprof` app with the shared help layout and --version.
void ConfigureRootApp(CLI::App& app, const std::string& version);

// A subcommand with the shared layout: `synopsis` is its usage line after
// the command's name ("PATH [options]"), `summary` its line in the list of
// commands, `description` the paragraph of its own --help, `footer` the
// text after the option list (exit codes, environment).
CLI::App* AddCommand(CLI::App& root, const std::string& name,
                     const std::string& synopsis, const std::string& summary,
                     const std::string& description, const std::string& footer);

// A validator that accepts what `check` returns no message for; its name
// stays out of the option's type in --help.
CLI::Validator Check(std::function<std::string(const std::string&)> check);

// Parses argv and runs the chosen command's callback; returns the process
// exit code: the command's, 0 after --help or --version, 2 on a usage
// error (after printing it).
int RunCommandLine(CLI::App& root, int argc, char** argv,
                   const int& command_exit_code);

}  // namespace feedprof::cli

#endif  // FEEDPROF_TOOLS_COMMAND_LINE_H_
