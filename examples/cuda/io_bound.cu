// io_bound: each step reads its batch from a file whose pages were dropped
// from the page cache (posix_fadvise DONTNEED after an fsync), so the read
// goes to storage while the GPU waits. The read bypasses the page cache
// (O_DIRECT into the page-aligned pinned buffer) where the file system
// allows it, so the input thread waits off-CPU in I/O rather than copying
// in the kernel, on fast virtual disks too; elsewhere (tmpfs) it reads
// through the cache.
#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "example_common.h"

__global__ void Consume(const unsigned char* in, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * 0.5f;
}

int main(int argc, char** argv) {
  const int steps = example::StepsFromArgs(argc, argv, 8);
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
  unsigned char* pinned = nullptr;
  EXAMPLE_CHECK(cudaMallocHost(&pinned, n));
  unsigned char* dev_in = nullptr;
  float* dev_out = nullptr;
  EXAMPLE_CHECK(cudaMalloc(&dev_in, n));
  EXAMPLE_CHECK(cudaMalloc(&dev_out, n * sizeof(float)));
  example::RunSteps("io_bound", 1, steps, [&](int) {
    int fd = open(path.c_str(), O_RDONLY | O_DIRECT);
    if (fd < 0) fd = open(path.c_str(), O_RDONLY);
    if (fd < 0) std::exit(1);
    posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);  // force a cold read
    ssize_t got = 0;
    while (got < n) {
      const ssize_t r = read(fd, pinned + got, n - got);
      if (r <= 0) break;
      got += r;
    }
    close(fd);
    EXAMPLE_CHECK(cudaMemcpy(dev_in, pinned, n, cudaMemcpyHostToDevice));
    Consume<<<(n + 255) / 256, 256>>>(dev_in, dev_out, n);
    EXAMPLE_CHECK(cudaGetLastError());
    EXAMPLE_CHECK(cudaDeviceSynchronize());
  });
  unlink(path.c_str());
  EXAMPLE_CHECK(cudaFree(dev_out));
  EXAMPLE_CHECK(cudaFree(dev_in));
  EXAMPLE_CHECK(cudaFreeHost(pinned));
  return 0;
}
