// sync_bound: every iteration reads a 4-byte result back with a synchronous
// copy and a stream sync, allocates and frees a scratch buffer, and copies
// from pageable memory with cudaMemcpyAsync (which blocks the host while it
// stages the data). Each of these drains the GPU queue, so the GPU idles
// while the host is inside them; without them the host would run ahead.
//
// The kernel is sized at start to about 20 µs on the GPU at hand, and the
// host's own work per iteration (a few µs, done while the kernel runs) stays
// shorter than that, so on any GPU it is the syncs, not the kernel or the
// host's computing, that decide the step.
#include <algorithm>
#include <vector>

#include "example_common.h"

__global__ void Work(float* x, int n, int iters) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i];
  for (int k = 0; k < iters; ++k) v = v * 0.999f + 0.001f;
  x[i] = v;
}

// One warp sums a strided sample of x: a readback-sized result.
__global__ void Reduce(const float* x, int n, float* out) {
  float s = 0;
  for (int i = static_cast<int>(threadIdx.x) * 997; i < n; i += 32 * 997) {
    s += x[i];
  }
  for (int offset = 16; offset > 0; offset /= 2) {
    s += __shfl_down_sync(0xffffffffu, s, offset);
  }
  if (threadIdx.x == 0) *out = s;
}

// Iterations of Work that take about `target_us` on this GPU.
int CalibrateWork(float* x, int n, cudaStream_t stream, double target_us) {
  cudaEvent_t begin, end;
  EXAMPLE_CHECK(cudaEventCreate(&begin));
  EXAMPLE_CHECK(cudaEventCreate(&end));
  const int probe_iters = 1024;
  float best_ms = 1e9f;
  for (int round = 0; round < 5; ++round) {
    EXAMPLE_CHECK(cudaEventRecord(begin, stream));
    Work<<<(n + 255) / 256, 256, 0, stream>>>(x, n, probe_iters);
    EXAMPLE_CHECK(cudaEventRecord(end, stream));
    EXAMPLE_CHECK(cudaEventSynchronize(end));
    float ms = 0;
    EXAMPLE_CHECK(cudaEventElapsedTime(&ms, begin, end));
    best_ms = std::min(best_ms, ms);
  }
  EXAMPLE_CHECK(cudaEventDestroy(begin));
  EXAMPLE_CHECK(cudaEventDestroy(end));
  const double per_iter_us = 1000.0 * best_ms / probe_iters;
  return std::clamp(static_cast<int>(target_us / per_iter_us), 8, 1 << 16);
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
  const int iters = CalibrateWork(x, n, stream, 20.0);
  example::RunSteps("sync_bound", 2, steps, [&](int) {
    for (int it = 0; it < 50; ++it) {
      Work<<<(n + 255) / 256, 256, 0, stream>>>(x, n, iters);
      Reduce<<<1, 32, 0, stream>>>(x, n, out);
      // Host work while the kernels run, as a training loop's Python
      // would do: shorter than the kernel, so it hides behind it.
      volatile double acc = 0;
      for (int k = 0; k < 1000; ++k) acc = acc + k * 1e-9;
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
    }
  });
  EXAMPLE_CHECK(cudaStreamDestroy(stream));
  EXAMPLE_CHECK(cudaFree(out));
  EXAMPLE_CHECK(cudaFree(x));
  return 0;
}
