// Native frames turned into function, source file and line, at analysis
// time.
//
// The recorder writes a native frame as module path + offset (and the
// module's GNU build id once per module), because looking symbols up inside
// the profiled program would cost it time and memory. The analysis opens
// each module once, checks that its build id is the recorded one, and reads
// the symbol table and DWARF line table. Frames that cannot be symbolized
// stay module+offset, and the reason is given once per module as a timeline
// warning a user can act on. docs/recording.md, "Native frames", says where
// modules are looked for.
#ifndef FEEDPROF_SYMBOLIZE_H_
#define FEEDPROF_SYMBOLIZE_H_

#include <cstddef>
#include <string>
#include <vector>

#include "feedprof/timeline.h"

namespace feedprof {

struct SymbolizeOptions {
  // Directories searched first, in order, for a file of the module's base
  // name (`--symbol-path DIR`): a copy of a binary moved off the recording
  // machine, or an unstripped build of it.
  std::vector<std::string> symbol_paths;
  // Roots of separate debug files: ROOT/.build-id/xx/yyyy.debug is tried
  // for a module whose build id was recorded, when the module has no line
  // table of its own, or is missing.
  std::vector<std::string> debug_roots = {"/usr/lib/debug"};
};

struct SymbolizeResult {
  size_t native_frames = 0;  // frames with a module and an offset
  size_t symbolized = 0;     // of which a function or a line was found
  size_t with_line = 0;      // of which a source line was found
  // Symbolized against a file whose build id could not be checked (the
  // trace recorded none).
  size_t unchecked = 0;
  size_t modules = 0;         // distinct modules the frames point into
  size_t modules_failed = 0;  // of which none could be used (a warning each)
};

// True when some frame of `timeline.call_sites` is a native frame with a
// module and an offset and no source line yet: the only case where
// SymbolizeNativeFrames does any work.
bool HasUnsymbolizedNativeFrames(const Timeline& timeline);

// Fills `function`, `file` and `line` of every native frame of
// `timeline.call_sites` that can be symbolized, in place, and adds one
// warning per module that could not be used. Modules opened are kept for
// the life of the process (by build id), so a second trace of the same
// program opens nothing. Never fails: bad or missing files become warnings.
SymbolizeResult SymbolizeNativeFrames(Timeline& timeline,
                                      const SymbolizeOptions& options = {});

}  // namespace feedprof

#endif  // FEEDPROF_SYMBOLIZE_H_
