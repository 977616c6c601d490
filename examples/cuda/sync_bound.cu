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
//
// --fixed: no synchronization inside the step. Each result is copied back
// with cudaMemcpyAsync into pinned memory and read once the step's single
// stream sync has passed; the scratch buffer is allocated once, before the
// steps; the input is copied from a pinned buffer, so the copy is truly
// async. The same kernels, copies and results, in the same order on the
// same stream; the host now runs ahead of the GPU instead of draining its
// queue four times an iteration.
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

namespace {

constexpr example::ExampleInfo kInfo{
    "sync_bound", 30,
    "no sync inside the step: results copied back asynchronously into pinned "
    "memory and read after one stream sync a step, scratch allocated once, "
    "input copied from pinned memory"};
constexpr int kWarmup = 2;
constexpr int kIterations = 50;  // per step

// Host work while the kernels run, as a training loop's Python would do:
// shorter than the kernel, so it hides behind it.
void HostWork() {
  volatile double acc = 0;
  for (int k = 0; k < 1000; ++k) acc = acc + k * 1e-9;
}

}  // namespace

int main(int argc, char** argv) {
  const example::Args args = example::ArgsOrExit(argc, argv, kInfo);
  const int n = 1 << 20;
  float *x = nullptr, *out = nullptr;
  EXAMPLE_CHECK(cudaMalloc(&x, n * sizeof(float)));
  EXAMPLE_CHECK(cudaMalloc(&out, sizeof(float)));
  EXAMPLE_CHECK(cudaMemset(x, 0, n * sizeof(float)));
  std::vector<float> pageable(1 << 16, 1.0f);
  const size_t input_bytes = pageable.size() * sizeof(float);
  cudaStream_t stream;
  EXAMPLE_CHECK(cudaStreamCreate(&stream));
  const int iters = CalibrateWork(x, n, stream, 20.0);
  if (args.variant == example::Variant::kAsIs) {
    example::RunSteps(kInfo, args, kWarmup, [&](int) {
      for (int it = 0; it < kIterations; ++it) {
        Work<<<(n + 255) / 256, 256, 0, stream>>>(x, n, iters);
        Reduce<<<1, 32, 0, stream>>>(x, n, out);
        HostWork();
        float host_value = 0;
        // .item()-style readback: synchronous 4-byte D2H copy + stream sync.
        EXAMPLE_CHECK(cudaMemcpy(&host_value, out, sizeof(float),
                                 cudaMemcpyDeviceToHost));
        EXAMPLE_CHECK(cudaStreamSynchronize(stream));
        // Allocation churn in the loop.
        float* scratch = nullptr;
        EXAMPLE_CHECK(cudaMalloc(&scratch, 1 << 20));
        EXAMPLE_CHECK(cudaFree(scratch));
        // "Async" copy from pageable memory: blocks the host.
        EXAMPLE_CHECK(cudaMemcpyAsync(x, pageable.data(), input_bytes,
                                      cudaMemcpyHostToDevice, stream));
      }
    });
  } else {
    float* results = nullptr;  // pinned: one readback per iteration
    EXAMPLE_CHECK(cudaMallocHost(&results, kIterations * sizeof(float)));
    float* input = nullptr;  // pinned copy of the pageable input
    EXAMPLE_CHECK(cudaMallocHost(&input, input_bytes));
    std::copy(pageable.begin(), pageable.end(), input);
    float* scratch = nullptr;
    EXAMPLE_CHECK(cudaMalloc(&scratch, 1 << 20));
    volatile float host_value = 0;
    example::RunSteps(kInfo, args, kWarmup, [&](int) {
      for (int it = 0; it < kIterations; ++it) {
        Work<<<(n + 255) / 256, 256, 0, stream>>>(x, n, iters);
        Reduce<<<1, 32, 0, stream>>>(x, n, out);
        HostWork();
        // Stream-ordered after Reduce, into pinned memory: no wait.
        EXAMPLE_CHECK(cudaMemcpyAsync(&results[it], out, sizeof(float),
                                      cudaMemcpyDeviceToHost, stream));
        EXAMPLE_CHECK(cudaMemcpyAsync(x, input, input_bytes,
                                      cudaMemcpyHostToDevice, stream));
      }
      // The one wait of the step; then the host reads every result, as the
      // unfixed loop does one by one.
      EXAMPLE_CHECK(cudaStreamSynchronize(stream));
      for (int it = 0; it < kIterations; ++it) host_value = results[it];
    });
    EXAMPLE_CHECK(cudaFree(scratch));
    EXAMPLE_CHECK(cudaFreeHost(input));
    EXAMPLE_CHECK(cudaFreeHost(results));
  }
  EXAMPLE_CHECK(cudaStreamDestroy(stream));
  EXAMPLE_CHECK(cudaFree(out));
  EXAMPLE_CHECK(cudaFree(x));
  return 0;
}
