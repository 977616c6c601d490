// transfer_bound: each step copies a large batch from pageable host memory
// to the device and runs a short kernel on it. The copies dominate the step
// and run at pageable-memory bandwidth, well below the PCIe link.
//
// --fixed: the fix the verdict names, pinned memory and copies overlapped
// with compute. The batch comes from a pinned buffer (cudaMallocHost), so it
// copies at the link's rate without staging, and it is copied one step
// ahead on a second stream into the other of two device buffers: while step
// i's kernel runs on buffer i % 2, batch i + 1 is on its way into the other.
// The same batches, copies and kernels, one copy and one kernel a step; the
// step still ends with a device sync.
#include <cstring>
#include <vector>

#include "example_common.h"

__global__ void Scale(float* x, size_t n) {
  const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i < n) x[i] *= 0.5f;
}

namespace {

constexpr example::ExampleInfo kInfo{
    "transfer_bound", 10,
    "the batch in pinned memory, copied one step ahead on a second stream "
    "into the other of two device buffers while the kernel runs"};
constexpr int kWarmup = 1;

void LaunchScale(float* dev, size_t n, cudaStream_t stream) {
  Scale<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(dev, n);
}

// The fixed loop: double buffering across two streams, ordered by events.
void RunFixed(const example::Args& args, size_t n) {
  const size_t bytes = n * sizeof(float);
  float* pinned = nullptr;
  EXAMPLE_CHECK(cudaMallocHost(&pinned, bytes));
  std::memset(pinned, 0, bytes);
  float* dev[2] = {nullptr, nullptr};
  cudaEvent_t copied[2], consumed[2];
  for (int b = 0; b < 2; ++b) {
    EXAMPLE_CHECK(cudaMalloc(&dev[b], bytes));
    EXAMPLE_CHECK(cudaEventCreateWithFlags(&copied[b], cudaEventDisableTiming));
    EXAMPLE_CHECK(
        cudaEventCreateWithFlags(&consumed[b], cudaEventDisableTiming));
  }
  cudaStream_t copy_stream, compute_stream;
  EXAMPLE_CHECK(cudaStreamCreateWithFlags(&copy_stream, cudaStreamNonBlocking));
  EXAMPLE_CHECK(
      cudaStreamCreateWithFlags(&compute_stream, cudaStreamNonBlocking));
  // Batch `batch` into its buffer, once the kernel that last read that
  // buffer (batch - 2) is done.
  auto copy_batch = [&](int batch) {
    const int b = batch % 2;
    if (batch >= 2) {
      EXAMPLE_CHECK(cudaStreamWaitEvent(copy_stream, consumed[b], 0));
    }
    EXAMPLE_CHECK(cudaMemcpyAsync(dev[b], pinned, bytes, cudaMemcpyHostToDevice,
                                  copy_stream));
    EXAMPLE_CHECK(cudaEventRecord(copied[b], copy_stream));
  };
  // One batch a step, warm-up included; the first is copied before them.
  const int batches = kWarmup + args.steps;
  int batch = 0;
  copy_batch(0);
  example::RunSteps(kInfo, args, kWarmup, [&](int) {
    const int b = batch % 2;
    EXAMPLE_CHECK(cudaStreamWaitEvent(compute_stream, copied[b], 0));
    LaunchScale(dev[b], n, compute_stream);
    EXAMPLE_CHECK(cudaGetLastError());
    EXAMPLE_CHECK(cudaEventRecord(consumed[b], compute_stream));
    if (batch + 1 < batches) copy_batch(batch + 1);
    ++batch;
    EXAMPLE_CHECK(cudaDeviceSynchronize());
  });
  EXAMPLE_CHECK(cudaStreamDestroy(compute_stream));
  EXAMPLE_CHECK(cudaStreamDestroy(copy_stream));
  for (int b = 0; b < 2; ++b) {
    EXAMPLE_CHECK(cudaEventDestroy(consumed[b]));
    EXAMPLE_CHECK(cudaEventDestroy(copied[b]));
    EXAMPLE_CHECK(cudaFree(dev[b]));
  }
  EXAMPLE_CHECK(cudaFreeHost(pinned));
}

}  // namespace

int main(int argc, char** argv) {
  const example::Args args = example::ArgsOrExit(argc, argv, kInfo);
  const size_t n = size_t{64} << 20;  // 64 Mi floats = 256 MiB
  if (args.variant == example::Variant::kFixed) {
    RunFixed(args, n);
    return 0;
  }
  std::vector<float> host(n);
  std::memset(host.data(), 0, n * sizeof(float));
  float* dev = nullptr;
  EXAMPLE_CHECK(cudaMalloc(&dev, n * sizeof(float)));
  example::RunSteps(kInfo, args, kWarmup, [&](int) {
    EXAMPLE_CHECK(cudaMemcpy(dev, host.data(), n * sizeof(float),
                             cudaMemcpyHostToDevice));
    LaunchScale(dev, n, /*stream=*/nullptr);
    EXAMPLE_CHECK(cudaGetLastError());
    EXAMPLE_CHECK(cudaDeviceSynchronize());
  });
  EXAMPLE_CHECK(cudaFree(dev));
  return 0;
}
