// The figures doctor's read probe reports beside its own timings: the
// /proc/diskstats and /proc/self/mountstats parsers on text in the layouts
// real machines print (an NVMe server on Linux 6.1, this repository's
// virtio VM, a 4.15 kernel's 14 fields, an NFS v4.2 client with statvers
// 1.1), and the probe on the constructed server with the second readings
// written by the test between the reads and the counters, so that r_await,
// utilization, read sizes and RPC figures are checked as numbers.
#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include "gtest/gtest.h"
#include "platform/diskstats_reader.h"
#include "platform/nfs_mountstats_reader.h"
#include "platform/storage_probe.h"
#include "tests/platform/findings.h"

namespace feedprof::testing {
namespace {

using platform::DiskStats;
using platform::MountStats;
using platform::StorageFacts;

// Linux 6.1 on an NVMe server: 20 fields (discards since 4.18, flushes
// since 5.5), loop devices, two disks and the first one's partitions.
constexpr const char* kNvmeDiskstats =
    "   7       0 loop0 58 0 2206 14 0 0 0 0 0 40 14 0 0 0 0 0 0\n"
    "   7       1 loop1 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
    " 259       0 nvme0n1 1843236 53271 174935902 387140 5418204 2914453 "
    "282718674 6107424 0 3134096 6648812 0 0 0 0 389912 154247\n"
    " 259       1 nvme0n1p1 389 1078 20604 67 2 0 2 0 0 116 67 0 0 0 0 0 0\n"
    " 259       2 nvme0n1p2 1842766 52193 174910194 387062 5418202 2914453 "
    "282718672 6107424 0 3134008 6494486 0 0 0 0 0 0\n"
    " 259       5 nvme1n1 9120455 210 2334829164 1742981 411 19 33402 97 0 "
    "2071336 1743232 0 0 0 0 88 154\n";

// This repository's VM (Linux 6.18, virtio-blk): the same 20 fields.
constexpr const char* kVirtioDiskstats =
    "   7       0 loop0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
    " 254       0 vda 1384200 44861 49017194 3673921 732935 171117 "
    "361291920 1395663 0 393632 5187843 628961 79 346178240 114308 53583 "
    "3950\n"
    " 253       0 zram0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n";

// Linux 4.15: 14 fields; and a partition line of a 2.6.18 kernel (7
// fields: reads, sectors read, writes, sectors written), which is skipped.
constexpr const char* kOldDiskstats =
    "   8       0 sda 4427 1134 319746 12220 2346 3177 98400 9612 0 8940 "
    "21820\n"
    "   8       1 sda1 4203 1134 314258 11972 2345 3177 98400 9612 0 8836 "
    "21584\n"
    "   3       1 hda1 35486 38030 38030 38030\n";

TEST(Diskstats, NvmeServerTwentyFields) {
  const std::vector<DiskStats> all = platform::ParseDiskstats(kNvmeDiskstats);
  ASSERT_EQ(all.size(), 6u);
  const std::optional<DiskStats> d =
      platform::FindDiskStats(kNvmeDiskstats, "nvme0n1");
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->major, 259u);
  EXPECT_EQ(d->minor, 0u);
  EXPECT_EQ(d->fields, 20u);
  EXPECT_EQ(d->reads_completed, 1843236u);
  EXPECT_EQ(d->reads_merged, 53271u);
  EXPECT_EQ(d->sectors_read, 174935902u);
  EXPECT_EQ(d->ms_reading, 387140u);
  EXPECT_EQ(d->writes_completed, 5418204u);
  EXPECT_EQ(d->sectors_written, 282718674u);
  EXPECT_EQ(d->in_flight, 0u);
  EXPECT_EQ(d->io_ticks_ms, 3134096u);
  EXPECT_EQ(d->weighted_ms, 6648812u);
  // The partition is its own line; a name is matched whole.
  EXPECT_EQ(platform::FindDiskStats(kNvmeDiskstats, "nvme0n1p2")->minor, 2u);
  EXPECT_FALSE(platform::FindDiskStats(kNvmeDiskstats, "nvme0").has_value());
  EXPECT_FALSE(platform::FindDiskStats(kNvmeDiskstats, "sda").has_value());
}

TEST(Diskstats, VirtioVmAndAnOldKernel) {
  const std::optional<DiskStats> vda =
      platform::FindDiskStats(kVirtioDiskstats, "vda");
  ASSERT_TRUE(vda.has_value());
  EXPECT_EQ(vda->major, 254u);
  EXPECT_EQ(vda->reads_completed, 1384200u);
  EXPECT_EQ(vda->sectors_read, 49017194u);
  EXPECT_EQ(vda->ms_reading, 3673921u);
  EXPECT_EQ(vda->io_ticks_ms, 393632u);
  const std::optional<DiskStats> sda =
      platform::FindDiskStats(kOldDiskstats, "sda");
  ASSERT_TRUE(sda.has_value());
  EXPECT_EQ(sda->fields, 14u);
  EXPECT_EQ(sda->reads_completed, 4427u);
  EXPECT_EQ(sda->ms_reading, 12220u);
  EXPECT_EQ(sda->io_ticks_ms, 8940u);
  EXPECT_EQ(sda->weighted_ms, 21820u);
  EXPECT_EQ(platform::ParseDiskstats(kOldDiskstats).size(), 2u);
  EXPECT_FALSE(platform::FindDiskStats(kOldDiskstats, "hda1").has_value());
}

TEST(Diskstats, DeltaIsIostatsFigures) {
  DiskStats before = *platform::FindDiskStats(kVirtioDiskstats, "vda");
  DiskStats after = before;
  after.reads_completed += 40;
  after.sectors_read += 40 * 64;  // 32 KiB each
  after.ms_reading += 90;
  after.io_ticks_ms += 50;
  const platform::Fact<platform::DeviceReadFacts> d =
      platform::DiskReadDelta(before, after, 200.0);
  ASSERT_TRUE(d.known()) << d.why_unknown;
  EXPECT_EQ(d->device, "vda");
  EXPECT_EQ(d->reads, 40u);
  EXPECT_EQ(d->bytes, 40u * 32768);
  EXPECT_DOUBLE_EQ(d->AverageReadBytes(), 32768.0);
  EXPECT_DOUBLE_EQ(*d->AwaitMs(), 2.25);
  EXPECT_DOUBLE_EQ(d->Utilization(), 0.25);
  // Busy time in clock ticks can overshoot a short window: capped at 1.
  EXPECT_DOUBLE_EQ(platform::DiskReadDelta(before, after, 20.0)->Utilization(),
                   1.0);
  after.reads_completed = before.reads_completed - 1;
  const auto backwards = platform::DiskReadDelta(before, after, 200.0);
  EXPECT_FALSE(backwards.known());
  EXPECT_NE(backwards.why_unknown.find("went backwards"), std::string::npos);
}

// A Linux 5.15 client: proc and the root file system, an NFS v4.2 mount
// with its xprt line and per-op statistics, tmpfs, an NFS v3 mount whose
// mount point has a space, and a mount after it without statistics.
constexpr const char* kMountstats =
    "device proc mounted on /proc with fstype proc\n"
    "device sysfs mounted on /sys with fstype sysfs\n"
    "device /dev/nvme0n1p2 mounted on / with fstype ext4\n"
    "device storage01:/export/datasets mounted on /mnt/nfs with fstype nfs4 "
    "statvers=1.1\n"
    "\topts:\trw,vers=4.2,rsize=1048576,wsize=1048576,namlen=255,acregmin=3,"
    "acregmax=60,acdirmin=30,acdirmax=60,hard,proto=tcp,timeo=600,retrans=2,"
    "sec=sys,clientaddr=10.1.2.17,local_lock=none\n"
    "\tage:\t86321\n"
    "\timpl_id:\tname='',domain='',date='0,0'\n"
    "\tcaps:\tcaps=0x3ffbffff,wtmult=512,dtsize=1048576,bsize=0,namlen=255\n"
    "\tnfsv4:\tbm0=0xfdffbfff,bm1=0x40f9be3e,bm2=0x60800,acl=0x3,sessions,"
    "pnfs=not configured,lease_time=90,lease_expired=0\n"
    "\tsec:\tflavor=1,pseudoflavor=1\n"
    "\tevents:\t1207 53117 8 45 1190 1026 56120 0 0 812 0 0 0 0 0 0 0 0 0 0 "
    "0 0 0 0 0 0 0\n"
    "\tbytes:\t2147483648 0 0 0 2147483648 0 524288 0\n"
    "\tRPC iostats version: 1.1  p/v: 100003/4 (nfs)\n"
    "\txprt:\ttcp 0 1 1 0 16 4412 4412 0 4412 0 2 0 0\n"
    "\tper-op statistics\n"
    "\t        NULL: 1 1 0 44 24 0 0 0 0\n"
    "\t        READ: 2048 2050 0 327680 2147745792 12 1843 1901 0\n"
    "\t       WRITE: 0 0 0 0 0 0 0 0 0\n"
    "\t        OPEN: 812 812 0 215992 287448 3 301 318 0\n"
    "\t     GETATTR: 1190 1190 0 190400 276080 2 351 362 0\n"
    "\t      LOOKUP: 362 362 0 63712 93396 1 118 122 12\n"
    "\t      ACCESS: 45 45 0 7920 9180 0 14 15 0\n"
    "\t    SEQUENCE: 150 150 0 20400 15600 0 40 42 0\n"
    "\n"
    "device tmpfs mounted on /dev/shm with fstype tmpfs\n"
    "device storage02:/export/my\\040data mounted on /mnt/my\\040data with "
    "fstype nfs statvers=1.1\n"
    "\topts:\trw,vers=3,rsize=65536,wsize=65536,namlen=255,hard,proto=tcp,"
    "timeo=600,retrans=2,sec=sys,mountaddr=10.1.2.18,mountvers=3,"
    "mountport=20048,mountproto=udp,local_lock=none\n"
    "\tage:\t3600\n"
    "\tcaps:\tcaps=0x3fc7,wtmult=4096,dtsize=65536,bsize=0,namlen=255\n"
    "\tsec:\tflavor=1,pseudoflavor=1\n"
    "\tevents:\t10 20 0 0 5 3 30 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
    "\tbytes:\t65536 0 0 0 65536 0 16 0\n"
    "\tRPC iostats version: 1.1  p/v: 100003/3 (nfs)\n"
    "\txprt:\ttcp 871 1 1 0 0 25 25 0 25 0 2 0 0\n"
    "\tper-op statistics\n"
    "\t        NULL: 1 1 0 40 24 0 0 0 0\n"
    "\t     GETATTR: 10 10 0 1120 1120 0 3 3 0\n"
    "\t      LOOKUP: 5 5 0 680 1040 0 2 2 0\n"
    "\t        READ: 2 2 0 248 65800 0 1 1 0\n"
    "\n"
    "device /dev/nvme1n1 mounted on /data with fstype xfs\n";

TEST(Mountstats, NfsMountsAmongOthers) {
  const std::vector<MountStats> all = platform::ParseMountstats(kMountstats);
  ASSERT_EQ(all.size(), 7u);
  const MountStats* nfs = platform::FindMountStats(all, "/mnt/nfs");
  ASSERT_NE(nfs, nullptr);
  EXPECT_EQ(nfs->device, "storage01:/export/datasets");
  EXPECT_EQ(nfs->fs_type, "nfs4");
  EXPECT_EQ(nfs->statvers, "1.1");
  ASSERT_EQ(nfs->ops.size(), 8u);
  const platform::NfsOpStats& read = nfs->ops[1];
  EXPECT_EQ(read.op, "READ");
  EXPECT_EQ(read.ops, 2048u);
  EXPECT_EQ(read.transmissions, 2050u);
  EXPECT_EQ(read.major_timeouts, 0u);
  EXPECT_EQ(read.bytes_sent, 327680u);
  EXPECT_EQ(read.bytes_received, 2147745792u);
  EXPECT_EQ(read.queue_ms, 12u);
  EXPECT_EQ(read.rtt_ms, 1843u);
  EXPECT_EQ(read.execute_ms, 1901u);
  EXPECT_EQ(nfs->ops[5].op, "LOOKUP");
  EXPECT_EQ(nfs->ops[5].errors, 12u);
  // The escaped space, and op lines staying with their own mount.
  const MountStats* spaced = platform::FindMountStats(all, "/mnt/my data");
  ASSERT_NE(spaced, nullptr);
  EXPECT_EQ(spaced->device, "storage02:/export/my data");
  EXPECT_EQ(spaced->fs_type, "nfs");
  ASSERT_EQ(spaced->ops.size(), 4u);
  EXPECT_EQ(spaced->ops[3].op, "READ");
  EXPECT_EQ(spaced->ops[3].bytes_received, 65800u);
  EXPECT_TRUE(platform::FindMountStats(all, "/dev/shm")->ops.empty());
  EXPECT_TRUE(platform::FindMountStats(all, "/data")->ops.empty());
  EXPECT_EQ(platform::FindMountStats(all, "/"), &all[2]);
  EXPECT_EQ(platform::FindMountStats(all, "/mnt"), nullptr);
}

TEST(Mountstats, StatversOneZeroHasNoErrorsColumn) {
  const std::vector<MountStats> all = platform::ParseMountstats(
      "device srv:/x mounted on /x with fstype nfs statvers=1.0\n"
      "\tper-op statistics\n"
      "\t        READ: 7 9 1 840 7340 2 35 38\n");
  ASSERT_EQ(all.size(), 1u);
  ASSERT_EQ(all[0].ops.size(), 1u);
  EXPECT_EQ(all[0].ops[0].ops, 7u);
  EXPECT_EQ(all[0].ops[0].major_timeouts, 1u);
  EXPECT_EQ(all[0].ops[0].execute_ms, 38u);
  EXPECT_EQ(all[0].ops[0].errors, 0u);
}

TEST(Mountstats, DeltaSumsTheOperations) {
  const std::vector<MountStats> all = platform::ParseMountstats(kMountstats);
  const MountStats before = *platform::FindMountStats(all, "/mnt/nfs");
  MountStats after = before;
  after.ops[1].ops += 4;  // READ
  after.ops[1].transmissions += 5;
  after.ops[1].rtt_ms += 30;
  after.ops[1].bytes_received += 4 * 262272;
  after.ops[4].ops += 8;  // GETATTR
  after.ops[4].transmissions += 8;
  after.ops[4].rtt_ms += 6;
  after.ops[5].ops += 4;  // LOOKUP
  after.ops[5].transmissions += 4;
  after.ops[5].rtt_ms += 4;
  after.ops[5].major_timeouts += 1;
  const auto d = platform::NfsReadDelta(before, after, 120.0);
  ASSERT_TRUE(d.known()) << d.why_unknown;
  EXPECT_EQ(d->mount_point, "/mnt/nfs");
  EXPECT_EQ(d->ops, 16u);
  EXPECT_EQ(d->transmissions, 17u);
  EXPECT_EQ(d->Retransmissions(), 1u);
  EXPECT_EQ(d->major_timeouts, 1u);
  EXPECT_EQ(d->rtt_ms, 40u);
  EXPECT_DOUBLE_EQ(*d->MeanRttMs(), 2.5);
  EXPECT_EQ(d->read_ops, 4u);
  EXPECT_EQ(d->read_bytes, 4u * 262272);
  // An operation the first reading did not have counts from zero.
  MountStats fewer = before;
  fewer.ops.pop_back();  // SEQUENCE: 150 ops
  EXPECT_EQ(platform::NfsReadDelta(fewer, before, 1.0)->ops, 150u);
  EXPECT_FALSE(platform::NfsReadDelta(after, before, 1.0).known());
}

// The probe on the constructed server: the first readings are in the tree
// when it starts, the second are written after its reads.
struct Counters {
  std::string diskstats_before, diskstats_after;
  std::string mountstats_before, mountstats_after;
};

StorageFacts ProbeWith(const MachineTree& t, const std::string& path,
                       const Counters& c, double elapsed_ms) {
  if (!c.diskstats_before.empty()) {
    t.Write("proc/diskstats", c.diskstats_before);
  }
  if (!c.mountstats_before.empty()) {
    t.Write("proc/self/mountstats", c.mountstats_before);
  }
  platform::ProbeSeam seam;
  seam.elapsed_ms = elapsed_ms;
  seam.after_reads = [&] {
    if (!c.diskstats_after.empty())
      t.Write("proc/diskstats", c.diskstats_after);
    if (!c.mountstats_after.empty()) {
      t.Write("proc/self/mountstats", c.mountstats_after);
    }
  };
  return platform::ReadStorageFacts(platform::MachineRoot(t.root()), path, true,
                                    seam);
}

// /data is on nvme1n1: its line with the given counter increases.
std::string Nvme1After(uint64_t reads, uint64_t sectors, uint64_t ms,
                       uint64_t ticks) {
  return Cat(" 259       5 nvme1n1 ", 9120455 + reads, " 210 ",
             2334829164ull + sectors, " ", 1742981 + ms, " 411 19 33402 97 0 ",
             2071336 + ticks, " 1743232 0 0 0 0 88 154\n");
}

platform::MachineFacts FactsOf(const StorageFacts& s) {
  platform::MachineFacts m;
  m.storage = {s};
  return m;
}

TEST(StorageProbe, CountsItsReadCalls) {
  MachineTree t;
  const StorageFacts s = ProbeWith(t, "/data/imagenet", {}, 10.0);
  ASSERT_TRUE(s.probe.known()) << s.probe.why_unknown;
  // 13000 + 7000 + 5000 bytes, one pread each (a file shorter than the
  // probe is read whole, with no call to find its end).
  EXPECT_EQ(s.probe->files, 3u);
  EXPECT_EQ(s.probe->read_calls, 3u);
  EXPECT_NEAR(s.probe->AverageReadBytes(), 25000.0 / 3, 1e-9);
  EXPECT_GT(s.probe->read_mean_ms, 0.0);
  EXPECT_GE(s.probe->read_max_ms, s.probe->read_mean_ms);
  EXPECT_LE(s.probe->read_max_ms, s.probe->max_ms);
  EXPECT_GE(s.probe->elapsed_ms, s.probe->max_ms);
  const PlatformFinding f =
      Check(FactsOf(s), "data_read_latency", "--data /data/imagenet");
  EXPECT_NE(f.value.find("; 3 read calls of 8.1 KiB on average, "),
            std::string::npos)
      << f.value;
  // A file larger than the probe: one call of 256 KiB.
  t.Write("data/big/shard-0.tar", std::string(300 * 1024, 'x'));
  const StorageFacts big = ProbeWith(t, "/data/big", {}, 10.0);
  EXPECT_EQ(big.probe->read_calls, 1u);
  EXPECT_EQ(big.probe->bytes, 256u * 1024);
}

TEST(StorageProbe, DiskFiguresOverTheProbe) {
  MachineTree t;
  Counters c;
  c.diskstats_before = kNvmeDiskstats;
  // 40 reads of 256 KiB in 120 ms summed, busy 150 of 200 ms.
  c.diskstats_after =
      Cat("   7       0 loop0 58 0 2206 14 0 0 0 0 0 40 14 0 0 0 0 0 0\n",
          Nvme1After(40, 40 * 512, 120, 150));
  const StorageFacts s = ProbeWith(t, "/data/imagenet", c, 200.0);
  ASSERT_TRUE(s.device_reads.known()) << s.device_reads.why_unknown;
  const platform::DeviceReadFacts& d = *s.device_reads;
  EXPECT_EQ(d.device, "nvme1n1");
  EXPECT_EQ(d.reads, 40u);
  EXPECT_EQ(d.bytes, 40u * 256 * 1024);
  EXPECT_DOUBLE_EQ(d.AverageReadBytes(), 262144.0);
  EXPECT_DOUBLE_EQ(*d.AwaitMs(), 3.0);
  EXPECT_DOUBLE_EQ(d.Utilization(), 0.75);
  EXPECT_DOUBLE_EQ(d.elapsed_ms, 200.0);
  // Not NFS: no network line.
  EXPECT_FALSE(s.nfs_reads.known());
  const std::vector<PlatformFinding> all = platform::CheckPlatform(FactsOf(s));
  PlatformFinding f = FindingOf(all, "data_device_reads");
  EXPECT_EQ(f.status, PlatformStatus::kOk) << Describe(f);
  EXPECT_EQ(f.value,
            "nvme1n1 over 200.0 ms: 40 reads, 10.0 MiB (256.0 KiB per read), "
            "r_await 3.00 ms, util 75.0%");
  EXPECT_NE(f.meaning.find("other processes' I/O in the interval counts too"),
            std::string::npos);
  for (const PlatformFinding& x : all) EXPECT_NE(x.check, "data_network_fs");

  // Slow reads on a solid-state disk: 15 ms each.
  c.diskstats_after = Nvme1After(40, 40 * 512, 600, 150);
  f = Check(FactsOf(ProbeWith(t, "/data/imagenet", c, 200.0)),
            "data_device_reads");
  EXPECT_EQ(f.status, PlatformStatus::kWarn) << Describe(f);
  EXPECT_NE(f.value.find("r_await 15.00 ms"), std::string::npos) << f.value;
  EXPECT_NE(f.meaning.find("reads took 15.0 ms each on the disk"),
            std::string::npos);
  EXPECT_NE(f.action.find("faster storage"), std::string::npos);
  // The fixture's files average 8.1 KiB a read: shards.
  EXPECT_NE(f.action.find("The files are small (8.1 KiB a read): pack them"),
            std::string::npos)
      << f.action;

  // Saturated: busy 180 of 200 ms, reads quick.
  c.diskstats_after = Nvme1After(40, 40 * 512, 120, 180);
  f = Check(FactsOf(ProbeWith(t, "/data/imagenet", c, 200.0)),
            "data_device_reads");
  EXPECT_EQ(f.status, PlatformStatus::kWarn) << Describe(f);
  EXPECT_NE(f.meaning.find("the disk was busy 90.0% of the time"),
            std::string::npos)
      << f.meaning;
  // The same busy time over a window too short to judge: ok.
  c.diskstats_after = Nvme1After(40, 40 * 512, 120, 45);
  f = Check(FactsOf(ProbeWith(t, "/data/imagenet", c, 50.0)),
            "data_device_reads");
  EXPECT_EQ(f.status, PlatformStatus::kOk) << Describe(f);
  EXPECT_NE(f.value.find("util not measured (too short a window)"),
            std::string::npos)
      << f.value;
  EXPECT_NE(f.meaning.find("not judged"), std::string::npos);

  // No read reached the disk: r_await not measured.
  c.diskstats_after = Nvme1After(0, 0, 0, 0);
  f = Check(FactsOf(ProbeWith(t, "/data/imagenet", c, 200.0)),
            "data_device_reads");
  EXPECT_EQ(f.status, PlatformStatus::kUnknown) << Describe(f);
  EXPECT_EQ(f.value, "nvme1n1 over 200.0 ms: 0 reads, 0 B, util 0.00%");
}

TEST(StorageProbe, RotationalDiskHasTheLaxerAwaitThreshold) {
  MachineTree t;
  t.Write("proc/diskstats", kOldDiskstats);
  const auto sda_after = [](uint64_t ms) {
    return Cat("   8       0 sda ", 4427 + 10, " 1134 ", 319746 + 10 * 8, " ",
               12220 + ms, " 2346 3177 98400 9612 0 ", 8940 + 50, " 21820\n");
  };
  Counters c;
  c.diskstats_before = kOldDiskstats;
  c.diskstats_after = sda_after(300);  // 30 ms a read: a disk seeking
  PlatformFinding f = Check(FactsOf(ProbeWith(t, "/archive/old", c, 400.0)),
                            "data_device_reads");
  EXPECT_EQ(f.status, PlatformStatus::kOk) << Describe(f);
  EXPECT_EQ(f.value,
            "sda over 400.0 ms: 10 reads, 40.0 KiB (4.0 KiB per read), "
            "r_await 30.00 ms, util 12.5%");
  c.diskstats_after = sda_after(600);
  f = Check(FactsOf(ProbeWith(t, "/archive/old", c, 400.0)),
            "data_device_reads");
  EXPECT_EQ(f.status, PlatformStatus::kWarn) << Describe(f);
  EXPECT_NE(f.meaning.find("50 ms or more is slow for a rotational disk"),
            std::string::npos)
      << f.meaning;
}

TEST(StorageProbe, DeviceFiguresUnknownWithTheReason) {
  MachineTree t;
  // No /proc/diskstats in the tree.
  PlatformFinding f = Check(FactsOf(ProbeWith(t, "/data/imagenet", {}, 10.0)),
                            "data_device_reads", "--data /data/imagenet");
  EXPECT_EQ(f.status, PlatformStatus::kUnknown);
  EXPECT_EQ(f.meaning, "/proc/diskstats does not exist");
  // No line for the disk.
  Counters c;
  c.diskstats_before = kVirtioDiskstats;
  f = Check(FactsOf(ProbeWith(t, "/data/imagenet", c, 10.0)),
            "data_device_reads");
  EXPECT_EQ(f.meaning,
            "/proc/diskstats has no line for nvme1n1 (or it has fewer than 14 "
            "fields)");
  // No block device: NFS.
  f = Check(FactsOf(ProbeWith(t, "/mnt/nfs/shards", c, 10.0)),
            "data_device_reads");
  EXPECT_EQ(f.status, PlatformStatus::kUnknown);
  EXPECT_NE(f.meaning.find("nfs4 is a network or user-space file system"),
            std::string::npos)
      << f.meaning;
  // Nothing read on a disk that has its line.
  t.MakeDir("data/empty");
  c.diskstats_before = kNvmeDiskstats;
  f = Check(FactsOf(ProbeWith(t, "/data/empty", c, 10.0)), "data_device_reads");
  EXPECT_EQ(f.status, PlatformStatus::kUnknown);
  EXPECT_EQ(f.meaning,
            "not measured: the read probe read no file (skipped: no readable "
            "non-empty regular file under /data/empty)");
  // Unreadable.
  if (geteuid() != 0) {
    t.Write("proc/diskstats", kNvmeDiskstats);
    chmod((t.root() + "/proc/diskstats").c_str(), 0);
    const StorageFacts s = platform::ReadStorageFacts(
        platform::MachineRoot(t.root()), "/data/imagenet", true);
    EXPECT_EQ(s.device_reads.why_unknown,
              "permission denied reading /proc/diskstats");
  }
}

// The NFS mount's statistics after the probe: READ +4 (1 MiB), GETATTR
// +8, LOOKUP +4, with `retrans` retransmissions and `rtt_ms` round trips
// in all.
std::string NfsAfter(uint64_t retrans, uint64_t rtt_ms) {
  std::string text = kMountstats;
  const auto replace = [&](const std::string& from, const std::string& to) {
    const size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
  };
  replace("READ: 2048 2050 0 327680 2147745792 12 1843 1901 0",
          Cat("READ: 2052 ", 2054 + retrans, " 0 328320 ",
              2147745792ull + 4 * 262272, " 12 ", 1843 + rtt_ms, " 1901 0"));
  replace("GETATTR: 1190 1190 0 190400 276080 2 351 362 0",
          "GETATTR: 1198 1198 0 191680 277936 2 351 362 0");
  replace("LOOKUP: 362 362 0 63712 93396 1 118 122 12",
          "LOOKUP: 366 366 0 64416 94428 1 118 122 12");
  return text;
}

TEST(StorageProbe, NfsClientFiguresOverTheProbe) {
  MachineTree t;
  Counters c;
  c.mountstats_before = kMountstats;
  c.mountstats_after = NfsAfter(0, 16);
  const StorageFacts s = ProbeWith(t, "/mnt/nfs/shards", c, 120.0);
  ASSERT_TRUE(s.nfs_reads.known()) << s.nfs_reads.why_unknown;
  EXPECT_EQ(s.nfs_reads->ops, 16u);
  EXPECT_EQ(s.nfs_reads->Retransmissions(), 0u);
  EXPECT_DOUBLE_EQ(*s.nfs_reads->MeanRttMs(), 1.0);
  EXPECT_EQ(s.nfs_reads->read_ops, 4u);
  EXPECT_EQ(s.nfs_reads->read_bytes, 4u * 262272);
  PlatformFinding f = Check(FactsOf(s), "data_network_fs");
  EXPECT_EQ(f.status, PlatformStatus::kOk) << Describe(f);
  EXPECT_EQ(f.value,
            "/mnt/nfs over 120.0 ms: 16 RPCs (4 READ, 1.0 MiB), 0 "
            "retransmissions, 0 major timeouts, RTT 1.00 ms mean");

  // One retransmission in 16 RPCs: 6.25 %, far past 0.1 %.
  c.mountstats_after = NfsAfter(1, 16);
  f = Check(FactsOf(ProbeWith(t, "/mnt/nfs/shards", c, 120.0)),
            "data_network_fs");
  EXPECT_EQ(f.status, PlatformStatus::kWarn) << Describe(f);
  EXPECT_NE(f.meaning.find("6.2% of the RPCs were sent again"),
            std::string::npos)
      << f.meaning;
  EXPECT_NE(f.action.find("nfsstat -rc"), std::string::npos);
  EXPECT_NE(f.action.find("Stage the dataset on a local disk"),
            std::string::npos);

  // 8 ms round trips.
  c.mountstats_after = NfsAfter(0, 128);
  f = Check(FactsOf(ProbeWith(t, "/mnt/nfs/shards", c, 120.0)),
            "data_network_fs");
  EXPECT_EQ(f.status, PlatformStatus::kWarn) << Describe(f);
  EXPECT_NE(f.value.find("RTT 8.00 ms mean"), std::string::npos) << f.value;
  EXPECT_NE(f.meaning.find("each round trip to the server took 8.0 ms"),
            std::string::npos);
  EXPECT_EQ(f.action.find("nfsstat"), std::string::npos);

  // No RPC: the client's cache answered.
  c.mountstats_after = kMountstats;
  f = Check(FactsOf(ProbeWith(t, "/mnt/nfs/shards", c, 120.0)),
            "data_network_fs");
  EXPECT_EQ(f.status, PlatformStatus::kUnknown) << Describe(f);
  EXPECT_NE(f.meaning.find("the client's cache answered"), std::string::npos);

  // No mountstats.
  t.Remove("proc/self/mountstats");
  f = Check(FactsOf(platform::ReadStorageFacts(platform::MachineRoot(t.root()),
                                               "/mnt/nfs/shards", true)),
            "data_network_fs");
  EXPECT_EQ(f.status, PlatformStatus::kUnknown);
  EXPECT_EQ(f.meaning, "/proc/self/mountstats does not exist");
}

TEST(StorageProbe, OtherNetworkFileSystemsHaveNoRpcStatistics) {
  MachineTree t;
  std::string mountinfo =
      *platform::MachineRoot(t.root()).Attribute("/proc/self/mountinfo");
  mountinfo +=
      "\n50 27 0:70 / /mnt/smb rw,relatime - cifs //fs01/data "
      "rw,vers=3.1.1\n";
  t.Write("proc/self/mountinfo", mountinfo);
  t.Write("mnt/smb/a.bin", "abc");
  const PlatformFinding f =
      Check(FactsOf(ProbeWith(t, "/mnt/smb", {}, 10.0)), "data_network_fs");
  EXPECT_EQ(f.status, PlatformStatus::kUnknown);
  EXPECT_EQ(f.meaning,
            "the kernel keeps RPC statistics (/proc/self/mountstats) for NFS "
            "mounts only; cifs has none");
}

}  // namespace
}  // namespace feedprof::testing
