// The path a native frame's module is recorded under.
//
// dladdr names the main program by argv[0] ("./app", or "python3" found on
// PATH), which means nothing to an analysis run from another directory. The
// main program is recorded by its absolute path (/proc/self/exe) instead;
// other modules keep the loader's name, which is already absolute for
// anything found through the library search path.
#ifndef FEEDPROF_CUPTI_HOOKS_MODULE_PATH_H_
#define FEEDPROF_CUPTI_HOOKS_MODULE_PATH_H_

#include <cstddef>
#include <cstdint>

namespace feedprof::cupti {

// `loader_name` (dladdr's dli_fname for `address`), or for a relative name
// in the main program its absolute path, written to `out`. Returns `out`
// or `loader_name`. No allocation; one readlink for a relative name.
const char* RecordedModulePath(uintptr_t address, const char* loader_name,
                               char* out, size_t capacity);

}  // namespace feedprof::cupti

#endif  // FEEDPROF_CUPTI_HOOKS_MODULE_PATH_H_
