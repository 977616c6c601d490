// preprocessing_bound: worker threads "decode" every batch on the CPU
// (a compute-heavy loop per byte) before it is copied and processed by a
// short kernel. The GPU waits for the next batch while CPU cores are busy
// in user time.
//
// --fixed: the fix the verdict names, the next batches prepared on other
// threads while the GPU runs the current one. A pool of producer threads,
// one per spare core, each decodes whole batches ahead of the loop into its
// own pinned slot (BatchRing: at most one batch a slot ahead, handed over in
// order); the loop only copies, computes and hands the slot back. The same
// batches (the same decode of the same seeds), copies and kernels.
#include <algorithm>
#include <thread>
#include <vector>

#include "batch_ring.h"
#include "example_common.h"

__global__ void Consume(const unsigned char* in, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * (1.0f / 255.0f);
}

namespace {

constexpr example::ExampleInfo kInfo{
    "preprocessing_bound", 10,
    "a pool of producer threads (one per spare core) decoding whole batches "
    "ahead into pinned slots, handed to the loop in order"};
constexpr int kWarmup = 1;
constexpr int kWorkers = 2;  // the unfixed loop's decode threads

// CPU decode of one slice: deliberately expensive per byte.
void Decode(unsigned char* dst, int begin, int end, int seed) {
  for (int i = begin; i < end; ++i) {
    unsigned v = static_cast<unsigned>(i * 2654435761u + seed);
    for (int k = 0; k < 40; ++k) v = v * 1664525u + 1013904223u;
    dst[i] = static_cast<unsigned char>(v >> 24);
  }
}

void CopyAndConsume(const unsigned char* batch, unsigned char* dev_in,
                    float* dev_out, int n) {
  EXAMPLE_CHECK(cudaMemcpy(dev_in, batch, n, cudaMemcpyHostToDevice));
  Consume<<<(n + 255) / 256, 256>>>(dev_in, dev_out, n);
  EXAMPLE_CHECK(cudaGetLastError());
  EXAMPLE_CHECK(cudaDeviceSynchronize());
}

// Producers for the fixed loop: every core but two (the loop's thread and
// one for the rest of the system), at least the unfixed loop's two.
int ProducerThreads() {
  const int cores = static_cast<int>(std::thread::hardware_concurrency());
  return std::clamp(cores - 2, kWorkers, 32);
}

}  // namespace

int main(int argc, char** argv) {
  const example::Args args = example::ArgsOrExit(argc, argv, kInfo);
  const int n = 4 << 20;
  unsigned char* dev_in = nullptr;
  float* dev_out = nullptr;
  if (args.variant == example::Variant::kAsIs) {
    unsigned char* pinned = nullptr;
    EXAMPLE_CHECK(cudaMallocHost(&pinned, n));
    EXAMPLE_CHECK(cudaMalloc(&dev_in, n));
    EXAMPLE_CHECK(cudaMalloc(&dev_out, n * sizeof(float)));
    example::RunSteps(kInfo, args, kWarmup, [&](int step) {
      std::vector<std::thread> pool;
      for (int w = 0; w < kWorkers; ++w) {
        pool.emplace_back(Decode, pinned, w * n / kWorkers,
                          (w + 1) * n / kWorkers, step);
      }
      for (auto& t : pool) t.join();
      CopyAndConsume(pinned, dev_in, dev_out, n);
    });
    EXAMPLE_CHECK(cudaFree(dev_out));
    EXAMPLE_CHECK(cudaFree(dev_in));
    EXAMPLE_CHECK(cudaFreeHost(pinned));
  } else {
    const int producers = ProducerThreads();
    std::vector<unsigned char*> slots(static_cast<size_t>(producers), nullptr);
    for (unsigned char*& slot : slots) EXAMPLE_CHECK(cudaMallocHost(&slot, n));
    EXAMPLE_CHECK(cudaMalloc(&dev_in, n));
    EXAMPLE_CHECK(cudaMalloc(&dev_out, n * sizeof(float)));
    // Batch b is the unfixed loop's call b: seeded, as there, with its step
    // index, which starts again at 0 after the warm-up.
    const int batches = kWarmup + args.steps;
    {
      example::BatchRing ring(
          batches, producers, producers, [&](int batch, int slot) {
            const int seed = batch < kWarmup ? batch : batch - kWarmup;
            Decode(slots[static_cast<size_t>(slot)], 0, n, seed);
          });
      int batch = 0;
      example::RunSteps(kInfo, args, kWarmup, [&](int) {
        const int slot = ring.Acquire(batch);
        CopyAndConsume(slots[static_cast<size_t>(slot)], dev_in, dev_out, n);
        ring.Release(batch);
        ++batch;
      });
    }
    EXAMPLE_CHECK(cudaFree(dev_out));
    EXAMPLE_CHECK(cudaFree(dev_in));
    for (unsigned char* slot : slots) EXAMPLE_CHECK(cudaFreeHost(slot));
  }
  return 0;
}
