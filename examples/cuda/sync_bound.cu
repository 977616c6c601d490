// sync_bound: every iteration reads a 4-byte result back with a synchronous
// copy and a stream sync, allocates and frees a scratch buffer, and copies
// from pageable memory with cudaMemcpyAsync (which is synchronous). Each of
// these drains the GPU queue, so the GPU idles while the host waits.
#include <vector>

#include "example_common.h"

__global__ void Work(float* x, int n, int iters) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i];
  for (int k = 0; k < iters; ++k) v = v * 0.999f + 0.001f;
  x[i] = v;
}

__global__ void Reduce(const float* x, int n, float* out) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    float s = 0;
    for (int i = 0; i < n; i += 997) s += x[i];
    *out = s;
  }
}

int main(int argc, char** argv) {
  const int steps = example::StepsFromArgs(argc, argv, 30);
  const int n = 1 << 20;
  float *x = nullptr, *out = nullptr;
  EXAMPLE_CHECK(cudaMalloc(&x, n * sizeof(float)));
  EXAMPLE_CHECK(cudaMalloc(&out, sizeof(float)));
  EXAMPLE_CHECK(cudaMemset(x, 0, n * sizeof(float)));
  std::vector<float> pageable(1 << 16, 1.0f);
  cudaStream_t stream;
  EXAMPLE_CHECK(cudaStreamCreate(&stream));
  example::RunSteps("sync_bound", 2, steps, [&](int) {
    for (int it = 0; it < 50; ++it) {
      Work<<<(n + 255) / 256, 256, 0, stream>>>(x, n, 64);
      Reduce<<<1, 32, 0, stream>>>(x, n, out);
      float host_value = 0;
      // .item()-style readback: synchronous 4-byte D2H copy + stream sync.
      EXAMPLE_CHECK(
          cudaMemcpy(&host_value, out, sizeof(float), cudaMemcpyDeviceToHost));
      EXAMPLE_CHECK(cudaStreamSynchronize(stream));
      // Allocation churn in the loop.
      float* scratch = nullptr;
      EXAMPLE_CHECK(cudaMalloc(&scratch, 1 << 20));
      EXAMPLE_CHECK(cudaFree(scratch));
      // "Async" copy from pageable memory: blocks the host.
      EXAMPLE_CHECK(cudaMemcpyAsync(x, pageable.data(),
                                    pageable.size() * sizeof(float),
                                    cudaMemcpyHostToDevice, stream));
      // Busy host work between syncs, as a training loop's Python would do.
      volatile double acc = 0;
      for (int k = 0; k < 20000; ++k) acc = acc + k * 1e-9;
    }
  });
  EXAMPLE_CHECK(cudaStreamDestroy(stream));
  EXAMPLE_CHECK(cudaFree(out));
  EXAMPLE_CHECK(cudaFree(x));
  return 0;
}
