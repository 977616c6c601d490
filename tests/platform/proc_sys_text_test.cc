// The procfs/sysfs parsers on text in the kernel's formats, including the
// odd cases: escaped mount points, "Unknown" link speeds, kB and plain
// counts in meminfo, "unlimited" limits, an open driver's version line.
#include "platform/proc_sys_text.h"

#include "gtest/gtest.h"
#include "platform/machine_reader.h"
#include "platform/platform_checks.h"

namespace feedprof::platform {
namespace {

TEST(ProcSysText, CpuLists) {
  EXPECT_EQ(ParseCpuList("0-3,8,10-11\n"),
            (std::vector<int>{0, 1, 2, 3, 8, 10, 11}));
  EXPECT_EQ(ParseCpuList(""), std::vector<int>{});
  EXPECT_FALSE(ParseCpuList("3-1").has_value());
  EXPECT_FALSE(ParseCpuList("a").has_value());
  EXPECT_EQ(FormatCpuList({0, 1, 2, 3, 8, 10, 11}), "0-3,8,10-11");
}

TEST(ProcSysText, LinkSpeedsAndGenerations) {
  EXPECT_EQ(ParseLinkSpeedGts("16.0 GT/s PCIe\n"), 16.0);
  EXPECT_EQ(ParseLinkSpeedGts("8 GT/s"), 8.0);
  EXPECT_EQ(ParseLinkSpeedGts("2.5 GT/s PCIe"), 2.5);
  EXPECT_FALSE(ParseLinkSpeedGts("Unknown").has_value());
  EXPECT_EQ(PcieGeneration(2.5), 1);
  EXPECT_EQ(PcieGeneration(32.0), 5);
  EXPECT_NEAR(LinkGBps(16.0, 16), 31.5, 0.01);
  EXPECT_NEAR(LinkGBps(2.5, 16), 4.0, 1e-9);
}

TEST(ProcSysText, MeminfoAndStat) {
  const auto m = ParseMeminfo(
      "MemTotal:       24684084 kB\nMemAvailable:   24026968 kB\n"
      "HugePages_Total:       0\nNode 0 Dirty: 12 kB\n");
  EXPECT_EQ(m.at("MemTotal"), 24684084ull * 1024);
  EXPECT_EQ(m.at("MemAvailable"), 24026968ull * 1024);
  EXPECT_EQ(m.at("HugePages_Total"), 0u);
  EXPECT_EQ(m.at("Dirty"), 12u * 1024);
  const std::string stat =
      "cpu  1095993 29284 250091 621662 5900 0 3208 524 0 0\n"
      "cpu0 501348 14691 94494 389927 1303 0 99 268 0 0\nprocs_running 3\n";
  const auto cpu = ParseProcStatCpu(stat);
  ASSERT_TRUE(cpu.has_value());
  EXPECT_EQ(cpu->iowait, 5900u);
  EXPECT_EQ(cpu->Total(),
            1095993u + 29284 + 250091 + 621662 + 5900 + 3208 + 524);
  EXPECT_EQ(FindProcStatValue(stat, "procs_running"), 3u);
}

TEST(ProcSysText, LoadPressureChoicesLimits) {
  const auto l = ParseLoadavg("1.03 1.94 3.48 1/82 24592\n");
  ASSERT_TRUE(l.has_value());
  EXPECT_EQ(l->load1, 1.03);
  EXPECT_EQ(l->runnable, 1u);
  EXPECT_EQ(l->threads, 82u);
  const auto p = ParsePressure(
      "some avg10=0.19 avg60=0.77 avg300=2.98 total=3001546027\n"
      "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n");
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->some_avg10, 0.19);
  EXPECT_EQ(p->some_avg60, 0.77);
  EXPECT_EQ(BracketedChoice("always [madvise] never"), "madvise");
  EXPECT_EQ(BracketedChoice("none [mq-deadline] kyber bfq "), "mq-deadline");
  const std::string limits =
      "Limit                     Soft Limit           Hard Limit           "
      "Units     \n"
      "Max locked memory         8388608              8388608              "
      "bytes     \n"
      "Max address space         unlimited            unlimited            "
      "bytes     \n";
  EXPECT_EQ(ParseLimit(limits, "Max locked memory")->value, 8388608u);
  EXPECT_TRUE(ParseLimit(limits, "Max address space")->unlimited);
}

TEST(ProcSysText, MountinfoAndTheMountOfAPath) {
  const auto mounts = ParseMountinfo(
      "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard\n"
      "42 27 0:39 / /tmp/smallfs rw,relatime - tmpfs tmpfs rw,size=8k\n"
      "43 27 0:60 / /mnt/my\\040bucket rw,nosuid shared:3 - fuse.s3fs s3fs "
      "rw,user_id=0\n"
      "44 42 0:61 / /tmp/smallfs rw - tmpfs over rw\n");
  ASSERT_EQ(mounts.size(), 4u);
  EXPECT_EQ(mounts[0].major, 254u);
  EXPECT_EQ(mounts[2].mount_point, "/mnt/my bucket");
  EXPECT_EQ(mounts[2].fs_type, "fuse.s3fs");
  EXPECT_EQ(mounts[2].super_options, "rw,user_id=0");
  EXPECT_EQ(MountOf(mounts, "/mnt/my bucket/x")->fs_type, "fuse.s3fs");
  EXPECT_EQ(MountOf(mounts, "/mnt/my")->mount_point, "/");
  // The later mount on the same point hides the earlier one.
  EXPECT_EQ(MountOf(mounts, "/tmp/smallfs/a")->source, "over");
}

TEST(ProcSysText, DriverVersionsAndBusIds) {
  EXPECT_EQ(ParseNvidiaDriverVersion(
                "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  "
                "Tue Mar  5 22:23:56 UTC 2024\n"),
            "550.54.15");
  EXPECT_EQ(ParseNvidiaDriverVersion(
                "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  "
                "535.104.05  Release Build\n"),
            "535.104.05");
  EXPECT_EQ(ParseNvidiaDriverVersion("no version"), "");
  EXPECT_EQ(NormalizeBusId("00000000:3B:00.0"), "0000:3b:00.0");
  EXPECT_EQ(NormalizeBusId("0000:3b:00.0"), "0000:3b:00.0");
  EXPECT_EQ(DescribeClockReasons(0xC), "SW power cap, HW slowdown");
  EXPECT_EQ(DescribeClockReasons(0), "none");
}

}  // namespace
}  // namespace feedprof::platform
