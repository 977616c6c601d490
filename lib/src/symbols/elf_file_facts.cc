#include "symbols/elf_file_facts.h"

#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <limits>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"

namespace feedprof::symbols {
namespace {

constexpr uint64_t kPageSize = 4096;

ElfFileFacts Unreadable(std::string problem) {
  ElfFileFacts facts;
  facts.state = ElfFileFacts::State::kUnreadable;
  facts.problem = std::move(problem);
  return facts;
}

}  // namespace

ElfFileFacts ReadElfFileFacts(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return {};
  if (!S_ISREG(st.st_mode)) return Unreadable("not a regular file");
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Unreadable(std::strerror(errno));
  elf_version(EV_CURRENT);
  Elf* elf = elf_begin(fd, ELF_C_READ_MMAP, nullptr);
  ElfFileFacts facts;
  GElf_Ehdr ehdr;
  size_t phnum = 0;
  if (elf == nullptr || elf_kind(elf) != ELF_K_ELF ||
      gelf_getehdr(elf, &ehdr) == nullptr || elf_getphdrnum(elf, &phnum) != 0) {
    facts = Unreadable("not an ELF file, or a damaged one");
  } else {
    facts.state = ElfFileFacts::State::kOk;
    uint64_t lowest = std::numeric_limits<uint64_t>::max();
    for (size_t i = 0; i < phnum; ++i) {
      GElf_Phdr ph;
      if (gelf_getphdr(elf, static_cast<int>(i), &ph) == nullptr) continue;
      if (ph.p_type == PT_LOAD && ph.p_vaddr < lowest) lowest = ph.p_vaddr;
    }
    if (lowest == std::numeric_limits<uint64_t>::max()) {
      facts = Unreadable("no loadable segments");
    } else {
      facts.link_base = lowest & ~(kPageSize - 1);
      const void* bits = nullptr;
      const ssize_t size = dwelf_elf_gnu_build_id(elf, &bits);
      if (size > 0 && bits != nullptr) {
        facts.build_id = absl::BytesToHexString(absl::string_view(
            static_cast<const char*>(bits), static_cast<size_t>(size)));
      }
    }
  }
  if (elf != nullptr) elf_end(elf);
  close(fd);
  return facts;
}

std::string ShortBuildId(const std::string& hex) {
  if (hex.empty()) return "none";
  if (hex.size() <= 8) return hex;
  return absl::StrCat(hex.substr(0, 8), "…");
}

}  // namespace feedprof::symbols
