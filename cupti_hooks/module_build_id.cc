#include "cupti_hooks/module_build_id.h"

#include <elf.h>
#include <link.h>

#include <cstring>

namespace feedprof::cupti {
namespace {

size_t AlignUp(size_t v, size_t align) {
  return (v + align - 1) & ~(align - 1);
}

struct Lookup {
  uintptr_t address;
  uint8_t* out;
  size_t capacity;
  size_t size;
};

int FindModule(dl_phdr_info* info, size_t, void* data) {
  auto* lookup = static_cast<Lookup*>(data);
  if (!ModuleHoldsAddress(*info, lookup->address)) {
    return 0;
  }
  for (ElfW(Half) i = 0; i < info->dlpi_phnum && lookup->size == 0; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_NOTE) continue;
    // PT_NOTE segments are inside a PT_LOAD, so mapped and readable.
    const auto* notes =
        reinterpret_cast<const uint8_t*>(info->dlpi_addr + ph.p_vaddr);
    lookup->size = FindBuildIdNote(notes, ph.p_memsz, ph.p_align, lookup->out,
                                   lookup->capacity);
  }
  return 1;  // the module holding the address: stop either way
}

}  // namespace

bool ModuleHoldsAddress(const dl_phdr_info& info, uintptr_t address) {
  for (ElfW(Half) i = 0; info.dlpi_phdr != nullptr && i < info.dlpi_phnum;
       ++i) {
    const ElfW(Phdr)& ph = info.dlpi_phdr[i];
    if (ph.p_type != PT_LOAD) continue;
    const uintptr_t start = info.dlpi_addr + ph.p_vaddr;
    if (address >= start && address - start < ph.p_memsz) return true;
  }
  return false;
}

size_t FindBuildIdNote(const uint8_t* notes, size_t size, size_t align,
                       uint8_t* out, size_t capacity) {
  // Notes are 4-byte aligned, or 8 in segments aligned so (GNU property
  // notes); anything else is read as 4.
  align = align == 8 ? 8 : 4;
  size_t pos = 0;
  while (size - pos >= sizeof(ElfW(Nhdr))) {
    ElfW(Nhdr) header;
    std::memcpy(&header, notes + pos, sizeof header);
    const size_t name_at = pos + sizeof header;
    if (header.n_namesz > size - name_at) return 0;
    const size_t desc_at = AlignUp(name_at + header.n_namesz, align);
    if (desc_at > size || header.n_descsz > size - desc_at) return 0;
    if (header.n_type == NT_GNU_BUILD_ID && header.n_namesz == 4 &&
        std::memcmp(notes + name_at, "GNU", 4) == 0) {
      if (header.n_descsz == 0 || header.n_descsz > capacity) return 0;
      std::memcpy(out, notes + desc_at, header.n_descsz);
      return header.n_descsz;
    }
    const size_t next = AlignUp(desc_at + header.n_descsz, align);
    if (next <= pos || next > size) return 0;
    pos = next;
  }
  return 0;
}

size_t LoadedModuleBuildId(uintptr_t address, uint8_t* out, size_t capacity) {
  Lookup lookup{address, out, capacity, 0};
  dl_iterate_phdr(&FindModule, &lookup);
  return lookup.size;
}

}  // namespace feedprof::cupti
