// launch_bound: thousands of tiny kernels per step. Each kernel runs for a
// few microseconds, less than its own launch call, so the GPU idles between
// kernels while the host is busy submitting them.
#include "example_common.h"

__global__ void TinyAdd(float* x, int n, float v) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += v;
}

int main(int argc, char** argv) {
  const int steps = example::StepsFromArgs(argc, argv, 20);
  const int n = 1024;
  float* x = nullptr;
  EXAMPLE_CHECK(cudaMalloc(&x, n * sizeof(float)));
  EXAMPLE_CHECK(cudaMemset(x, 0, n * sizeof(float)));
  example::RunSteps("launch_bound", 2, steps, [&](int) {
    for (int k = 0; k < 4000; ++k) TinyAdd<<<4, 256>>>(x, n, 1e-3f);
    EXAMPLE_CHECK(cudaGetLastError());
    EXAMPLE_CHECK(cudaDeviceSynchronize());
  });
  EXAMPLE_CHECK(cudaFree(x));
  return 0;
}
