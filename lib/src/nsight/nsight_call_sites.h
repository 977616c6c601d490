// Call sites of CUDA API calls from the backtraces in an Nsight Systems
// export (CUDA_CALLCHAINS, present when nsys ran with CUDA backtraces).
//
// Two traps. The stacks start inside CUPTI, the driver and the runtime, and
// the first frames in the application are often the runtime's inline
// template wrappers (`cudaError cudaMalloc<double>(double**, ...)`); the
// call site is the first frame after all of those. And some nsys releases
// number the callchains from 1 while the API rows refer to them from 0 (in
// the saxpy export the call with callchainId 5 is cudaLaunchKernel and
// chain 5 is a cudaMemcpy stack, chain 6 the cudaLaunchKernel one). The
// offset is detected from the data: each stack contains the API function
// itself, so the offset whose stacks name the calls' own functions wins.
#ifndef FEEDPROF_LIB_SRC_NSIGHT_NSIGHT_CALL_SITES_H_
#define FEEDPROF_LIB_SRC_NSIGHT_NSIGHT_CALL_SITES_H_

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "nsight/nsight_import_context.h"

namespace feedprof::nsight {

struct CallchainRef {
  int64_t callchain = 0;  // as the API row states it
  StringId api_name = 0;  // the call's name, version suffix removed
};

// Appends one Timeline call site per referenced callchain and returns the
// map from the API rows' callchain id to the call-site index.
std::unordered_map<int64_t, uint32_t> ReadCudaCallSites(
    ImportContext& ctx, const std::vector<CallchainRef>& refs);

}  // namespace feedprof::nsight

#endif  // FEEDPROF_LIB_SRC_NSIGHT_NSIGHT_CALL_SITES_H_
