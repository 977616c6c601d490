// The known call site of the symbolization tests (test_module.h).
#include "tests/symbols/test_module.h"

namespace symbols_test {

int call_line = 0;

__attribute__((noinline)) uintptr_t ReturnAddress() {
  return reinterpret_cast<uintptr_t>(__builtin_return_address(0));
}

// Hidden, so that a stripped copy of the shared object has no symbol left
// for it (only .dynsym survives stripping).
__attribute__((noinline, visibility("hidden"))) uintptr_t CallerOfCapture() {
  call_line = __LINE__ + 1;
  return ReturnAddress();
}

}  // namespace symbols_test

extern "C" __attribute__((visibility("default"))) uintptr_t
SymbolsTestCallSite() {
  return symbols_test::CallerOfCapture();
}

extern "C" __attribute__((visibility("default"))) int SymbolsTestCallLine() {
  return symbols_test::call_line;
}
