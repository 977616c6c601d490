// Placeholder until 'feedprof dump' lands.
#include <cstdio>

#include "tools/commands.h"

namespace feedprof::cli {

int RunDump(int, char**) {
  std::fputs("feedprof: 'dump' is not available in this build\n", stderr);
  return 2;
}

}  // namespace feedprof::cli
