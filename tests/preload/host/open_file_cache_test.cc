// OpenFileCache: re-reading kept procfs files, and never closing a file
// descriptor that is no longer ours.
#include "preload/host/open_file_cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "gtest/gtest.h"
#include "preload/private_fd.h"
#include "tests/testing/fixture_tree.h"

namespace feedprof::preload::host {
namespace {

using feedprof::testing::FixtureTree;

TEST(OpenFileCache, PreadSeesNewContentOfProcFiles) {
  OpenFileCache cache;
  ASSERT_TRUE(cache.Init(8));
  const int dir = open("/proc/self", O_RDONLY | O_DIRECTORY);
  ASSERT_GE(dir, 0);
  const int stat_slot = cache.Open(dir, "stat");
  ASSERT_GE(stat_slot, 0);
  char a[1024];
  char b[1024];
  ASSERT_GT(cache.Read(stat_slot, a, sizeof a), 0);
  // Burn CPU until the regenerated text differs (CPU time is counted in
  // clock ticks; on a loaded machine one burst may not cross a tick).
  volatile uint64_t x = 0;
  for (int burst = 0; burst < 40; ++burst) {
    for (int i = 0; i < 20000000; ++i) x = x + static_cast<uint64_t>(i);
    ASSERT_GT(cache.Read(stat_slot, b, sizeof b), 0);
    if (std::string(a) != std::string(b)) break;
  }
  EXPECT_NE(std::string(a), std::string(b));
  EXPECT_EQ(cache.open_count(), 1u);
  cache.Release();
  EXPECT_EQ(cache.open_count(), 0u);
  close(dir);
}

TEST(OpenFileCache, DoesNotCloseADescriptorTheProgramReused) {
  FixtureTree t;
  t.Write("a", "first");
  t.Write("b", "second");
  const int dir = open(t.root().c_str(), O_RDONLY | O_DIRECTORY);
  ASSERT_GE(dir, 0);
  OpenFileCache cache;
  ASSERT_TRUE(cache.Init(4));
  const int slot = cache.Open(dir, "a");
  ASSERT_GE(slot, 0);
  char buf[64];
  ASSERT_EQ(cache.Read(slot, buf, sizeof buf), 5);
  EXPECT_STREQ(buf, "first");

  // The program puts a file of its own on "our" number (a dup2 over it,
  // as after closing every descriptor it did not open).
  int victim = -1;
  char link[64];
  char target[4096];
  for (int fd = 3; fd < 1024 && victim < 0; ++fd) {
    std::snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    const ssize_t n = readlink(link, target, sizeof target - 1);
    if (n > 0) {
      target[n] = '\0';
      if (std::string(target) == t.root() + "/a") victim = fd;
    }
  }
  ASSERT_GE(victim, preload::kFirstPrivateFd) << "kept files are high";
  const int opened = openat(dir, "b", O_RDONLY);
  ASSERT_GE(opened, 0);
  const int theirs = dup2(opened, victim);
  ASSERT_EQ(theirs, victim);
  close(opened);

  cache.Close(slot);
  EXPECT_EQ(cache.open_count(), 0u);
  // The program's file is still open.
  EXPECT_EQ(pread(theirs, buf, 6, 0), 6);
  EXPECT_EQ(std::string(buf, 6), "second");
  close(theirs);
  close(dir);
}

TEST(OpenFileCache, FullCacheAndSweep) {
  FixtureTree t;
  t.Write("a", "1");
  const int dir = open(t.root().c_str(), O_RDONLY | O_DIRECTORY);
  OpenFileCache cache;
  ASSERT_TRUE(cache.Init(2));
  const int s0 = cache.Open(dir, "a");
  const int s1 = cache.Open(dir, "a");
  ASSERT_GE(s0, 0);
  ASSERT_GE(s1, 0);
  EXPECT_EQ(cache.Open(dir, "a"), -1);
  EXPECT_EQ(cache.Open(dir, "missing"), -1);
  cache.Mark(s0, 7);
  cache.CloseUnmarked(7);
  EXPECT_EQ(cache.open_count(), 1u);
  char buf[8];
  EXPECT_EQ(cache.Read(s0, buf, sizeof buf), 1);
  EXPECT_EQ(cache.Read(s1, buf, sizeof buf), -1);
  close(dir);
}

}  // namespace
}  // namespace feedprof::preload::host
