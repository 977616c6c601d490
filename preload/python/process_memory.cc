#include "preload/python/process_memory.h"

#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

#include "preload/own_io.h"

namespace feedprof::preload::python {
namespace {

// A value whose address is known to be readable, to test a method.
const uint64_t kProbe = 0x66656564707266ULL;

}  // namespace

SafeMemory::~SafeMemory() { Close(); }

void SafeMemory::Close() {
  if (own_fd_ && mem_fd_ >= 0) close(mem_fd_);
  mem_fd_ = -1;
  own_fd_ = false;
  method_ = Method::kNone;
}

bool SafeMemory::Open(int proc_mem_fd) {
  Close();
  pid_ = static_cast<int>(syscall(SYS_getpid));
  const auto probe = reinterpret_cast<uint64_t>(&kProbe);
  uint64_t value = 0;
  method_ = Method::kProcessVmReadv;
  if (Read(probe, &value, sizeof value) && value == kProbe) return true;
  mem_fd_ = proc_mem_fd;
  if (mem_fd_ < 0) {
    mem_fd_ = open("/proc/self/mem", O_RDONLY | O_CLOEXEC);
    own_fd_ = mem_fd_ >= 0;
  }
  method_ = Method::kProcMem;
  value = 0;
  if (mem_fd_ >= 0 && Read(probe, &value, sizeof value) && value == kProbe) {
    return true;
  }
  Close();
  why_ =
      "neither process_vm_readv nor /proc/self/mem may read this process's "
      "memory (a seccomp profile or a hardened kernel)";
  return false;
}

bool SafeMemory::ReopenAfterFork() {
  if (own_fd_ && mem_fd_ >= 0) close(mem_fd_);
  mem_fd_ = -1;
  own_fd_ = false;
  return Open();
}

size_t SafeMemory::ReadPrefix(uint64_t address, void* out, size_t size) const {
  if (address == 0 || size == 0) return 0;
  if (method_ == Method::kProcessVmReadv) {
    iovec local{out, size};
    iovec remote{reinterpret_cast<void*>(address), size};
    const ssize_t n = process_vm_readv(pid_, &local, 1, &remote, 1, 0);
    return n > 0 ? static_cast<size_t>(n) : 0;
  }
  if (method_ == Method::kProcMem) {
    // The file offset is the address; addresses above 2^63 are not user
    // memory.
    if (address > static_cast<uint64_t>(INT64_MAX)) return 0;
    const ssize_t n = OwnPread(mem_fd_, out, size, static_cast<off_t>(address));
    return n > 0 ? static_cast<size_t>(n) : 0;
  }
  return 0;
}

bool SafeMemory::Read(uint64_t address, void* out, size_t size) const {
  return ReadPrefix(address, out, size) == size;
}

size_t SafeMemory::ReadMany(const iovec* local, const iovec* remote,
                            size_t n) const {
  if (n == 0) return 0;
  if (method_ == Method::kProcessVmReadv) {
    const ssize_t got = process_vm_readv(pid_, local, n, remote, n, 0);
    if (got <= 0) return 0;
    // Whole reads from the first: the kernel stops at the first failure.
    size_t done = 0;
    size_t left = static_cast<size_t>(got);
    while (done < n && left >= local[done].iov_len) {
      left -= local[done].iov_len;
      ++done;
    }
    return done;
  }
  size_t done = 0;
  while (done < n && Read(reinterpret_cast<uint64_t>(remote[done].iov_base),
                          local[done].iov_base, local[done].iov_len)) {
    ++done;
  }
  return done;
}

}  // namespace feedprof::preload::python
