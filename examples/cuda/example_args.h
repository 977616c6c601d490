// The command line the CUDA examples share: `[STEPS] [--fixed] [--help]`.
//
// Each example reproduces one verdict. `--fixed` runs the same work (same
// sizes, same steps, same NVTX step ranges) with the fix that verdict's next
// steps call for, so that tools/gpu_check.sh can set what the what-if replay
// predicts for the fix against what the fix measures. An example whose
// verdict names no fix (gpu_bound) refuses `--fixed` instead of running
// something that only looks like one.
//
// Plain host code, apart from the CUDA scaffolding of example_common.h: the
// arguments are read before any CUDA call, so a wrong one is reported on a
// machine without a GPU too, and the parsing is tested on the host
// (tests/examples/example_args_test.cc).
#ifndef FEEDPROF_EXAMPLES_CUDA_EXAMPLE_ARGS_H_
#define FEEDPROF_EXAMPLES_CUDA_EXAMPLE_ARGS_H_

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace example {

// Which program runs: the one the verdict describes, or its fix.
enum class Variant { kAsIs, kFixed };

// What one example offers on its command line.
struct ExampleInfo {
  const char* name;   // the verdict it is built to produce, e.g. "sync_bound"
  int default_steps;  // measured steps when none are given
  const char* fix;    // the --fixed variant in one line; nullptr: none
};

struct Args {
  int steps = 0;
  Variant variant = Variant::kAsIs;
};

enum class ParseStatus { kRun, kHelp, kUsageError };

struct ParseResult {
  ParseStatus status = ParseStatus::kRun;
  Args args;
  std::string error;  // with kUsageError: what was wrong, in one line
};

// The usage text `--help` prints.
inline std::string Usage(const ExampleInfo& info) {
  std::string text =
      std::string("usage: example_") + info.name +
      (info.fix != nullptr ? " [STEPS] [--fixed]\n" : " [STEPS]\n");
  text += "  STEPS    measured steps (default " +
          std::to_string(info.default_steps) + ")\n";
  if (info.fix != nullptr) {
    text += std::string("  --fixed  the same work with the fix: ") + info.fix +
            "\n";
  } else {
    text += "  (no --fixed: the " + std::string(info.name) +
            " verdict names no host-side fix)\n";
  }
  return text;
}

// A positive whole number of at most 7 digits, or 0 when `arg` is not one.
inline int PositiveCount(const char* arg) {
  const size_t length = std::strlen(arg);
  if (length == 0 || length > 7) return 0;
  int n = 0;
  for (size_t i = 0; i < length; ++i) {
    if (arg[i] < '0' || arg[i] > '9') return 0;
    n = n * 10 + (arg[i] - '0');
  }
  return n;
}

inline ParseResult ParseArgs(int argc, const char* const* argv,
                             const ExampleInfo& info) {
  ParseResult result;
  result.args.steps = info.default_steps;
  bool steps_given = false;
  for (int i = 1; i < argc; ++i) {
    const char* arg = argv[i];
    if (std::strcmp(arg, "-h") == 0 || std::strcmp(arg, "--help") == 0) {
      result.status = ParseStatus::kHelp;
      return result;
    }
    if (std::strcmp(arg, "--fixed") == 0) {
      if (info.fix == nullptr) {
        result.status = ParseStatus::kUsageError;
        result.error = std::string("no --fixed variant: the ") + info.name +
                       " verdict names no host-side fix";
        return result;
      }
      result.args.variant = Variant::kFixed;
      continue;
    }
    const int n = PositiveCount(arg);
    if (n == 0 || steps_given) {
      result.status = ParseStatus::kUsageError;
      if (n > 0) {
        result.error = std::string("STEPS given twice: ") + arg;
      } else if (arg[0] >= '0' && arg[0] <= '9') {
        result.error = std::string(
                           "STEPS must be a whole number from 1 to "
                           "9999999, got ") +
                       arg;
      } else {
        result.error = std::string("unknown argument ") + arg;
      }
      return result;
    }
    result.args.steps = n;
    steps_given = true;
  }
  return result;
}

// For main(): the arguments to run with. Prints the usage and exits, with 0
// after --help and with 2 after a wrong argument.
inline Args ArgsOrExit(int argc, char** argv, const ExampleInfo& info) {
  const ParseResult result = ParseArgs(argc, argv, info);
  if (result.status == ParseStatus::kHelp) {
    std::fputs(Usage(info).c_str(), stdout);
    std::exit(0);
  }
  if (result.status == ParseStatus::kUsageError) {
    std::fprintf(stderr, "example_%s: %s\n%s", info.name, result.error.c_str(),
                 Usage(info).c_str());
    std::exit(2);
  }
  return result.args;
}

}  // namespace example

#endif  // FEEDPROF_EXAMPLES_CUDA_EXAMPLE_ARGS_H_
