// Reads that cannot fault: valid memory reads back, unmapped memory is
// refused instead of crashing, and where a seccomp filter forbids both
// process_vm_readv and /proc/self/mem the reader says so and reads nothing.
#include "preload/python/process_memory.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

namespace feedprof::preload::python {
namespace {

TEST(SafeMemoryTest, ReadsMappedAndRefusesUnmappedMemory) {
  SafeMemory memory;
  ASSERT_TRUE(memory.Open()) << memory.why();
  EXPECT_EQ(memory.method(), SafeMemory::Method::kProcessVmReadv);
  const char text[] = "frames of another thread";
  char out[sizeof text] = {};
  ASSERT_TRUE(memory.Read(reinterpret_cast<uint64_t>(text), out, sizeof out));
  EXPECT_STREQ(out, text);

  const long page = sysconf(_SC_PAGESIZE);
  void* mapped =
      mmap(nullptr, static_cast<size_t>(page) * 2, PROT_READ | PROT_WRITE,
           MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(mapped, MAP_FAILED);
  auto* second = static_cast<char*>(mapped) + page;
  std::memset(mapped, 'a', static_cast<size_t>(page) * 2);
  ASSERT_EQ(munmap(second, static_cast<size_t>(page)), 0);
  const auto base = reinterpret_cast<uint64_t>(mapped);
  // Freed memory: an error, not a crash.
  EXPECT_FALSE(memory.Read(base + static_cast<uint64_t>(page), out, 8));
  EXPECT_FALSE(memory.Read(0, out, 8));
  // A read that runs into it: the readable prefix only.
  char span[64];
  EXPECT_FALSE(
      memory.Read(base + static_cast<uint64_t>(page) - 16, span, sizeof span));
  EXPECT_EQ(memory.ReadPrefix(base + static_cast<uint64_t>(page) - 16, span,
                              sizeof span),
            16u);
  // Batched: whole reads from the first, up to the first that fails.
  char a[8], b[8], c[8];
  iovec local[] = {{a, 8}, {b, 8}, {c, 8}};
  iovec remote[] = {
      {mapped, 8}, {second, 8}, {static_cast<char*>(mapped) + 8, 8}};
  EXPECT_EQ(memory.ReadMany(local, remote, 3), 1u);
  munmap(mapped, static_cast<size_t>(page));
}

// Installs a seccomp filter on this process that fails system call `nr`
// with EPERM.
bool DenySyscall(long nr) {
  sock_filter filter[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, static_cast<uint32_t>(nr), 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  sock_fprog program{sizeof filter / sizeof filter[0], filter};
  return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) == 0;
}

TEST(SafeMemoryTest, FallsBackToProcMemAndGivesUpUnderSeccomp) {
  // In a child: the filter stays with the process that installs it.
  int pipe_fds[2];
  ASSERT_EQ(pipe(pipe_fds), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    close(pipe_fds[0]);
    std::string result;
    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
    // process_vm_readv refused: /proc/self/mem is used instead.
    if (!DenySyscall(SYS_process_vm_readv)) {
      result = "no seccomp";
    } else {
      SafeMemory memory;
      const bool open = memory.Open();
      result += open && memory.method() == SafeMemory::Method::kProcMem
                    ? "procmem "
                    : "not-procmem ";
      // Then pread refused too: nothing can be read.
      DenySyscall(SYS_pread64);
      SafeMemory refused;
      const bool opened = refused.Open();
      result += opened ? "opened" : std::string("refused:") + refused.why();
    }
    (void)!write(pipe_fds[1], result.data(), result.size());
    _exit(0);
  }
  close(pipe_fds[1]);
  char buf[512] = {};
  const ssize_t n = read(pipe_fds[0], buf, sizeof buf - 1);
  close(pipe_fds[0]);
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_GT(n, 0);
  const std::string result(buf);
  if (result == "no seccomp") GTEST_SKIP() << "seccomp filters unavailable";
  EXPECT_EQ(result.substr(0, 8), "procmem ") << result;
  EXPECT_NE(result.find("refused:"), std::string::npos) << result;
  EXPECT_NE(result.find("seccomp"), std::string::npos) << result;
}

}  // namespace
}  // namespace feedprof::preload::python
