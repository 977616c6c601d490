// A thread of the library with a descriptor table of its own: what it
// opens never takes a number in the program's table, what it keeps still
// works, and what the program closes is not kept open behind its back.
#include "preload/private_fd_table.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <thread>

namespace feedprof::preload {
namespace {

bool IsOpen(int fd) { return fcntl(fd, F_GETFD) >= 0; }

TEST(PrivateDescriptorTable, KeepsOnlyWhatItIsToldAndLeavesTheProgramAlone) {
  int program_pipe[2];
  ASSERT_EQ(pipe(program_pipe), 0);
  int kept_pipe[2];
  ASSERT_EQ(pipe(kept_pipe), 0);

  bool privatized = false;
  bool program_pipe_closed_in_thread = false;
  bool kept_usable = false;
  bool stdout_closed_in_thread = false;
  int opened_in_thread = -1;
  std::thread thread([&] {
    const int keep[] = {kept_pipe[1], -1};
    privatized = UsePrivateDescriptorTable(keep, 2);
    if (!privatized) return;
    program_pipe_closed_in_thread =
        !IsOpen(program_pipe[0]) && !IsOpen(program_pipe[1]);
    stdout_closed_in_thread = !IsOpen(1);
    kept_usable = write(kept_pipe[1], "k", 1) == 1;
    // The lowest free number of this table: 0, which the program holds.
    opened_in_thread = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
    if (opened_in_thread >= 0) close(opened_in_thread);
  });
  thread.join();
  if (!privatized) {
    GTEST_SKIP() << "unshare(CLONE_FILES) is refused here (seccomp?)";
  }
  EXPECT_TRUE(program_pipe_closed_in_thread);
  EXPECT_TRUE(stdout_closed_in_thread);
  EXPECT_TRUE(kept_usable);
  EXPECT_EQ(opened_in_thread, 0);

  // The program's table is untouched.
  EXPECT_TRUE(IsOpen(0));
  EXPECT_TRUE(IsOpen(1));
  EXPECT_TRUE(IsOpen(program_pipe[0]));
  EXPECT_TRUE(IsOpen(kept_pipe[1]));
  char c = 0;
  ASSERT_EQ(read(kept_pipe[0], &c, 1), 1);
  EXPECT_EQ(c, 'k');

  // Closing the program's write end gives its reader EOF: no copy of it
  // outlived the thread's start.
  close(program_pipe[1]);
  pollfd pfd{program_pipe[0], POLLIN, 0};
  ASSERT_EQ(poll(&pfd, 1, 1000), 1);
  EXPECT_EQ(read(program_pipe[0], &c, 1), 0);
  for (int fd : {program_pipe[0], kept_pipe[0], kept_pipe[1]}) close(fd);
}

// A process under a seccomp filter must not unshare: the filter may kill
// it for a call it does not list. Checked in a child that installs an
// allow-everything filter.
TEST(PrivateDescriptorTable, SeesASeccompFilter) {
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    sock_filter allow[] = {BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)};
    sock_fprog program{1, allow};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
        prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) != 0) {
      _exit(2);
    }
    _exit(SeccompFilterActive() ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  if (WEXITSTATUS(status) == 2) GTEST_SKIP() << "cannot install a filter here";
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
}  // namespace feedprof::preload
