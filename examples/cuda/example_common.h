// Shared scaffolding of the CUDA examples: error checks, the step loop with
// NVTX step ranges, and the lines tools/gpu_check.sh reads.
#ifndef FEEDPROF_EXAMPLES_CUDA_EXAMPLE_COMMON_H_
#define FEEDPROF_EXAMPLES_CUDA_EXAMPLE_COMMON_H_

#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

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

// Number of steps: argv[1] if given, else `fallback`.
inline int StepsFromArgs(int argc, char** argv, int fallback) {
  if (argc > 1) {
    const int n = std::atoi(argv[1]);
    if (n > 0) return n;
  }
  return fallback;
}

// Runs `warmup` unmeasured steps, then `steps` measured ones, each inside an
// NVTX range named "step"; prints the mean step time.
template <typename StepFn>
void RunSteps(const char* expected_verdict, int warmup, int steps,
              StepFn&& step) {
  std::printf("expected_verdict=%s\n", expected_verdict);
  for (int i = 0; i < warmup; ++i) step(i);
  EXAMPLE_CHECK(cudaDeviceSynchronize());
  const auto begin = std::chrono::steady_clock::now();
  for (int i = 0; i < steps; ++i) {
    nvtxRangePushA("step");
    step(i);
    nvtxRangePop();
  }
  EXAMPLE_CHECK(cudaDeviceSynchronize());
  const double ms = std::chrono::duration<double, std::milli>(
                        std::chrono::steady_clock::now() - begin)
                        .count();
  std::printf("steps=%d\nstep_time_ms=%.3f\n", steps, ms / steps);
}

}  // namespace example

#endif  // FEEDPROF_EXAMPLES_CUDA_EXAMPLE_COMMON_H_
