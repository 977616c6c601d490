// One opened module file answering "which function, file and line holds
// this address", from its symbol table and DWARF (libdwfl).
//
// libdwfl finds a separate debug file when the module has no DWARF of its
// own (.gnu_debuglink, or .build-id under the debug roots), reads the
// line table of a compile unit only when an address falls in it, and
// handles PIE, shared and non-PIE files alike: the module is reported at
// its own link addresses, so an address here is a file virtual address.
//
// The function is the symbol table's (the function on the stack); for code
// inlined into it, the line is the inlined code's. Naming the inlined
// function too would need a walk of the compile unit's DIE tree per
// address (about 3 ms each in a 100 MB module), far over the budget.
#ifndef FEEDPROF_SYMBOLS_DWARF_MODULE_H_
#define FEEDPROF_SYMBOLS_DWARF_MODULE_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace feedprof::symbols {

struct SourceLocation {
  std::string function;  // demangled; empty when unknown
  std::string file;      // empty when there is no line table
  uint32_t line = 0;
};

class DwarfModule {
 public:
  // Opens `path`; null with `problem` set when libdwfl cannot use it.
  // `debug_dirs`: where separate debug files are looked for.
  static std::unique_ptr<DwarfModule> Open(
      const std::string& path, const std::vector<std::string>& debug_dirs,
      std::string* problem);
  ~DwarfModule();
  DwarfModule(const DwarfModule&) = delete;
  DwarfModule& operator=(const DwarfModule&) = delete;

  // The location of file virtual address `address`. Thread-safe.
  SourceLocation Lookup(uint64_t address);

  bool has_symbols() const { return has_symbols_; }
  bool has_lines() const { return has_lines_; }

 private:
  struct Handles;
  explicit DwarfModule(std::unique_ptr<Handles> handles);

  // A function symbol; the name points into libelf's string table.
  struct Symbol {
    uint64_t address;
    uint64_t size;
    const char* name;
  };
  void IndexSymbols();
  const char* SymbolAt(uint64_t address) const;

  std::unique_ptr<Handles> handles_;
  std::mutex mutex_;  // libdwfl's lazy loading is not thread-safe
  // By address: libdwfl searches its symbol table linearly per lookup,
  // which costs 0.1 ms a frame in a 100 MB module.
  std::vector<Symbol> symbols_;
  bool has_symbols_ = false;
  bool has_lines_ = false;
};

// `name` demangled when it is a mangled C++ name, else as is.
std::string DemangledName(const char* name);

}  // namespace feedprof::symbols

#endif  // FEEDPROF_SYMBOLS_DWARF_MODULE_H_
