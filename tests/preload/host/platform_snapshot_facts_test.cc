// The platform snapshot's facts for the platform checks (Platform fields
// 16-33) from the constructed GPU server of tests/platform, parsed back with
// libprotobuf: SMT, memory policy, limits, memory at the start, THP, RDMA,
// and the mounts of the working directory and of the command line's paths.
#include <string>
#include <vector>

#include "feedprof.pb.h"
#include "gtest/gtest.h"
#include "preload/host/mount_lookup.h"
#include "preload/host/platform_snapshot.h"
#include "tests/platform/machine_tree.h"

namespace feedprof::preload::host {
namespace {

using feedprof::testing::MachineTree;
using feedprof::trace::Header;
using feedprof::trace::Platform;

Platform Snapshot(const MachineTree& t, const char* cwd) {
  cpu_set_t affinity;
  CPU_ZERO(&affinity);
  CPU_SET(0, &affinity);
  PlatformSources sources;
  sources.root = t.root().c_str();
  sources.affinity = &affinity;
  sources.affinity_bytes = sizeof affinity;
  sources.cwd = cwd;
  std::vector<uint8_t> buf(64 * 1024);
  feedprof::wire::WireWriter w(buf.data(), buf.size());
  EncodePlatformSnapshotFrom(w, 12, sources);
  EXPECT_FALSE(w.overflowed());
  Header header;
  EXPECT_TRUE(header.ParseFromArray(buf.data(), static_cast<int>(w.size())));
  return header.platform();
}

void WriteCmdline(const MachineTree& t, const std::vector<std::string>& argv) {
  std::string text;
  for (const std::string& a : argv) text += a + std::string(1, '\0');
  t.Write("proc/self/cmdline", text);
}

TEST(PlatformSnapshotFacts, HostFactsOfTheServer) {
  MachineTree t;
  t.SetNumaMapsPolicy("bind:1");
  t.SetMemlock("65536", "65536");
  t.SetMeminfo(527280476, 500000000, 30284, 12, 8388604, 6291452);
  t.Write("sys/fs/cgroup/user.slice/memory.max", "68719476736\n");
  t.Write("sys/fs/cgroup/user.slice/job-7/memory.max", "34359738368\n");
  const Platform p = Snapshot(t, nullptr);
  EXPECT_TRUE(p.host_facts_probed());
  EXPECT_EQ(p.online_cpu_list(), "0-31");
  EXPECT_EQ(p.cpu_scaling_driver(), "intel_pstate");
  EXPECT_EQ(p.threads_per_core(), 2u);
  EXPECT_EQ(p.smt_control(), "on");
  EXPECT_EQ(p.memory_policy(), "bind:1");
  EXPECT_EQ(p.memlock_limit_bytes(), 65536u);
  EXPECT_EQ(p.cgroup_memory_limit_bytes(), 34359738368u);
  EXPECT_EQ(p.memory_available_bytes(), 500000000ull * 1024);
  EXPECT_EQ(p.memory_dirty_bytes(), 30284ull * 1024);
  EXPECT_EQ(p.memory_writeback_bytes(), 12ull * 1024);
  EXPECT_EQ(p.swap_total_bytes(), 8388604ull * 1024);
  EXPECT_EQ(p.swap_free_bytes(), 6291452ull * 1024);
  EXPECT_EQ(p.transparent_hugepage(), "madvise");
  EXPECT_EQ(p.transparent_hugepage_defrag(), "madvise");
  EXPECT_TRUE(p.rdma_devices());
  // No working directory under a constructed root unless one is given.
  EXPECT_FALSE(p.has_working_directory_mount());
}

TEST(PlatformSnapshotFacts, UnlimitedMemlockAndNoRdma) {
  MachineTree t;
  t.Remove("sys/class/infiniband");
  const Platform p = Snapshot(t, nullptr);
  EXPECT_EQ(p.memlock_limit_bytes(), ~uint64_t{0});
  EXPECT_FALSE(p.rdma_devices());
  EXPECT_EQ(p.cgroup_memory_limit_bytes(), 0u);  // "max" at every level
}

TEST(PlatformSnapshotFacts, MountsOfTheWorkingDirectoryAndTheDataArguments) {
  MachineTree t;
  t.MakeDir("home/user/run");
  WriteCmdline(t, {"python3", "train.py", "--data=/data/imagenet", "--epochs",
                   "90", "/archive/old", "/data/imagenet/train",
                   "/mnt/nfs/shards", "--out", "/missing/dir"});
  const Platform p = Snapshot(t, "/home/user/run");
  ASSERT_TRUE(p.has_working_directory_mount());
  const trace::Mount& cwd = p.working_directory_mount();
  EXPECT_EQ(cwd.path(), ".");
  EXPECT_EQ(cwd.mount_point(), "/");
  EXPECT_EQ(cwd.fs_type(), "ext4");
  EXPECT_EQ(cwd.source(), "/dev/nvme0n1p2");
  EXPECT_EQ(cwd.options(), "rw,relatime,errors=remount-ro");
  EXPECT_EQ(cwd.block_device(), "nvme0n1");  // the partition's disk
  EXPECT_EQ(cwd.disk_kind(), trace::DISK_KIND_SOLID_STATE);
  EXPECT_EQ(cwd.scheduler(), "none");
  // /data/imagenet/train is on the mount /data/imagenet was: once.
  ASSERT_EQ(p.data_mounts_size(), 3);
  EXPECT_EQ(p.data_mounts(0).path(), "/data/imagenet");
  EXPECT_EQ(p.data_mounts(0).fs_type(), "xfs");
  EXPECT_EQ(p.data_mounts(0).block_device(), "nvme1n1");
  EXPECT_EQ(p.data_mounts(1).path(), "/archive/old");
  EXPECT_EQ(p.data_mounts(1).block_device(), "sda");
  EXPECT_EQ(p.data_mounts(1).disk_kind(), trace::DISK_KIND_ROTATIONAL);
  EXPECT_EQ(p.data_mounts(1).scheduler(), "mq-deadline");
  EXPECT_EQ(p.data_mounts(2).fs_type(), "nfs4");
  EXPECT_EQ(p.data_mounts(2).source(), "storage01:/export/datasets");
  EXPECT_EQ(p.data_mounts(2).block_device(), "");
  EXPECT_EQ(p.data_mounts(2).disk_kind(), trace::DISK_KIND_UNKNOWN);
}

TEST(PlatformSnapshotFacts, MountLookupReadsLongMountinfoInChunks) {
  MachineTree t;
  // 3000 container mounts before the one that matters (~250 KiB).
  std::string info;
  for (int i = 0; i < 3000; ++i) {
    info += "1" + std::to_string(i) + " 27 0:" + std::to_string(100 + i) +
            " / /var/lib/kubelet/pods/" + std::to_string(i) +
            "/volumes/kubernetes.io~secret rw,relatime - tmpfs tmpfs "
            "rw,size=4096k\n";
  }
  info += "27 1 259:2 / / rw,relatime - ext4 /dev/nvme0n1p2 rw\n";
  info += "99 27 0:77 / /mnt/my\\040bucket rw - fuse.s3fs s3fs rw\n";
  t.Write("proc/self/mountinfo", info);
  char scratch[1024];
  MountFields m;
  ASSERT_TRUE(FindMount((t.root() + "/proc/self/mountinfo").c_str(),
                        "/mnt/my bucket/x", 0, scratch, sizeof scratch, &m));
  EXPECT_STREQ(m.fs_type, "fuse.s3fs");
  EXPECT_STREQ(m.mount_point, "/mnt/my bucket");
  ASSERT_TRUE(FindMount((t.root() + "/proc/self/mountinfo").c_str(),
                        "/var/lib/kubelet/pods/2999/volumes/kubernetes.io~"
                        "secret/token",
                        0, scratch, sizeof scratch, &m));
  EXPECT_EQ(m.minor, 3099u);
  ASSERT_TRUE(FindMount((t.root() + "/proc/self/mountinfo").c_str(), "/etc", 0,
                        scratch, sizeof scratch, &m));
  EXPECT_STREQ(m.source, "/dev/nvme0n1p2");
  char path[] = "/a/./b//../c/";
  NormalizePath(path);
  EXPECT_STREQ(path, "/a/c");
}

TEST(PlatformSnapshotFacts, ThisMachine) {
  std::vector<uint8_t> buf(64 * 1024);
  feedprof::wire::WireWriter w(buf.data(), buf.size());
  EncodePlatformSnapshot(w, 12);
  Header header;
  ASSERT_TRUE(header.ParseFromArray(buf.data(), static_cast<int>(w.size())));
  const Platform& p = header.platform();
  EXPECT_TRUE(p.host_facts_probed());
  // The working directory is always on some mount.
  ASSERT_TRUE(p.has_working_directory_mount());
  EXPECT_FALSE(p.working_directory_mount().fs_type().empty());
  EXPECT_NE(p.memlock_limit_bytes(), 0u);
  EXPECT_GT(p.memory_available_bytes(), 0u);
}

}  // namespace
}  // namespace feedprof::preload::host
