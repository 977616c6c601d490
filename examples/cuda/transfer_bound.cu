// transfer_bound: each step copies a large batch from pageable host memory
// to the device and runs a short kernel on it. The copies dominate the step
// and run at pageable-memory bandwidth, well below the PCIe link.
#include <cstring>
#include <vector>

#include "example_common.h"

__global__ void Scale(float* x, size_t n) {
  const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i < n) x[i] *= 0.5f;
}

int main(int argc, char** argv) {
  const int steps = example::StepsFromArgs(argc, argv, 10);
  const size_t n = size_t{64} << 20;  // 64 Mi floats = 256 MiB
  std::vector<float> host(n);
  std::memset(host.data(), 0, n * sizeof(float));
  float* dev = nullptr;
  EXAMPLE_CHECK(cudaMalloc(&dev, n * sizeof(float)));
  example::RunSteps("transfer_bound", 1, steps, [&](int) {
    EXAMPLE_CHECK(cudaMemcpy(dev, host.data(), n * sizeof(float),
                             cudaMemcpyHostToDevice));
    Scale<<<static_cast<unsigned>((n + 255) / 256), 256>>>(dev, n);
    EXAMPLE_CHECK(cudaGetLastError());
    EXAMPLE_CHECK(cudaDeviceSynchronize());
  });
  EXAMPLE_CHECK(cudaFree(dev));
  return 0;
}
