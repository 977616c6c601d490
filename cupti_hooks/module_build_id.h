// The GNU build id of a module loaded in this process, read from memory.
//
// A native frame is recorded as module + offset and symbolized offline,
// maybe on another machine with another copy of the module. The build id
// lets the analysis check that the file it opens is the one that ran. It is
// read from the module's mapped PT_NOTE segments (dl_iterate_phdr), never
// from the file: no file I/O, no allocation, safe to call from the
// recorder's call-site registration path.
#ifndef FEEDPROF_CUPTI_HOOKS_MODULE_BUILD_ID_H_
#define FEEDPROF_CUPTI_HOOKS_MODULE_BUILD_ID_H_

#include <link.h>

#include <cstddef>
#include <cstdint>

namespace feedprof::cupti {

inline constexpr size_t kMaxBuildIdBytes = 64;

// Copies the build id of the loaded module holding `address` into `out`
// (at most `capacity` bytes) and returns its length; 0 when no loaded
// module holds the address or the module has no build id note.
size_t LoadedModuleBuildId(uintptr_t address, uint8_t* out, size_t capacity);

// Whether one of the loaded module's PT_LOAD segments holds `address`.
bool ModuleHoldsAddress(const dl_phdr_info& info, uintptr_t address);

// The build id in one note area (the contents of a PT_NOTE segment,
// `align` its p_align), or 0. Bounds-checked: a malformed note area gives 0.
size_t FindBuildIdNote(const uint8_t* notes, size_t size, size_t align,
                       uint8_t* out, size_t capacity);

}  // namespace feedprof::cupti

#endif  // FEEDPROF_CUPTI_HOOKS_MODULE_BUILD_ID_H_
