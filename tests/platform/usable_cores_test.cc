// UsableCoresOf on a constructed server (cgroup v2): the affinity mask's
// CPUs when no quota is tighter, a job's fractional quota rounded up, a
// parent's quota capping its child, at least one core; and UsableCores in
// a process pinned to one CPU.
#include "platform/usable_cores.h"

#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gtest/gtest.h"
#include "tests/platform/machine_tree.h"

namespace feedprof::testing {
namespace {

using platform::MachineRoot;
using platform::UsableCoresOf;

const std::string kJob = "sys/fs/cgroup/user.slice/job-7/";

TEST(UsableCores, TheAffinityMaskWithoutAQuota) {
  MachineTree t;  // cpu.max "max 100000" at every level
  EXPECT_EQ(UsableCoresOf(MachineRoot(t.root()), "/proc/self", 16), 16u);
  EXPECT_EQ(UsableCoresOf(MachineRoot(t.root()), "/proc/self", 3), 3u);
}

TEST(UsableCores, AQuotaBelowTheMaskRoundedUp) {
  MachineTree t;
  // 2.5 CPUs of quota on a 16-CPU mask: 3 threads, each busy part time.
  t.Write(kJob + "cpu.max", "250000 100000\n");
  EXPECT_EQ(UsableCoresOf(MachineRoot(t.root()), "/proc/self", 16), 3u);
  // Exactly 4 CPUs: 4.
  t.Write(kJob + "cpu.max", "400000 100000\n");
  EXPECT_EQ(UsableCoresOf(MachineRoot(t.root()), "/proc/self", 16), 4u);
  // A quota above the mask leaves the mask.
  t.Write(kJob + "cpu.max", "3200000 100000\n");
  EXPECT_EQ(UsableCoresOf(MachineRoot(t.root()), "/proc/self", 16), 16u);
}

TEST(UsableCores, AParentsQuotaCapsTheJob) {
  MachineTree t;
  t.Write("sys/fs/cgroup/user.slice/cpu.max", "200000 100000\n");
  t.Write(kJob + "cpu.max", "800000 100000\n");
  EXPECT_EQ(UsableCoresOf(MachineRoot(t.root()), "/proc/self", 16), 2u);
}

TEST(UsableCores, AtLeastOneCore) {
  MachineTree t;
  t.Write(kJob + "cpu.max", "10000 100000\n");  // a tenth of a CPU
  EXPECT_EQ(UsableCoresOf(MachineRoot(t.root()), "/proc/self", 16), 1u);
  EXPECT_EQ(UsableCoresOf(MachineRoot(t.root()), "/proc/self", 0), 1u);
}

TEST(UsableCores, ACgroupThatCannotBeReadLeavesTheMask) {
  MachineTree t;
  t.Remove("proc/self/cgroup");
  EXPECT_EQ(UsableCoresOf(MachineRoot(t.root()), "/proc/self", 6), 6u);
}

// The live process: pinned to one CPU (as `taskset -c 0` would), it uses
// one core whatever the machine has. Run in a child, whose first call
// reads its own mask.
TEST(UsableCores, APinnedProcessUsesOneCore) {
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(0, &one);
    if (sched_setaffinity(0, sizeof(one), &one) != 0) _exit(2);
    _exit(platform::UsableCores() == 1 ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0)
      << "a process pinned to CPU 0 counted more than one usable core";
}

}  // namespace
}  // namespace feedprof::testing
