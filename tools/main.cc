// feedprof: records, dumps and analyzes traces of "can the CPU feed the GPU".
#include <cstdio>
#include <cstring>
#include <string_view>

#include "tools/commands.h"

namespace {

void PrintUsage(std::FILE* out) {
  std::fputs(
      "usage: feedprof <command> [options]\n"
      "\n"
      "commands:\n"
      "  record [-o DIR] -- CMD [ARGS...]   run CMD under the profiler\n"
      "  dump PATH                          print a feedprof trace as JSON "
      "lines\n"
      "  analyze PATH [options]             say what limits the GPU feed\n"
      "\n"
      "Run 'feedprof <command> --help' for the options of one command.\n",
      out);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    PrintUsage(stderr);
    return 2;
  }
  const std::string_view command = argv[1];
  if (command == "-h" || command == "--help" || command == "help") {
    PrintUsage(stdout);
    return 0;
  }
  if (command == "--version" || command == "version") {
    std::printf("feedprof %s\n", FEEDPROF_VERSION);
    return 0;
  }
  if (command == "record") return feedprof::cli::RunRecord(argc - 2, argv + 2);
  if (command == "dump") return feedprof::cli::RunDump(argc - 2, argv + 2);
  if (command == "analyze") {
    return feedprof::cli::RunAnalyze(argc - 2, argv + 2);
  }
  std::fprintf(stderr, "feedprof: unknown command '%s'\n", argv[1]);
  PrintUsage(stderr);
  return 2;
}
