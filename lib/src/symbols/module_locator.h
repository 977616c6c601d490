// Which file on this machine holds a recorded module, checked against the
// recorded build id.
//
// A trace is often analysed on another machine than the one that recorded
// it, or after a rebuild. Candidates are tried in this order, and the first
// readable ELF file whose build id matches is used:
//   1. DIR/<base name of the module> for each --symbol-path DIR, in order;
//   2. the recorded path;
//   3. ROOT/.build-id/xx/yyyy.debug under each debug root (/usr/lib/debug),
//      when a build id was recorded (a separate debug file has the same
//      program headers, so it symbolizes the same offsets).
// When the trace recorded no build id, the first readable candidate is
// used, unchecked. When none fits, the reason names what was found.
#ifndef FEEDPROF_SYMBOLS_MODULE_LOCATOR_H_
#define FEEDPROF_SYMBOLS_MODULE_LOCATOR_H_

#include <string>
#include <vector>

#include "feedprof/symbolize.h"
#include "symbols/elf_file_facts.h"

namespace feedprof::symbols {

struct LocatedModule {
  bool found = false;
  std::string path;  // found: the file to open
  ElfFileFacts facts;
  bool checked = false;  // found: its build id was compared with a recorded one
  std::string reason;    // not found: why, in words a user can act on
};

// The candidate files of a module, in the order they are tried.
std::vector<std::string> CandidatePaths(const std::string& recorded_path,
                                        const std::string& build_id,
                                        const SymbolizeOptions& options);

LocatedModule LocateModule(const std::string& recorded_path,
                           const std::string& build_id,
                           const SymbolizeOptions& options);

}  // namespace feedprof::symbols

#endif  // FEEDPROF_SYMBOLS_MODULE_LOCATOR_H_
