// An executable holding the known call site: prints where it is as the
// recorder would write it, "OFFSET LINE" (the return address's offset from
// dladdr's module base, and the call's line).
#include <dlfcn.h>

#include <cinttypes>
#include <cstdio>

#include "tests/symbols/test_module.h"

int main() {
  const uintptr_t address = SymbolsTestCallSite();
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(address), &info) == 0) return 1;
  const uintptr_t offset =
      address - reinterpret_cast<uintptr_t>(info.dli_fbase);
  std::printf("%" PRIxPTR " %d\n", offset, SymbolsTestCallLine());
  return 0;
}
