// The NVTX v3 types an injection needs, without NVTX's own implementation.
//
// A program that uses NVTX compiles the NVTX implementation into itself (it
// is header-only); an injection only needs the types of the callback tables
// and of the arguments. NVTX_NO_IMPL gives exactly that. Files of the
// injection include this header, never nvToolsExt.h directly, so that no
// NVTX implementation (and no second NVTX instance) ends up in
// libfeedprof.so.
#ifndef FEEDPROF_PRELOAD_NVTX_NVTX_API_H_
#define FEEDPROF_PRELOAD_NVTX_NVTX_API_H_

#ifndef NVTX_NO_IMPL
#define NVTX_NO_IMPL
#endif
#include <nvtx3/nvToolsExt.h>

#endif  // FEEDPROF_PRELOAD_NVTX_NVTX_API_H_
