// Leak-checker settings for the CUPTI tests, read by the sanitizer runtime
// when the tests are built with -fsanitize=address (otherwise nothing calls
// these functions).
//
// The tests load the real libcupti and unload it again between tests
// (UnloadCupti). libcupti allocates a block in its own static initializers
// and never frees it, so once it is unloaded that block has no owner left.
// It is libcupti's memory, allocated under our dlopen, not ours (production
// never unloads libcupti). libcupti has no frame pointers, so the stack
// reaches LoadCupti only with the slow unwinder.
#define FEEDPROF_SANITIZER_HOOK \
  extern "C" __attribute__((visibility("default")))

FEEDPROF_SANITIZER_HOOK const char* __lsan_default_suppressions();
FEEDPROF_SANITIZER_HOOK const char* __asan_default_options();

FEEDPROF_SANITIZER_HOOK const char* __lsan_default_suppressions() {
  return "leak:feedprof::cupti::LoadCupti\n";
}

FEEDPROF_SANITIZER_HOOK const char* __asan_default_options() {
  return "fast_unwind_on_malloc=0";
}
