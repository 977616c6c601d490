// The platform snapshot from a fake procfs/sysfs tree (with NVIDIA GPUs)
// and from this machine, parsed back with libprotobuf.
#include "preload/host/platform_snapshot.h"

#include <sched.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "feedprof.pb.h"
#include "gtest/gtest.h"
#include "preload/host/cpu_list.h"
#include "tests/testing/fixture_tree.h"

namespace feedprof::preload::host {
namespace {

using feedprof::testing::FixtureTree;
using feedprof::trace::Header;
using feedprof::trace::Platform;

constexpr uint32_t kHeaderPlatformField = 12;

Platform Snapshot(const PlatformSources& sources) {
  std::vector<uint8_t> buf(64 * 1024);
  feedprof::wire::WireWriter w(buf.data(), buf.size());
  w.Uint(3, 1234);  // Header.pid, so the platform is not the first field
  const size_t written =
      EncodePlatformSnapshotFrom(w, kHeaderPlatformField, sources);
  EXPECT_FALSE(w.overflowed());
  EXPECT_EQ(written + 3, w.size());
  Header header;
  EXPECT_TRUE(header.ParseFromArray(buf.data(), static_cast<int>(w.size())));
  EXPECT_EQ(header.pid(), 1234u);
  return header.platform();
}

void WriteMachine(const FixtureTree& t) {
  t.Write("proc/cpuinfo",
          "processor\t: 0\nvendor_id\t: GenuineIntel\n"
          "model name\t: Intel(R) Xeon(R) Platinum 8480+\nflags\t\t: fpu\n\n"
          "processor\t: 1\nmodel name\t: Intel(R) Xeon(R) Platinum 8480+\n");
  t.Write("sys/devices/system/cpu/present", "0-7\n");
  t.Write("sys/devices/system/cpu/online", "0-5\n");
  t.Write("sys/devices/system/cpu/cpu0/cpufreq/scaling_governor",
          "performance\n");
  t.Write("sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", "3800000\n");
  t.Write("sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq", "2000000\n");
  t.Write("sys/devices/system/node/online", "0-1\n");
  t.Write("sys/devices/system/node/has_cpu", "0-1\n");
  t.Write("sys/devices/system/node/node1/cpulist", "4-7\n");
  t.Write("sys/devices/system/node/node1/meminfo",
          "Node 1 MemTotal:       2097152 kB\nNode 1 MemFree: 1 kB\n");
  t.Write("sys/devices/system/node/node0/cpulist", "0-3\n");
  t.Write("sys/devices/system/node/node0/meminfo",
          "Node 0 MemTotal:       1048576 kB\nNode 0 MemFree: 1 kB\n");
  t.Write("proc/self/status",
          "Name:\tpython3\nCpus_allowed_list:\t0-3,8\n"
          "Mems_allowed_list:\t0-1\nvoluntary_ctxt_switches:\t1\n");
  t.Write("proc/meminfo", "MemTotal:        3145728 kB\nMemFree: 1 kB\n");
  t.Write("proc/sys/kernel/osrelease", "6.1.0-18-amd64\n");

  const std::string gpu = "sys/bus/pci/devices/0000:3b:00.0/";
  t.Write(gpu + "vendor", "0x10de\n");
  t.Write(gpu + "device", "0x2330\n");
  t.Write(gpu + "class", "0x030200\n");
  t.Write(gpu + "numa_node", "1\n");
  t.Write(gpu + "local_cpulist", "4-7\n");
  t.Write(gpu + "current_link_speed", "16.0 GT/s PCIe\n");
  t.Write(gpu + "max_link_speed", "32.0 GT/s PCIe\n");
  t.Write(gpu + "current_link_width", "8\n");
  t.Write(gpu + "max_link_width", "16\n");
  // An older kernel's spelling, an unknown link, no NUMA information.
  const std::string gpu2 = "sys/bus/pci/devices/0000:17:00.0/";
  t.Write(gpu2 + "vendor", "0x10de\n");
  t.Write(gpu2 + "device", "0x1eb8\n");
  t.Write(gpu2 + "class", "0x030000\n");
  t.Write(gpu2 + "numa_node", "-1\n");
  t.Write(gpu2 + "local_cpulist", "0-7\n");
  t.Write(gpu2 + "current_link_speed", "Unknown\n");
  t.Write(gpu2 + "max_link_speed", "8 GT/s\n");
  t.Write(gpu2 + "current_link_width", "0\n");
  t.Write(gpu2 + "max_link_width", "16\n");
  const std::string other = "sys/bus/pci/devices/0000:00:1f.0/";
  t.Write(other + "vendor", "0x8086\n");
  t.Write(other + "class", "0x060100\n");
}

cpu_set_t Affinity(std::initializer_list<int> cpus) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : cpus) CPU_SET(c, &set);
  return set;
}

TEST(PlatformSnapshot, FakeMachineWithTwoNvidiaDevices) {
  FixtureTree t;
  WriteMachine(t);
  t.Write("proc/self/cgroup", "0::/user.slice/job-7\n");
  t.Write("sys/fs/cgroup/cpu.max", "max 100000\n");
  t.Write("sys/fs/cgroup/user.slice/cpu.max", "400000 100000\n");
  t.Write("sys/fs/cgroup/user.slice/job-7/cpu.max", "250000 100000\n");
  const cpu_set_t affinity = Affinity({0, 1, 2, 3, 8});
  PlatformSources sources;
  sources.root = t.root().c_str();
  sources.affinity = &affinity;
  sources.affinity_bytes = sizeof affinity;

  const Platform p = Snapshot(sources);
  EXPECT_EQ(p.cpu_model(), "Intel(R) Xeon(R) Platinum 8480+");
  EXPECT_EQ(p.logical_cpus(), 8u);
  EXPECT_EQ(p.online_cpus(), 6u);
  EXPECT_EQ(p.frequency_governor(), "performance");
  EXPECT_EQ(p.cpu_max_khz(), 3800000u);
  EXPECT_EQ(p.cpu_cur_khz(), 2000000u);
  ASSERT_EQ(p.numa_nodes_size(), 2);
  EXPECT_EQ(p.numa_nodes(0).id(), 0u);
  EXPECT_EQ(p.numa_nodes(0).cpus(), "0-3");
  EXPECT_EQ(p.numa_nodes(0).memory_total_bytes(), 1048576ull * 1024);
  EXPECT_EQ(p.numa_nodes(1).id(), 1u);
  EXPECT_EQ(p.numa_nodes(1).cpus(), "4-7");
  EXPECT_EQ(p.numa_nodes(1).memory_total_bytes(), 2097152ull * 1024);
  EXPECT_EQ(p.process_cpu_affinity(), "0-3,8");
  EXPECT_EQ(p.process_mems_allowed(), "0-1");
  EXPECT_DOUBLE_EQ(p.cgroup_cpu_limit(), 2.5);
  EXPECT_EQ(p.memory_total_bytes(), 3145728ull * 1024);
  EXPECT_EQ(p.kernel_release(), "6.1.0-18-amd64");
  EXPECT_TRUE(p.nvidia_probed());
  EXPECT_EQ(p.nvidia_driver_version(), "");  // the fixture loads none

  ASSERT_EQ(p.pci_devices_size(), 2);  // the Intel device is left out
  const auto& a = p.pci_devices(0);    // bus order
  EXPECT_EQ(a.bus_id(), "0000:17:00.0");
  EXPECT_EQ(a.vendor_id(), 0x10deu);
  EXPECT_EQ(a.device_id(), 0x1eb8u);
  EXPECT_EQ(a.class_code(), 0x030000u);
  EXPECT_EQ(a.numa_node(), -1);
  EXPECT_EQ(a.local_cpus(), "0-7");
  EXPECT_DOUBLE_EQ(a.current_link_gts(), 0.0);
  EXPECT_DOUBLE_EQ(a.max_link_gts(), 8.0);
  EXPECT_EQ(a.current_link_width(), 0u);
  EXPECT_EQ(a.max_link_width(), 16u);
  const auto& b = p.pci_devices(1);
  EXPECT_EQ(b.bus_id(), "0000:3b:00.0");
  EXPECT_EQ(b.vendor_id(), 0x10deu);
  EXPECT_EQ(b.device_id(), 0x2330u);
  EXPECT_EQ(b.class_code(), 0x030200u);
  EXPECT_EQ(b.numa_node(), 1);
  EXPECT_EQ(b.local_cpus(), "4-7");
  EXPECT_DOUBLE_EQ(b.current_link_gts(), 16.0);
  EXPECT_DOUBLE_EQ(b.max_link_gts(), 32.0);
  EXPECT_EQ(b.current_link_width(), 8u);
  EXPECT_EQ(b.max_link_width(), 16u);
}

TEST(PlatformSnapshot, ParentCgroupQuotaCapsTheChild) {
  FixtureTree t;
  WriteMachine(t);
  t.Write("proc/self/cgroup", "0::/a/b\n");
  t.Write("sys/fs/cgroup/a/cpu.max", "150000 100000\n");
  t.Write("sys/fs/cgroup/a/b/cpu.max", "max 100000\n");
  PlatformSources sources;
  sources.root = t.root().c_str();
  EXPECT_DOUBLE_EQ(Snapshot(sources).cgroup_cpu_limit(), 1.5);
}

TEST(PlatformSnapshot, CgroupV1QuotaInAContainerWithoutNamespace) {
  FixtureTree t;
  WriteMachine(t);
  // The host-side path does not exist inside the container's mount: the
  // mount root is the container's cgroup.
  t.Write("proc/self/cgroup",
          "12:memory:/docker/abc\n4:cpu,cpuacct:/docker/abc\n"
          "1:name=systemd:/docker/abc\n");
  t.Write("sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us", "300000\n");
  t.Write("sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us", "100000\n");
  PlatformSources sources;
  sources.root = t.root().c_str();
  EXPECT_DOUBLE_EQ(Snapshot(sources).cgroup_cpu_limit(), 3.0);
}

TEST(PlatformSnapshot, UnlimitedOrMissingCgroupIsZero) {
  FixtureTree t;
  WriteMachine(t);
  t.Write("proc/self/cgroup", "2:cpu:/\n");
  t.Write("sys/fs/cgroup/cpu/cpu.cfs_quota_us", "-1\n");
  t.Write("sys/fs/cgroup/cpu/cpu.cfs_period_us", "100000\n");
  PlatformSources sources;
  sources.root = t.root().c_str();
  EXPECT_DOUBLE_EQ(Snapshot(sources).cgroup_cpu_limit(), 0.0);
  FixtureTree empty;
  sources.root = empty.root().c_str();
  const Platform p = Snapshot(sources);
  EXPECT_DOUBLE_EQ(p.cgroup_cpu_limit(), 0.0);
  EXPECT_EQ(p.pci_devices_size(), 0);
  EXPECT_EQ(p.cpu_model(), "");
  // Without a readable PCI device list nothing is known about GPUs.
  EXPECT_FALSE(p.nvidia_probed());
}

TEST(PlatformSnapshot, LoadedNvidiaDriverVersion) {
  FixtureTree t;
  WriteMachine(t);
  PlatformSources sources;
  sources.root = t.root().c_str();
  t.Write("sys/module/nvidia/version", "550.54.15\n");
  EXPECT_EQ(Snapshot(sources).nvidia_driver_version(), "550.54.15");
  // /proc/driver/nvidia/version, when present, is read first.
  t.Write("proc/driver/nvidia/version",
          "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  "
          "580.65.06  Release Build\n");
  const Platform p = Snapshot(sources);
  EXPECT_EQ(p.nvidia_driver_version(), "580.65.06");
  EXPECT_TRUE(p.nvidia_probed());
  EXPECT_EQ(p.pci_devices_size(), 2);
}

TEST(PlatformSnapshot, ThisMachine) {
  std::vector<uint8_t> buf(256 * 1024);
  feedprof::wire::WireWriter w(buf.data(), buf.size());
  const size_t written = EncodePlatformSnapshot(w, kHeaderPlatformField);
  ASSERT_FALSE(w.overflowed());
  ASSERT_EQ(written, w.size());
  Header header;
  ASSERT_TRUE(header.ParseFromArray(buf.data(), static_cast<int>(w.size())));
  const Platform& p = header.platform();

  EXPECT_EQ(p.logical_cpus(),
            static_cast<uint32_t>(sysconf(_SC_NPROCESSORS_CONF)));
  EXPECT_EQ(p.online_cpus(),
            static_cast<uint32_t>(sysconf(_SC_NPROCESSORS_ONLN)));
  EXPECT_EQ(p.memory_total_bytes(),
            static_cast<uint64_t>(sysconf(_SC_PHYS_PAGES)) *
                static_cast<uint64_t>(sysconf(_SC_PAGESIZE)));
  utsname uts;
  ASSERT_EQ(uname(&uts), 0);
  EXPECT_EQ(p.kernel_release(), uts.release);
  cpu_set_t set;
  ASSERT_EQ(sched_getaffinity(0, sizeof set, &set), 0);
  EXPECT_EQ(CountCpuList(p.process_cpu_affinity()),
            static_cast<uint32_t>(CPU_COUNT(&set)));

  int nvidia = 0;
  std::error_code ec;
  for (const auto& e :
       std::filesystem::directory_iterator("/sys/bus/pci/devices", ec)) {
    std::ifstream vendor(e.path() / "vendor");
    std::string v;
    vendor >> v;
    if (v == "0x10de") ++nvidia;
  }
  EXPECT_EQ(p.pci_devices_size(), nvidia);
  EXPECT_EQ(p.nvidia_probed(),
            std::filesystem::is_directory("/sys/bus/pci/devices", ec));
  EXPECT_EQ(!p.nvidia_driver_version().empty(),
            std::filesystem::exists("/proc/driver/nvidia/version", ec) ||
                std::filesystem::exists("/sys/module/nvidia/version", ec));
}

}  // namespace
}  // namespace feedprof::preload::host
