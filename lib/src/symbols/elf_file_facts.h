// What the symbolizer needs to know of a module file before using it: is
// it a readable ELF file, its GNU build id, and the address its offsets are
// counted from.
//
// The recorder writes a frame's offset from the module's load base as
// dladdr gives it (dli_fbase: where the first PT_LOAD segment is mapped, a
// page boundary). In the file's own addresses that base is the lowest
// PT_LOAD p_vaddr rounded down to a page: 0 for PIE executables and shared
// objects, 0x400000 or so for non-PIE executables.
#ifndef FEEDPROF_SYMBOLS_ELF_FILE_FACTS_H_
#define FEEDPROF_SYMBOLS_ELF_FILE_FACTS_H_

#include <cstdint>
#include <string>

namespace feedprof::symbols {

struct ElfFileFacts {
  enum class State : uint8_t { kMissing, kUnreadable, kOk };
  State state = State::kMissing;
  std::string problem;   // kUnreadable: why, in words
  std::string build_id;  // lower-case hex; empty: the file has none
  uint64_t link_base = 0;
};

ElfFileFacts ReadElfFileFacts(const std::string& path);

// "1a2b3c4d…" for messages: the first 8 hex digits.
std::string ShortBuildId(const std::string& hex);

}  // namespace feedprof::symbols

#endif  // FEEDPROF_SYMBOLS_ELF_FILE_FACTS_H_
