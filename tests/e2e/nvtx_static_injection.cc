// Attaches the test binary's own NVTX instance to the injection linked into
// it, through NVTX's static-injection hook: with NVTX_INJECTION64_PATH
// unset, NVTX's loader calls whatever this pointer names.
#include "preload/nvtx/nvtx_injection.h"

extern "C" {
__attribute__((visibility("default")))
NvtxInitializeInjectionNvtxFunc_t InitializeInjectionNvtx2_fnptr =
    &InitializeInjectionNvtx2;
}
