#include "symbols/dwarf_module.h"

#include <cxxabi.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <string_view>
#include <utility>

#include "absl/strings/str_join.h"

namespace feedprof::symbols {

struct DwarfModule::Handles {
  std::string debuginfo_path;  // must outlive `dwfl`
  char* debuginfo_path_ptr = nullptr;
  Dwfl_Callbacks callbacks{};
  Dwfl* dwfl = nullptr;
  Dwfl_Module* module = nullptr;

  ~Handles() {
    if (dwfl != nullptr) dwfl_end(dwfl);
  }
};

std::string DemangledName(const char* name) {
  if (name == nullptr) return {};
  if (std::string_view(name).starts_with("_Z")) {
    int status = 0;
    char* plain = abi::__cxa_demangle(name, nullptr, nullptr, &status);
    if (status == 0 && plain != nullptr) {
      std::string text(plain);
      std::free(plain);
      return text;
    }
    std::free(plain);
  }
  return name;
}

DwarfModule::DwarfModule(std::unique_ptr<Handles> handles)
    : handles_(std::move(handles)) {}

DwarfModule::~DwarfModule() = default;

std::unique_ptr<DwarfModule> DwarfModule::Open(
    const std::string& path, const std::vector<std::string>& debug_dirs,
    std::string* problem) {
  auto handles = std::make_unique<Handles>();
  // "-": no CRC check of .gnu_debuglink files (the build id is checked);
  // ".debug": the module's own directory's .debug folder.
  handles->debuginfo_path =
      "-:.debug:" + absl::StrJoin(debug_dirs.begin(), debug_dirs.end(), ":");
  handles->debuginfo_path_ptr = handles->debuginfo_path.data();
  handles->callbacks.find_elf = dwfl_build_id_find_elf;
  handles->callbacks.find_debuginfo = dwfl_standard_find_debuginfo;
  handles->callbacks.section_address = dwfl_offline_section_address;
  handles->callbacks.debuginfo_path = &handles->debuginfo_path_ptr;
  handles->dwfl = dwfl_begin(&handles->callbacks);
  if (handles->dwfl == nullptr) {
    *problem = dwfl_errmsg(-1);
    return nullptr;
  }
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    *problem = "cannot be opened";
    return nullptr;
  }
  dwfl_report_begin(handles->dwfl);
  // ET_DYN placed at its own p_vaddr (bias 0); ET_EXEC always is.
  handles->module = dwfl_report_elf(handles->dwfl, path.c_str(), path.c_str(),
                                    fd, 0, /*add_p_vaddr=*/true);
  dwfl_report_end(handles->dwfl, nullptr, nullptr);
  if (handles->module == nullptr) {
    close(fd);  // not consumed on failure
    *problem = dwfl_errmsg(-1);
    return nullptr;
  }
  auto module =
      std::unique_ptr<DwarfModule>(new DwarfModule(std::move(handles)));
  Dwfl_Module* m = module->handles_->module;
  module->IndexSymbols();
  module->has_symbols_ = !module->symbols_.empty();
  Dwarf_Addr bias = 0;
  module->has_lines_ = dwfl_module_getdwarf(m, &bias) != nullptr;
  return module;
}

void DwarfModule::IndexSymbols() {
  Dwfl_Module* m = handles_->module;
  const int count = dwfl_module_getsymtab(m);
  for (int i = 1; i < count; ++i) {
    GElf_Sym sym;
    GElf_Addr value = 0;
    const char* name =
        dwfl_module_getsym_info(m, i, &sym, &value, nullptr, nullptr, nullptr);
    if (name == nullptr || name[0] == '\0' || sym.st_shndx == SHN_UNDEF) {
      continue;
    }
    const int type = GELF_ST_TYPE(sym.st_info);
    if (type != STT_FUNC && type != STT_GNU_IFUNC) continue;
    symbols_.push_back(Symbol{value, sym.st_size, name});
  }
  // By address, the sized symbol first where several share one.
  std::sort(
      symbols_.begin(), symbols_.end(), [](const Symbol& a, const Symbol& b) {
        return a.address != b.address ? a.address < b.address : a.size > b.size;
      });
}

const char* DwarfModule::SymbolAt(uint64_t address) const {
  auto it = std::upper_bound(
      symbols_.begin(), symbols_.end(), address,
      [](uint64_t a, const Symbol& s) { return a < s.address; });
  if (it == symbols_.begin()) return nullptr;
  // The nearest symbols at or below the address: the first that covers
  // it (symbols can nest or overlap: aliases, cold parts).
  for (int steps = 0; it != symbols_.begin() && steps < 8; ++steps) {
    --it;
    if (address - it->address < std::max<uint64_t>(it->size, 1)) {
      return it->name;
    }
  }
  return nullptr;
}

SourceLocation DwarfModule::Lookup(uint64_t address) {
  std::lock_guard<std::mutex> lock(mutex_);
  SourceLocation where;
  Dwfl_Module* m = handles_->module;
  if (const char* name = SymbolAt(address); name != nullptr) {
    where.function = DemangledName(name);
  }
  if (!has_lines_) return where;
  if (Dwfl_Line* line = dwfl_module_getsrc(m, address); line != nullptr) {
    int number = 0;
    const char* file =
        dwfl_lineinfo(line, nullptr, &number, nullptr, nullptr, nullptr);
    if (file != nullptr && number > 0) {
      where.file = file;
      where.line = static_cast<uint32_t>(number);
    }
  }
  return where;
}

}  // namespace feedprof::symbols
