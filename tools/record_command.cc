// Placeholder until 'feedprof record' lands.
#include <cstdio>

#include "tools/commands.h"

namespace feedprof::cli {

int RunRecord(int, char**) {
  std::fputs("feedprof: 'record' is not available in this build\n", stderr);
  return 2;
}

}  // namespace feedprof::cli
