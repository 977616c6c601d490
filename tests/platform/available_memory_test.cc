// ReadAvailableMemory on a constructed server: MemAvailable when no cgroup
// limit is tighter, the room under a cgroup v2 memory limit (its inactive
// file cache counted as room), a cgroup over its limit, and nothing known
// when neither file can be read.
#include "platform/available_memory.h"

#include <cstdint>
#include <optional>
#include <string>

#include "gtest/gtest.h"
#include "tests/platform/machine_tree.h"

namespace feedprof::testing {
namespace {

using platform::AvailableMemory;
using platform::MachineRoot;
using platform::ReadAvailableMemory;

constexpr uint64_t kGiB = uint64_t{1} << 30;
const std::string kJob = "sys/fs/cgroup/user.slice/job-7/";

TEST(AvailableMemory, MemAvailableWithoutACgroupLimit) {
  MachineTree t;
  t.SetMeminfo(527280476, 500000000, 30284, 0, 0, 0);  // kB
  const std::optional<AvailableMemory> m =
      ReadAvailableMemory(MachineRoot(t.root()));
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->bytes, uint64_t{500000000} * 1024);
  EXPECT_EQ(m->limited_by, "MemAvailable");
}

TEST(AvailableMemory, RoomUnderTheCgroupLimitCountsInactiveFileCache) {
  MachineTree t;
  // 32 GiB limit, 30 GiB in use of which 6 GiB inactive page cache (a
  // trace just read): 8 GiB of room, less than MemAvailable's 476.8 GiB.
  t.Write(kJob + "memory.max", std::to_string(32 * kGiB) + "\n");
  t.Write(kJob + "memory.current", std::to_string(30 * kGiB) + "\n");
  t.Write(kJob + "memory.stat",
          Cat("anon ", 20 * kGiB, "\nfile ", 10 * kGiB, "\nactive_file ",
              4 * kGiB, "\ninactive_file ", 6 * kGiB, "\nslab 1048576\n"));
  std::optional<AvailableMemory> m = ReadAvailableMemory(MachineRoot(t.root()));
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->bytes, 8 * kGiB);
  EXPECT_EQ(m->limited_by, "/" + kJob + "memory.max");

  // Without memory.stat only the limit less the usage is certain.
  t.Remove(kJob + "memory.stat");
  m = ReadAvailableMemory(MachineRoot(t.root()));
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->bytes, 2 * kGiB);

  // A limit with more room than the machine has: MemAvailable sets it.
  t.Write(kJob + "memory.max", std::to_string(4096 * kGiB) + "\n");
  m = ReadAvailableMemory(MachineRoot(t.root()));
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->bytes, uint64_t{500000000} * 1024);
  EXPECT_EQ(m->limited_by, "MemAvailable");
}

TEST(AvailableMemory, ACgroupOverItsLimitHasNoRoom) {
  MachineTree t;
  t.Write(kJob + "memory.max", std::to_string(2 * kGiB) + "\n");
  t.Write(kJob + "memory.current", std::to_string(3 * kGiB) + "\n");
  const std::optional<AvailableMemory> m =
      ReadAvailableMemory(MachineRoot(t.root()));
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->bytes, 0u);
}

TEST(AvailableMemory, NothingKnownWithoutMeminfoOrCgroup) {
  FixtureTree empty;
  EXPECT_FALSE(ReadAvailableMemory(MachineRoot(empty.root())).has_value());
}

}  // namespace
}  // namespace feedprof::testing
