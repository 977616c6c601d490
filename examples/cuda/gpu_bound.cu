// gpu_bound: long compute kernels over a full grid, queued ahead without
// host syncs inside the step. The GPU is busy all the time; the CPU is not
// the limit.
//
// No --fixed: the verdict names no host-side fix (the work is in the
// kernels), so the example refuses the switch rather than run something
// that only looks like a fix.
#include "example_common.h"

__global__ void Heavy(float* x, int n, int iters) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float a = x[i], b = 1.0001f;
  for (int k = 0; k < iters; ++k) {
    a = fmaf(a, b, 0.0001f);
    b = fmaf(b, 0.9999f, 0.00001f);
  }
  x[i] = a + b;
}

namespace {

constexpr example::ExampleInfo kInfo{"gpu_bound", 10, /*fix=*/nullptr};

}  // namespace

int main(int argc, char** argv) {
  const example::Args args = example::ArgsOrExit(argc, argv, kInfo);
  const int n = 1 << 24;
  float* x = nullptr;
  EXAMPLE_CHECK(cudaMalloc(&x, n * sizeof(float)));
  EXAMPLE_CHECK(cudaMemset(x, 0, n * sizeof(float)));
  example::RunSteps(kInfo, args, 1, [&](int) {
    for (int k = 0; k < 8; ++k) Heavy<<<(n + 255) / 256, 256>>>(x, n, 2000);
    EXAMPLE_CHECK(cudaGetLastError());
    EXAMPLE_CHECK(cudaDeviceSynchronize());
  });
  EXAMPLE_CHECK(cudaFree(x));
  return 0;
}
