// launch_bound: thousands of tiny kernels per step. Each kernel runs for a
// few microseconds, less than its own launch call, so the GPU idles between
// kernels while the host is busy submitting them.
//
// --fixed: the fix the verdict names, a CUDA graph. The step's 4000 launches
// are captured once, before the steps, and each step replays them with one
// cudaGraphLaunch: the same kernels on the same data in the same order, for
// one launch call instead of 4000.
#include "example_common.h"

__global__ void TinyAdd(float* x, int n, float v) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += v;
}

namespace {

constexpr example::ExampleInfo kInfo{
    "launch_bound", 20,
    "the step's 4000 launches captured once in a CUDA graph, replayed with one "
    "cudaGraphLaunch a step"};
constexpr int kWarmup = 2;
constexpr int kLaunchesPerStep = 4000;

void LaunchStep(float* x, int n, cudaStream_t stream) {
  for (int k = 0; k < kLaunchesPerStep; ++k) {
    TinyAdd<<<4, 256, 0, stream>>>(x, n, 1e-3f);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const example::Args args = example::ArgsOrExit(argc, argv, kInfo);
  const int n = 1024;
  float* x = nullptr;
  EXAMPLE_CHECK(cudaMalloc(&x, n * sizeof(float)));
  EXAMPLE_CHECK(cudaMemset(x, 0, n * sizeof(float)));
  if (args.variant == example::Variant::kAsIs) {
    example::RunSteps(kInfo, args, kWarmup, [&](int) {
      LaunchStep(x, n, /*stream=*/nullptr);
      EXAMPLE_CHECK(cudaGetLastError());
      EXAMPLE_CHECK(cudaDeviceSynchronize());
    });
  } else {
    // Stream capture needs a stream other than the legacy default one.
    cudaStream_t stream;
    EXAMPLE_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    cudaGraph_t graph;
    EXAMPLE_CHECK(
        cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    LaunchStep(x, n, stream);
    EXAMPLE_CHECK(cudaStreamEndCapture(stream, &graph));
    EXAMPLE_CHECK(cudaGetLastError());
    cudaGraphExec_t step_graph;
    EXAMPLE_CHECK(cudaGraphInstantiate(&step_graph, graph, 0));
    example::RunSteps(kInfo, args, kWarmup, [&](int) {
      EXAMPLE_CHECK(cudaGraphLaunch(step_graph, stream));
      EXAMPLE_CHECK(cudaDeviceSynchronize());
    });
    EXAMPLE_CHECK(cudaGraphExecDestroy(step_graph));
    EXAMPLE_CHECK(cudaGraphDestroy(graph));
    EXAMPLE_CHECK(cudaStreamDestroy(stream));
  }
  EXAMPLE_CHECK(cudaFree(x));
  return 0;
}
