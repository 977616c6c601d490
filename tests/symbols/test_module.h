// A call site the symbolization tests know exactly, built with -g -O0 into
// a shared object and into PIE and non-PIE executables (CMakeLists.txt).
#ifndef FEEDPROF_TESTS_SYMBOLS_TEST_MODULE_H_
#define FEEDPROF_TESTS_SYMBOLS_TEST_MODULE_H_

#include <cstdint>

extern "C" {
// Calls symbols_test::CallerOfCapture(), which returns the return address
// of its call at line SymbolsTestCallLine() of test_module.cc.
uintptr_t SymbolsTestCallSite();
int SymbolsTestCallLine();
}

#endif  // FEEDPROF_TESTS_SYMBOLS_TEST_MODULE_H_
