// latency_bound: a serial chain of dependent kernels with tiny grids (one
// block) on one stream, queued without host syncs. The GPU is rarely idle,
// yet almost all of its SMs are: little parallel work is the nature of the
// load.
#include "example_common.h"

__global__ void SerialStep(float* x, int iters) {
  float v = x[threadIdx.x];
  for (int k = 0; k < iters; ++k) v = v * 0.9999f + 0.0001f;
  x[threadIdx.x] = v;
}

int main(int argc, char** argv) {
  const int steps = example::StepsFromArgs(argc, argv, 20);
  float* x = nullptr;
  EXAMPLE_CHECK(cudaMalloc(&x, 32 * sizeof(float)));
  EXAMPLE_CHECK(cudaMemset(x, 0, 32 * sizeof(float)));
  example::RunSteps("latency_bound", 1, steps, [&](int) {
    for (int k = 0; k < 200; ++k) SerialStep<<<1, 32>>>(x, 20000);
    EXAMPLE_CHECK(cudaGetLastError());
    EXAMPLE_CHECK(cudaDeviceSynchronize());
  });
  EXAMPLE_CHECK(cudaFree(x));
  return 0;
}
