// io_bound: each step reads its batch from a file whose pages were dropped
// from the page cache (posix_fadvise DONTNEED after an fsync), so the read
// goes to storage while the GPU waits. The read bypasses the page cache
// (O_DIRECT into the page-aligned pinned buffer) where the file system
// allows it, so the input thread waits off-CPU in I/O rather than copying
// in the kernel, on fast virtual disks too; elsewhere (tmpfs) it reads
// through the cache.
//
// --fixed: the fix the verdict names, prefetching. A reader thread reads the
// next batch into the other of two pinned buffers (BatchRing) while the loop
// copies and computes the current one, so the loop waits only for what the
// read has not finished by then. The same reads (cold, of the same file),
// copies and kernels.
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "batch_ring.h"
#include "example_common.h"

__global__ void Consume(const unsigned char* in, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * 0.5f;
}

namespace {

constexpr example::ExampleInfo kInfo{
    "io_bound", 8,
    "a reader thread reading the next batch into the other of two pinned "
    "buffers while the current one is copied and computed"};
constexpr int kWarmup = 1;
constexpr int kReaders = 1;  // one reader thread ...
constexpr int kBuffers = 2;  // ... one batch ahead of the loop

// One batch: the whole file, read cold into `dst` (page-aligned).
void ReadBatch(const std::string& path, unsigned char* dst, int n) {
  int fd = open(path.c_str(), O_RDONLY | O_DIRECT);
  if (fd < 0) fd = open(path.c_str(), O_RDONLY);
  if (fd < 0) {
    std::perror("io_bound: cannot open the input file");
    std::exit(1);
  }
  posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);  // force a cold read
  ssize_t got = 0;
  while (got < n) {
    const ssize_t r = read(fd, dst + got, n - got);
    if (r <= 0) break;
    got += r;
  }
  close(fd);
}

void CopyAndConsume(const unsigned char* batch, unsigned char* dev_in,
                    float* dev_out, int n) {
  EXAMPLE_CHECK(cudaMemcpy(dev_in, batch, n, cudaMemcpyHostToDevice));
  Consume<<<(n + 255) / 256, 256>>>(dev_in, dev_out, n);
  EXAMPLE_CHECK(cudaGetLastError());
  EXAMPLE_CHECK(cudaDeviceSynchronize());
}

}  // namespace

int main(int argc, char** argv) {
  const example::Args args = example::ArgsOrExit(argc, argv, kInfo);
  const int n = 64 << 20;
  const char* dir = std::getenv("TMPDIR");
  std::string path = std::string(dir ? dir : "/tmp") + "/feedprof_io_bound.bin";
  {
    std::vector<unsigned char> block(n, 7);
    const int fd = open(path.c_str(), O_CREAT | O_TRUNC | O_WRONLY, 0600);
    if (fd < 0 || write(fd, block.data(), n) != n || fsync(fd) != 0) {
      std::perror("io_bound: cannot write the input file");
      return 1;
    }
    close(fd);
  }
  const int buffers = args.variant == example::Variant::kFixed ? kBuffers : 1;
  std::vector<unsigned char*> pinned(static_cast<size_t>(buffers), nullptr);
  for (unsigned char*& p : pinned) EXAMPLE_CHECK(cudaMallocHost(&p, n));
  unsigned char* dev_in = nullptr;
  float* dev_out = nullptr;
  EXAMPLE_CHECK(cudaMalloc(&dev_in, n));
  EXAMPLE_CHECK(cudaMalloc(&dev_out, n * sizeof(float)));
  if (args.variant == example::Variant::kAsIs) {
    example::RunSteps(kInfo, args, kWarmup, [&](int) {
      ReadBatch(path, pinned[0], n);
      CopyAndConsume(pinned[0], dev_in, dev_out, n);
    });
  } else {
    example::BatchRing ring(
        kWarmup + args.steps, kBuffers, kReaders, [&](int, int slot) {
          ReadBatch(path, pinned[static_cast<size_t>(slot)], n);
        });
    int batch = 0;
    example::RunSteps(kInfo, args, kWarmup, [&](int) {
      const int slot = ring.Acquire(batch);
      CopyAndConsume(pinned[static_cast<size_t>(slot)], dev_in, dev_out, n);
      ring.Release(batch);
      ++batch;
    });
  }
  unlink(path.c_str());
  EXAMPLE_CHECK(cudaFree(dev_out));
  EXAMPLE_CHECK(cudaFree(dev_in));
  for (unsigned char* p : pinned) EXAMPLE_CHECK(cudaFreeHost(p));
  return 0;
}
