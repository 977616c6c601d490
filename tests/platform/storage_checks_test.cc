// Storage checks on the constructed server's mounts: local NVMe (a whole
// disk and a partition), a SATA disk, NFS, a FUSE mount with an escaped
// space in its name, tmpfs, a missing path; the read probe reads the files
// the tree holds.
#include <string>

#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
#include "tests/platform/findings.h"

namespace feedprof::testing {
namespace {

using platform::MachineFacts;

MachineFacts WithData(const MachineTree& t, const std::string& path) {
  platform::ReadOptions o;
  o.data_paths = {path};
  return ReadTree(t, o);
}

TEST(StorageChecks, LocalNvmeIsOkAndTheProbeReadsTheFiles) {
  MachineTree t;
  const MachineFacts m = WithData(t, "/data/imagenet");
  const std::string subject = "--data /data/imagenet";
  PlatformFinding f = Check(m, "data_filesystem", subject);
  EXPECT_EQ(f.status, PlatformStatus::kOk) << Describe(f);
  EXPECT_EQ(f.value,
            "xfs /dev/nvme1n1 on /data (rw,noatime,attr2,inode64,logbufs=8,"
            "logbsize=32k,noquota)");
  f = Check(m, "data_device", subject);
  EXPECT_EQ(f.status, PlatformStatus::kOk) << Describe(f);
  EXPECT_EQ(f.value, "nvme1n1, not rotational, scheduler none");
  // The three files of the tree, 13000 + 7000 + 5000 bytes.
  ASSERT_TRUE(m.storage[0].probe.known()) << m.storage[0].probe.why_unknown;
  EXPECT_EQ(m.storage[0].probe->files, 3u);
  EXPECT_EQ(m.storage[0].probe->bytes, 25000u);
  f = Check(m, "data_read_latency", subject);
  EXPECT_EQ(f.value.substr(0, 27), "3 files, 24.4 KiB read: med");
}

TEST(StorageChecks, PartitionUsesItsDisksQueue) {
  MachineTree t;
  t.Write("home/user/train.py", "print(1)\n");
  const PlatformFinding f =
      Check(WithData(t, "/home/user"), "data_device", "--data /home/user");
  EXPECT_EQ(f.value, "nvme0n1, not rotational, scheduler none");
}

TEST(StorageChecks, SpinningDiskWarns) {
  MachineTree t;
  const PlatformFinding f =
      Check(WithData(t, "/archive/old"), "data_device", "--data /archive/old");
  EXPECT_EQ(f.status, PlatformStatus::kWarn) << Describe(f);
  EXPECT_EQ(f.value, "sda, rotational, scheduler mq-deadline");
  EXPECT_NE(f.meaning.find("~100-200 per second"), std::string::npos);
}

TEST(StorageChecks, NfsWarnsAndHasNoLocalDevice) {
  MachineTree t;
  const MachineFacts m = WithData(t, "/mnt/nfs/shards");
  const std::string subject = "--data /mnt/nfs/shards";
  PlatformFinding f = Check(m, "data_filesystem", subject);
  EXPECT_EQ(f.status, PlatformStatus::kWarn) << Describe(f);
  EXPECT_EQ(f.value.substr(0, 71),
            "nfs4 storage01:/export/datasets on /mnt/nfs (rw,relatime,vers=4.2,"
            "rsize");
  f = Check(m, "data_device", subject);
  EXPECT_EQ(f.status, PlatformStatus::kUnknown);
  EXPECT_NE(f.meaning.find("nfs4 is a network or user-space file system"),
            std::string::npos);
  EXPECT_EQ(m.storage[0].probe->files, 1u);
  EXPECT_EQ(m.storage[0].probe->bytes, 4096u);
}

TEST(StorageChecks, FuseMountWithASpaceInItsNameWarns) {
  MachineTree t;
  t.Write("mnt/my bucket/a.bin", "xyz");
  const PlatformFinding f = Check(WithData(t, "/mnt/my bucket"),
                                  "data_filesystem", "--data /mnt/my bucket");
  EXPECT_EQ(f.status, PlatformStatus::kWarn) << Describe(f);
  EXPECT_EQ(f.value,
            "fuse.s3fs s3fs on /mnt/my bucket "
            "(rw,nosuid,nodev,relatime,user_id=0,group_id=0)");
}

TEST(StorageChecks, MissingPathAndEmptyDirectoryAreUnknown) {
  MachineTree t;
  PlatformFinding f = Check(WithData(t, "/data/missing"), "data_filesystem",
                            "--data /data/missing");
  EXPECT_EQ(f.status, PlatformStatus::kUnknown);
  EXPECT_EQ(f.meaning, "/data/missing: No such file or directory");
  t.MakeDir("data/empty");
  f = Check(WithData(t, "/data/empty"), "data_read_latency",
            "--data /data/empty");
  EXPECT_EQ(f.status, PlatformStatus::kUnknown);
  EXPECT_EQ(f.meaning,
            "skipped: no readable non-empty regular file under /data/empty");
}

TEST(StorageChecks, WithoutDataPathStorageIsUnknown) {
  MachineTree t;
  const PlatformFinding f = Check(ReadTree(t), "data_filesystem");
  EXPECT_EQ(f.status, PlatformStatus::kUnknown);
  EXPECT_NE(f.meaning.find("no --data PATH given"), std::string::npos);
}

TEST(StorageChecks, ProbeThresholdsOnMeasuredLatencies) {
  platform::MachineFacts m;
  platform::StorageFacts s;
  s.label = "--data /x";
  platform::ReadProbeFacts p;
  p.files = 8;
  p.bytes = 2 << 20;
  p.direct = true;
  for (const auto& [median, status] : {std::pair{0.4, PlatformStatus::kOk},
                                       {7.5, PlatformStatus::kWarn},
                                       {80.0, PlatformStatus::kFail}}) {
    p.median_ms = median;
    p.max_ms = median * 2;
    s.probe.Set(p);
    m.storage = {s};
    const PlatformFinding f = Check(m, "data_read_latency", "--data /x");
    EXPECT_EQ(f.status, status) << Describe(f);
    EXPECT_NE(f.value.find(absl::StrFormat("median %.2f ms, max %.2f ms",
                                           median, median * 2)),
              std::string::npos)
        << f.value;
  }
}

}  // namespace
}  // namespace feedprof::testing
