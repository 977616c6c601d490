// preprocessing_bound: worker threads "decode" every batch on the CPU
// (a compute-heavy loop per byte) before it is copied and processed by a
// short kernel. The GPU waits for the next batch while CPU cores are busy
// in user time.
#include <thread>
#include <vector>

#include "example_common.h"

__global__ void Consume(const unsigned char* in, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * (1.0f / 255.0f);
}

namespace {

// CPU decode of one slice: deliberately expensive per byte.
void Decode(unsigned char* dst, int begin, int end, int seed) {
  for (int i = begin; i < end; ++i) {
    unsigned v = static_cast<unsigned>(i * 2654435761u + seed);
    for (int k = 0; k < 40; ++k) v = v * 1664525u + 1013904223u;
    dst[i] = static_cast<unsigned char>(v >> 24);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int steps = example::StepsFromArgs(argc, argv, 10);
  const int n = 4 << 20;
  const int workers = 2;
  unsigned char* pinned = nullptr;
  EXAMPLE_CHECK(cudaMallocHost(&pinned, n));
  unsigned char* dev_in = nullptr;
  float* dev_out = nullptr;
  EXAMPLE_CHECK(cudaMalloc(&dev_in, n));
  EXAMPLE_CHECK(cudaMalloc(&dev_out, n * sizeof(float)));
  example::RunSteps("preprocessing_bound", 1, steps, [&](int step) {
    std::vector<std::thread> pool;
    for (int w = 0; w < workers; ++w) {
      pool.emplace_back(Decode, pinned, w * n / workers, (w + 1) * n / workers,
                        step);
    }
    for (auto& t : pool) t.join();
    EXAMPLE_CHECK(cudaMemcpy(dev_in, pinned, n, cudaMemcpyHostToDevice));
    Consume<<<(n + 255) / 256, 256>>>(dev_in, dev_out, n);
    EXAMPLE_CHECK(cudaGetLastError());
    EXAMPLE_CHECK(cudaDeviceSynchronize());
  });
  EXAMPLE_CHECK(cudaFree(dev_out));
  EXAMPLE_CHECK(cudaFree(dev_in));
  EXAMPLE_CHECK(cudaFreeHost(pinned));
  return 0;
}
