// Shared scaffolding of the CUDA examples: error checks, the step loop with
// NVTX step ranges, and the lines tools/gpu_check.sh reads. The command line
// (`[STEPS] [--fixed]`) is in example_args.h.
#ifndef FEEDPROF_EXAMPLES_CUDA_EXAMPLE_COMMON_H_
#define FEEDPROF_EXAMPLES_CUDA_EXAMPLE_COMMON_H_

#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "example_args.h"

#define EXAMPLE_CHECK(call)                                              \
  do {                                                                   \
    cudaError_t err_ = (call);                                           \
    if (err_ != cudaSuccess) {                                           \
      std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, \
                   #call, cudaGetErrorString(err_));                     \
      std::exit(1);                                                      \
    }                                                                    \
  } while (0)

namespace example {

// Runs `warmup` unmeasured steps, then `args.steps` measured ones, each
// inside an NVTX range named "step"; prints the verdict the example is built
// to produce, "variant=fixed" when it runs its fix, and the mean step time.
// `step` gets the step's index: 0.. for the warm-up steps, then 0.. again for
// the measured ones.
template <typename StepFn>
void RunSteps(const ExampleInfo& info, const Args& args, int warmup,
              StepFn&& step) {
  std::printf("expected_verdict=%s\n", info.name);
  if (args.variant == Variant::kFixed) std::printf("variant=fixed\n");
  for (int i = 0; i < warmup; ++i) step(i);
  EXAMPLE_CHECK(cudaDeviceSynchronize());
  const auto begin = std::chrono::steady_clock::now();
  for (int i = 0; i < args.steps; ++i) {
    nvtxRangePushA("step");
    step(i);
    nvtxRangePop();
  }
  EXAMPLE_CHECK(cudaDeviceSynchronize());
  const double ms = std::chrono::duration<double, std::milli>(
                        std::chrono::steady_clock::now() - begin)
                        .count();
  std::printf("steps=%d\nstep_time_ms=%.3f\n", args.steps, ms / args.steps);
}

}  // namespace example

#endif  // FEEDPROF_EXAMPLES_CUDA_EXAMPLE_COMMON_H_
