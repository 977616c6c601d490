// Reads of this process's memory that cannot fault.
//
// The sampler reads other threads' Python frames while those threads run:
// a frame may be popped, and the memory under a pointer just read freed and
// unmapped, between two reads. A plain load there would crash the host, so
// these reads go through the kernel, which returns an error instead:
// process_vm_readv on the own pid, else pread on /proc/self/mem. Where
// neither is allowed (a seccomp profile, a kernel without them) the memory
// is unreadable and the caller records no stacks.
//
// DirectMemory is the other kind, for a thread reading its own frames,
// which nobody else changes while it sits in a call: plain copies.
#ifndef FEEDPROF_PRELOAD_PYTHON_PROCESS_MEMORY_H_
#define FEEDPROF_PRELOAD_PYTHON_PROCESS_MEMORY_H_

#include <sys/uio.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace feedprof::preload::python {

class SafeMemory {
 public:
  enum class Method : uint8_t { kNone, kProcessVmReadv, kProcMem };

  SafeMemory() = default;
  ~SafeMemory();
  SafeMemory(const SafeMemory&) = delete;
  SafeMemory& operator=(const SafeMemory&) = delete;

  // Picks the first method that can read a known variable. False (with
  // the reason in why()) when none can. `proc_mem_fd` is an open
  // /proc/self/mem descriptor the caller keeps (-1: open one here).
  bool Open(int proc_mem_fd = -1);
  void Close();
  Method method() const { return method_; }
  const char* why() const { return why_; }

  // Copies `size` bytes at `address` into `out`; false unless all were read.
  bool Read(uint64_t address, void* out, size_t size) const;
  // Reads as much of [address, address + size) as is readable from its
  // start; returns the number of bytes read.
  size_t ReadPrefix(uint64_t address, void* out, size_t size) const;
  // Several independent reads in one system call where the method allows;
  // returns how many of them, from the first, were read completely.
  size_t ReadMany(const iovec* local, const iovec* remote, size_t n) const;

  // In the child of a fork: the pid changed and /proc/self/mem is the
  // parent's; picks the method again.
  bool ReopenAfterFork();

 private:
  Method method_ = Method::kNone;
  int pid_ = 0;
  int mem_fd_ = -1;
  bool own_fd_ = false;
  const char* why_ = "";
};

class DirectMemory {
 public:
  bool Read(uint64_t address, void* out, size_t size) const {
    if (address == 0) return false;
    std::memcpy(out, reinterpret_cast<const void*>(address), size);
    return true;
  }
};

}  // namespace feedprof::preload::python

#endif  // FEEDPROF_PRELOAD_PYTHON_PROCESS_MEMORY_H_
