// Opened modules, kept for the life of the process.
//
// Opening a module and indexing its symbols and line tables is the costly
// part of symbolizing (tens of milliseconds for a 100 MB library); a CLI
// run that reads two traces of the same program (`diff`), or a program
// built on the library that analyses many, opens each module once. Modules
// are keyed by build id (two builds at one path differ) and path (a
// stripped and an unstripped copy of one build are not alike).
#ifndef FEEDPROF_SYMBOLS_MODULE_CACHE_H_
#define FEEDPROF_SYMBOLS_MODULE_CACHE_H_

#include <memory>
#include <string>
#include <vector>

#include "symbols/dwarf_module.h"

namespace feedprof::symbols {

// The module at `path` (whose build id is `build_id`, lower-case hex or
// empty), opened now or earlier. Null with `problem` set when it cannot be
// opened; a failure is not cached (another symbol path may fix it).
std::shared_ptr<DwarfModule> CachedModule(
    const std::string& path, const std::string& build_id,
    const std::vector<std::string>& debug_dirs, std::string* problem);

}  // namespace feedprof::symbols

#endif  // FEEDPROF_SYMBOLS_MODULE_CACHE_H_
