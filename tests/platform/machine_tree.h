// A constructed procfs/sysfs tree of a two-socket GPU server, for the
// platform checks.
//
// The files have the layout and formats of real machines (Linux 6.1 on a
// two-socket Xeon with two NVIDIA GPUs, NVMe disks, an InfiniBand HCA;
// the /proc files in the format this repository's CI machine prints them):
// sysfs PCI functions are symbolic links into the device tree under their
// upstream port, block devices are links from /sys/dev/block, cgroup v2 is
// mounted at /sys/fs/cgroup. As built, every check is ok; a test changes
// the one file its case is about.
#ifndef FEEDPROF_TESTS_PLATFORM_MACHINE_TREE_H_
#define FEEDPROF_TESTS_PLATFORM_MACHINE_TREE_H_

#include <sys/stat.h>

#include <filesystem>
#include <sstream>
#include <string>

#include "tests/testing/fixture_tree.h"

namespace feedprof::testing {

// The parts written one after another (the host tests link no abseil).
template <typename... Parts>
std::string Cat(const Parts&... parts) {
  std::ostringstream out;
  (out << ... << parts);
  return out.str();
}

class MachineTree : public FixtureTree {
 public:
  // GPU0 and GPU1: bus ids, their ports and NUMA nodes.
  static constexpr const char* kGpu0 = "0000:3b:00.0";
  static constexpr const char* kGpu1 = "0000:af:00.0";

  MachineTree() { WriteServer(); }

  // A symbolic link at `relative` pointing to `target` (relative to the
  // link's directory, as sysfs writes them).
  void Link(const std::string& relative, const std::string& target) const {
    const std::filesystem::path path = std::filesystem::path(root()) / relative;
    std::filesystem::create_directories(path.parent_path());
    std::filesystem::remove(path);
    std::filesystem::create_symlink(target, path);
  }
  void Remove(const std::string& relative) const {
    std::filesystem::remove_all(std::filesystem::path(root()) / relative);
  }

  // sysfs paths of the GPUs (the device directories under their ports).
  static std::string GpuDir(const std::string& bus_id) {
    return bus_id == kGpu0
               ? "sys/devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0/"
               : "sys/devices/pci0000:ae/0000:ae:00.0/0000:af:00.0/";
  }
  static std::string PortDir(const std::string& bus_id) {
    return bus_id == kGpu0 ? "sys/devices/pci0000:3a/0000:3a:00.0/"
                           : "sys/devices/pci0000:ae/0000:ae:00.0/";
  }

  // The link of a GPU: speeds as sysfs prints them ("16.0 GT/s PCIe").
  void SetLink(const std::string& bus_id, const std::string& current_speed,
               int current_width, const std::string& max_speed,
               int max_width) const {
    const std::string d = GpuDir(bus_id);
    Write(d + "current_link_speed", current_speed + "\n");
    Write(d + "current_link_width", Cat(current_width, "\n"));
    Write(d + "max_link_speed", max_speed + "\n");
    Write(d + "max_link_width", Cat(max_width, "\n"));
  }

  // /proc/stat with this aggregate cpu line (ticks).
  void SetProcStat(uint64_t user, uint64_t system, uint64_t idle,
                   uint64_t iowait) const {
    Write("proc/stat",
          Cat("cpu  ", user, " 29284 ", system, " ", idle, " ", iowait,
              " 0 3208 524 0 0\n"
              "cpu0 501348 14691 94494 389927 1303 0 99 268 0 0\n"
              "intr 123\nctxt 22816408\nbtime 1796113608\n"
              "processes 316724\nprocs_running 3\nprocs_blocked 0\n"
              "softirq 6871911 0 735946 5 31660 3040460 0 3 864012 0 "
              "2199825\n"));
  }

  void SetMeminfo(uint64_t total_kb, uint64_t available_kb, uint64_t dirty_kb,
                  uint64_t writeback_kb, uint64_t swap_total_kb,
                  uint64_t swap_free_kb) const {
    Write(
        "proc/meminfo",
        Cat("MemTotal:       ", total_kb,
            " kB\nMemFree:        23125584 kB\nMemAvailable:   ", available_kb,
            " kB\nBuffers:           11528 kB\n"
            "Cached:          1028232 kB\nSwapCached:            0 "
            "kB\nActive:           439212 kB\nSwapTotal:      ",
            swap_total_kb, " kB\nSwapFree:       ", swap_free_kb,
            " kB\nZswap:                 0 kB\nDirty:          ", dirty_kb,
            " kB\nWriteback:      ", writeback_kb,
            " kB\nAnonPages:        123456 kB\n"
            "HugePages_Total:       0\nHugepagesize:       2048 "
            "kB\n"));
  }

  // The process status file of /proc/self with these allowed CPUs.
  void SetSelfStatus(const std::string& cpus, const std::string& mems) const {
    Write("proc/self/status",
          Cat("Name:\tpython3\nUmask:\t0022\nState:\tS (sleeping)\n"
              "Tgid:\t4242\nNgid:\t0\nPid:\t4242\nPPid:\t4100\n"
              "Threads:\t12\nCpus_allowed:\tffffffff\n"
              "Cpus_allowed_list:\t",
              cpus,
              "\nMems_allowed:\t00000000,00000003\n"
              "Mems_allowed_list:\t",
              mems, "\nvoluntary_ctxt_switches:\t150\n"));
  }

  void SetNumaMapsPolicy(const std::string& policy) const {
    Write("proc/self/numa_maps",
          Cat("55d0c8a00000 ", policy,
              " file=/usr/bin/python3.11 mapped=3 N0=3 "
              "kernelpagesize_kB=4\n"
              "55d0c8a03000 ",
              policy,
              " file=/usr/bin/python3.11 mapped=20 N0=20 "
              "kernelpagesize_kB=4\n"));
  }

  void SetMemlock(const std::string& soft, const std::string& hard) const {
    Write("proc/self/limits",
          Cat("Limit                     Soft Limit           Hard Limit      "
              "     Units     \n"
              "Max cpu time              unlimited            unlimited       "
              "     seconds   \n"
              "Max stack size            8388608              unlimited       "
              "     bytes     \n"
              "Max open files            1048576              1048576         "
              "     files     \n"
              "Max locked memory         ",
              soft, std::string(21 - soft.size(), ' '), hard,
              std::string(21 - hard.size(), ' '),
              "bytes     \n"
              "Max address space         unlimited            unlimited       "
              "     bytes     \n"));
  }

  void SetCpufreq(const std::string& governor, const std::string& driver,
                  uint64_t cur_khz) const {
    for (int c = 0; c < 32; ++c) {
      const std::string d = Cat("sys/devices/system/cpu/cpu", c, "/cpufreq/");
      Write(d + "scaling_governor", governor + "\n");
      Write(d + "scaling_driver", driver + "\n");
      Write(d + "cpuinfo_max_freq", "3800000\n");
      Write(d + "scaling_cur_freq", Cat(cur_khz, "\n"));
    }
  }

 private:
  void WriteServer() const {
    // CPUs: 2 sockets x 8 cores x 2 threads.
    Write("proc/cpuinfo",
          "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\n"
          "model name\t: Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz\n"
          "siblings\t: 16\ncpu cores\t: 8\n\n");
    Write("sys/devices/system/cpu/present", "0-31\n");
    Write("sys/devices/system/cpu/possible", "0-31\n");
    Write("sys/devices/system/cpu/online", "0-31\n");
    Write("sys/devices/system/cpu/smt/control", "on\n");
    Write("sys/devices/system/cpu/smt/active", "1\n");
    Write("sys/devices/system/cpu/cpu0/topology/thread_siblings_list",
          "0,16\n");
    Write("sys/devices/system/cpu/cpu0/topology/core_cpus_list", "0,16\n");
    SetCpufreq("performance", "intel_pstate", 3400000);
    Write("sys/devices/system/node/online", "0-1\n");
    Write("sys/devices/system/node/has_cpu", "0-1\n");
    Write("sys/devices/system/node/node0/cpulist", "0-7,16-23\n");
    Write("sys/devices/system/node/node1/cpulist", "8-15,24-31\n");
    Write("sys/devices/system/node/node0/meminfo",
          "Node 0 MemTotal:       263921608 kB\nNode 0 MemFree: 1 kB\n");
    Write("sys/devices/system/node/node1/meminfo",
          "Node 1 MemTotal:       264358868 kB\nNode 1 MemFree: 1 kB\n");

    // GPUs under their ports, linked from /sys/bus/pci/devices.
    for (const char* bus : {kGpu0, kGpu1}) {
      const bool first = std::string(bus) == kGpu0;
      const std::string d = GpuDir(bus);
      Write(d + "vendor", "0x10de\n");
      Write(d + "device", "0x20b5\n");
      Write(d + "class", "0x030200\n");
      Write(d + "numa_node", first ? "0\n" : "1\n");
      Write(d + "local_cpulist", first ? "0-7,16-23\n" : "8-15,24-31\n");
      SetLink(bus, "16.0 GT/s PCIe", 16, "16.0 GT/s PCIe", 16);
      const std::string p = PortDir(bus);
      Write(p + "vendor", "0x8086\n");
      Write(p + "class", "0x060400\n");
      Write(p + "current_link_speed", "16.0 GT/s PCIe\n");
      Write(p + "current_link_width", "16\n");
      Write(p + "max_link_speed", "16.0 GT/s PCIe\n");
      Write(p + "max_link_width", "16\n");
      const std::string port = first ? "0000:3a:00.0" : "0000:ae:00.0";
      const std::string host = first ? "pci0000:3a" : "pci0000:ae";
      Link(Cat("sys/bus/pci/devices/", bus),
           Cat("../../../devices/", host, "/", port, "/", bus));
      Link(Cat("sys/bus/pci/devices/", port),
           Cat("../../../devices/", host, "/", port));
    }
    // The GPU's audio function and a chipset device: not GPUs.
    const std::string audio =
        "sys/devices/pci0000:3a/0000:3a:00.0/0000:3b:00.1/";
    Write(audio + "vendor", "0x10de\n");
    Write(audio + "class", "0x040300\n");
    Link("sys/bus/pci/devices/0000:3b:00.1",
         "../../../devices/pci0000:3a/0000:3a:00.0/0000:3b:00.1");
    Write("sys/devices/pci0000:00/0000:00:1f.0/vendor", "0x8086\n");
    Write("sys/devices/pci0000:00/0000:00:1f.0/class", "0x060100\n");
    Link("sys/bus/pci/devices/0000:00:1f.0",
         "../../../devices/pci0000:00/0000:00:1f.0");
    Write("proc/driver/nvidia/version",
          "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar "
          " 5 22:23:56 UTC 2024\nGCC version:  gcc version 12.2.0 (Debian "
          "12.2.0-14) \n");
    MakeDir("sys/class/infiniband/mlx5_0");

    // The process (as /proc/self).
    SetSelfStatus("0-7,16-23", "0-1");
    SetNumaMapsPolicy("default");
    SetMemlock("unlimited", "unlimited");
    Write("proc/self/cgroup", "0::/user.slice/job-7\n");
    Write("proc/self/mountinfo",
          "22 27 0:21 / /proc rw,relatime - proc proc rw\n"
          "23 27 0:22 / /sys rw,nosuid,nodev,noexec,relatime - sysfs sysfs "
          "rw\n"
          "27 1 259:2 / / rw,relatime - ext4 /dev/nvme0n1p2 "
          "rw,errors=remount-ro\n"
          "31 23 0:28 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime "
          "shared:9 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot\n"
          "40 27 259:5 / /data rw,noatime - xfs /dev/nvme1n1 "
          "rw,attr2,inode64,logbufs=8,logbsize=32k,noquota\n"
          "41 27 8:0 / /archive rw,relatime - ext4 /dev/sda rw\n"
          "42 27 0:53 / /mnt/nfs rw,relatime shared:33 - nfs4 "
          "storage01:/export/datasets "
          "rw,vers=4.2,rsize=1048576,wsize=1048576,namlen=255,hard,proto=tcp,"
          "timeo=600,retrans=2,sec=sys\n"
          "43 27 0:60 / /mnt/my\\040bucket rw,nosuid,nodev,relatime - "
          "fuse.s3fs s3fs rw,user_id=0,group_id=0\n");
    Write("sys/fs/cgroup/cgroup.controllers",
          "cpuset cpu io memory hugetlb pids rdma misc\n");
    Write("sys/fs/cgroup/user.slice/cpu.max", "max 100000\n");
    Write("sys/fs/cgroup/user.slice/memory.max", "max\n");
    Write("sys/fs/cgroup/user.slice/job-7/cpu.max", "max 100000\n");
    Write("sys/fs/cgroup/user.slice/job-7/memory.max", "max\n");
    Write("sys/fs/cgroup/user.slice/job-7/memory.current", "3221225472\n");

    // Load, pressure, memory.
    Write("proc/loadavg", "3.10 2.95 2.80 4/1210 88123\n");
    Write("proc/pressure/cpu",
          "some avg10=1.50 avg60=0.77 avg300=2.98 total=3001546027\n"
          "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n");
    Write("proc/pressure/io",
          "some avg10=0.13 avg60=0.26 avg300=0.19 total=110620058\n"
          "full avg10=0.00 avg60=0.00 avg300=0.04 total=52964810\n");
    SetProcStat(1095993, 250091, 621662, 5900);
    SetMeminfo(527280476, 500000000, 30284, 0, 0, 0);
    Write("sys/kernel/mm/transparent_hugepage/enabled",
          "always [madvise] never\n");
    Write("sys/kernel/mm/transparent_hugepage/defrag",
          "always defer defer+madvise [madvise] never\n");
    Write("proc/sys/vm/dirty_ratio", "20\n");
    Write("proc/sys/vm/dirty_background_ratio", "10\n");
    Write("proc/sys/vm/dirty_bytes", "0\n");
    Write("proc/sys/vm/dirty_background_bytes", "0\n");
    Write("proc/sys/kernel/hostname", "gpu-node-17\n");

    // Block devices: the root partition on nvme0n1, /data on nvme1n1,
    // /archive on a SATA disk.
    const std::string nvme0 =
        "sys/devices/pci0000:00/0000:00:1d.0/0000:01:00.0/nvme/nvme0/nvme0n1";
    Write(nvme0 + "/queue/rotational", "0\n");
    Write(nvme0 + "/queue/scheduler", "[none] mq-deadline\n");
    Write(nvme0 + "/nvme0n1p2/partition", "2\n");
    Link("sys/dev/block/259:2",
         "../../devices/pci0000:00/0000:00:1d.0/0000:01:00.0/nvme/nvme0/"
         "nvme0n1/nvme0n1p2");
    const std::string nvme1 =
        "sys/devices/pci0000:00/0000:00:1d.4/0000:02:00.0/nvme/nvme1/nvme1n1";
    Write(nvme1 + "/queue/rotational", "0\n");
    Write(nvme1 + "/queue/scheduler", "[none] mq-deadline\n");
    Link("sys/dev/block/259:5",
         "../../devices/pci0000:00/0000:00:1d.4/0000:02:00.0/nvme/nvme1/"
         "nvme1n1");
    const std::string sda =
        "sys/devices/pci0000:00/0000:00:17.0/ata1/host0/target0:0:0/"
        "0:0:0:0/block/sda";
    Write(sda + "/queue/rotational", "1\n");
    Write(sda + "/queue/scheduler", "[mq-deadline] kyber bfq none\n");
    Link("sys/dev/block/8:0",
         "../../devices/pci0000:00/0000:00:17.0/ata1/host0/target0:0:0/"
         "0:0:0:0/block/sda");

    // Data: a few files in an ImageNet-like layout.
    Write("data/imagenet/train/n01440764/n01440764_10026.JPEG",
          std::string(13000, 'a'));
    Write("data/imagenet/train/n01440764/n01440764_10027.JPEG",
          std::string(7000, 'b'));
    Write("data/imagenet/train/n01443537/n01443537_10007.JPEG",
          std::string(5000, 'c'));
    Write("mnt/nfs/shards/train-000000.tar", std::string(4096, 'd'));
    Write("archive/old/part-0.parquet", std::string(2048, 'e'));
  }
};

}  // namespace feedprof::testing

#endif  // FEEDPROF_TESTS_PLATFORM_MACHINE_TREE_H_
