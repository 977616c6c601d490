// latency_bound: a serial chain of dependent kernels with tiny grids (one
// block) on one stream, queued without host syncs. The GPU is rarely idle,
// yet almost all of its SMs are: little parallel work is the nature of the
// load.
//
// --fixed: the chain's 200 kernels of a step fused into one launch that
// runs the same 200 x 20000 dependent updates, in the same order, on the same
// 32 values. The fix a latency-bound load calls for, more parallel work per
// launch, would change the work itself; with the work fixed, fusing is what
// is left, and it saves the gaps between the kernels, not the chain's time.
#include "example_common.h"

__global__ void SerialStep(float* x, int iters) {
  float v = x[threadIdx.x];
  for (int k = 0; k < iters; ++k) v = v * 0.9999f + 0.0001f;
  x[threadIdx.x] = v;
}

// `links` SerialSteps in one kernel: the same updates, without storing and
// reloading x between them (a float round trip, so the result is the same).
__global__ void SerialChain(float* x, int links, int iters) {
  float v = x[threadIdx.x];
  for (int j = 0; j < links; ++j) {
    for (int k = 0; k < iters; ++k) v = v * 0.9999f + 0.0001f;
  }
  x[threadIdx.x] = v;
}

namespace {

constexpr example::ExampleInfo kInfo{
    "latency_bound", 20,
    "the step's 200 dependent kernels fused into one launch doing the same "
    "updates"};
constexpr int kWarmup = 1;
constexpr int kLinks = 200;  // kernels in a step's chain
constexpr int kIters = 20000;

}  // namespace

int main(int argc, char** argv) {
  const example::Args args = example::ArgsOrExit(argc, argv, kInfo);
  float* x = nullptr;
  EXAMPLE_CHECK(cudaMalloc(&x, 32 * sizeof(float)));
  EXAMPLE_CHECK(cudaMemset(x, 0, 32 * sizeof(float)));
  const bool fixed = args.variant == example::Variant::kFixed;
  example::RunSteps(kInfo, args, kWarmup, [&](int) {
    if (fixed) {
      SerialChain<<<1, 32>>>(x, kLinks, kIters);
    } else {
      for (int k = 0; k < kLinks; ++k) SerialStep<<<1, 32>>>(x, kIters);
    }
    EXAMPLE_CHECK(cudaGetLastError());
    EXAMPLE_CHECK(cudaDeviceSynchronize());
  });
  EXAMPLE_CHECK(cudaFree(x));
  return 0;
}
