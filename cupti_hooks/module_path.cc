#include "cupti_hooks/module_path.h"

#include <link.h>
#include <unistd.h>

#include "cupti_hooks/module_build_id.h"

namespace feedprof::cupti {
namespace {

struct MainLookup {
  uintptr_t address;
  bool in_main = false;
};

// The first object dl_iterate_phdr reports is the main program.
int CheckMainProgram(dl_phdr_info* info, size_t, void* data) {
  auto* lookup = static_cast<MainLookup*>(data);
  lookup->in_main = ModuleHoldsAddress(*info, lookup->address);
  return 1;
}

}  // namespace

const char* RecordedModulePath(uintptr_t address, const char* loader_name,
                               char* out, size_t capacity) {
  if (loader_name == nullptr || loader_name[0] == '/' || capacity < 2) {
    return loader_name;
  }
  MainLookup lookup{address};
  dl_iterate_phdr(&CheckMainProgram, &lookup);
  if (!lookup.in_main) return loader_name;
  const ssize_t n = readlink("/proc/self/exe", out, capacity - 1);
  if (n <= 0) return loader_name;
  out[n] = '\0';
  return out;
}

}  // namespace feedprof::cupti
