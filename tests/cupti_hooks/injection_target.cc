// A program that does what the CUDA driver does at cuInit when
// CUDA_INJECTION64_PATH names libfeedprof.so: it calls the exported
// InitializeInjection. It prints a fixed output and exits with 3, so a test
// can check that a failed CUPTI start leaves both unchanged.
#include <dlfcn.h>

#include <cstdio>

int main() {
  using Init = int (*)();
  auto init =
      reinterpret_cast<Init>(dlsym(RTLD_DEFAULT, "InitializeInjection"));
  std::printf("injection entry %s\n", init != nullptr ? "found" : "absent");
  if (init != nullptr) init();
  std::printf("program output\n");
  return 3;
}
