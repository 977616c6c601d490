// Placeholder until 'feedprof analyze' lands.
#include <cstdio>

#include "tools/commands.h"

namespace feedprof::cli {

int RunAnalyze(int, char**) {
  std::fputs("feedprof: 'analyze' is not available in this build\n", stderr);
  return 2;
}

}  // namespace feedprof::cli
