// CPU and memory checks on a constructed server: governor and clocks, SMT,
// offline CPUs, cgroup CPU quota (v2 and v1, tightest level), load and
// pressure, iowait over an interval, MemAvailable, dirty and writeback
// memory against the kernel's thresholds, swap, THP, the locked-memory
// limit, and the cgroup memory limit.
#include <string>

#include "gtest/gtest.h"
#include "tests/platform/findings.h"

namespace feedprof::testing {
namespace {

using platform::MachineFacts;
using platform::MachineRoot;

const std::string kSelf = "this shell (doctor, pid 4242)";

TEST(CpuChecks, PerformanceGovernorIsOkWithTheClocksInTheFiles) {
  MachineTree t;
  const PlatformFinding f = Check(ReadTree(t), "cpu_frequency");
  EXPECT_EQ(f.status, PlatformStatus::kOk) << Describe(f);
  EXPECT_EQ(f.value,
            "governor performance (intel_pstate), 3.40 of 3.80 GHz on "
            "average");
}

TEST(CpuChecks, PowersaveWarnsWithPstateAndFailsWithAcpiCpufreq) {
  MachineTree t;
  t.SetCpufreq("powersave", "intel_pstate", 1200000);
  PlatformFinding f = Check(ReadTree(t), "cpu_frequency");
  EXPECT_EQ(f.status, PlatformStatus::kWarn) << Describe(f);
  EXPECT_EQ(f.value,
            "governor powersave (intel_pstate), 1.20 of 3.80 GHz on average");
  EXPECT_NE(f.action.find("cpupower frequency-set -g performance"),
            std::string::npos);

  t.SetCpufreq("powersave", "acpi-cpufreq", 800000);
  f = Check(ReadTree(t), "cpu_frequency");
  EXPECT_EQ(f.status, PlatformStatus::kFail) << Describe(f);
  EXPECT_NE(f.meaning.find("lowest clock"), std::string::npos);
}

TEST(CpuChecks, GovernorSetOnSomeCpusOnlyWarns) {
  MachineTree t;
  for (int c : {30, 31}) {
    t.Write("sys/devices/system/cpu/cpu" + std::to_string(c) +
                "/cpufreq/scaling_governor",
            "powersave\n");
  }
  const PlatformFinding f = Check(ReadTree(t), "cpu_frequency");
  EXPECT_EQ(f.status, PlatformStatus::kWarn) << Describe(f);
  EXPECT_NE(f.value.find("2 CPUs use another governor"), std::string::npos);
}

TEST(CpuChecks, NoCpufreqIsUnknownWithTheReason) {
  MachineTree t;
  for (int c = 0; c < 32; ++c) {
    t.Remove("sys/devices/system/cpu/cpu" + std::to_string(c) + "/cpufreq");
  }
  const PlatformFinding f = Check(ReadTree(t), "cpu_frequency");
  EXPECT_EQ(f.status, PlatformStatus::kUnknown);
  EXPECT_EQ(f.meaning.substr(0, 58),
            "/sys/devices/system/cpu/cpu0/cpufreq does not exist: no CP");
}

TEST(CpuChecks, SmtCountsCoresAndWarnsWhenWorkersOutnumberThem) {
  MachineTree t;
  MachineFacts m = ReadTree(t);
  PlatformFinding f = Check(m, "cpu_smt");
  EXPECT_EQ(f.status, PlatformStatus::kOk) << Describe(f);
  EXPECT_EQ(f.value,
            "on: 2 threads per core (16 cores, 32 logical CPUs online), "
            "control on");
  m.process.workers = 24;
  f = Check(m, "cpu_smt");
  EXPECT_EQ(f.status, PlatformStatus::kWarn) << Describe(f);
  EXPECT_NE(f.meaning.find("24 workers on 16 physical cores"),
            std::string::npos);
  t.Remove("sys/devices/system/cpu/cpu0/topology");
  EXPECT_EQ(Check(ReadTree(t), "cpu_smt").status, PlatformStatus::kUnknown);
}

TEST(CpuChecks, OfflineCpusWarn) {
  MachineTree t;
  t.Write("sys/devices/system/cpu/online", "0-27\n");
  const PlatformFinding f = Check(ReadTree(t), "cpu_online");
  EXPECT_EQ(f.status, PlatformStatus::kWarn) << Describe(f);
  EXPECT_EQ(f.value, "28 of 32 CPUs online (offline: 28-31)");
}

TEST(CpuChecks, CgroupV2QuotaTakesTheTightestLevel) {
  MachineTree t;
  PlatformFinding f = Check(ReadTree(t), "cgroup_cpu");
  EXPECT_EQ(f.status, PlatformStatus::kOk) << Describe(f);
  EXPECT_EQ(f.value, "no CPU quota");

  t.Write("sys/fs/cgroup/user.slice/cpu.max", "400000 100000\n");
  t.Write("sys/fs/cgroup/user.slice/job-7/cpu.max", "800000 100000\n");
  f = Check(ReadTree(t), "cgroup_cpu");
  EXPECT_EQ(f.status, PlatformStatus::kWarn) << Describe(f);
  EXPECT_EQ(f.value,
            "quota 4.00 CPUs (/sys/fs/cgroup/user.slice/cpu.max), 16 CPUs "
            "allowed");
  EXPECT_NE(f.meaning.find("work beyond 4.00 CPUs is throttled"),
            std::string::npos);
}

TEST(CpuChecks, QuotaBelowTheWorkerCountFails) {
  MachineTree t;
  t.Write("sys/fs/cgroup/user.slice/job-7/cpu.max", "400000 100000\n");
  MachineFacts m = ReadTree(t);
  m.process.workers = 16;
  const PlatformFinding f = Check(m, "cgroup_cpu");
  EXPECT_EQ(f.status, PlatformStatus::kFail) << Describe(f);
  EXPECT_EQ(f.value,
            "quota 4.00 CPUs (/sys/fs/cgroup/user.slice/job-7/cpu.max), 16 "
            "CPUs allowed, 16 worker processes");
  EXPECT_NE(f.action.find("num_workers=3"), std::string::npos);
}

TEST(CpuChecks, CgroupV1QuotaAndAContainerWithoutCgroupFiles) {
  MachineTree t;
  t.Write("proc/self/cgroup",
          "12:memory:/docker/4f1c\n4:cpu,cpuacct:/docker/4f1c\n0::/\n");
  t.Write("proc/self/mountinfo",
          "35 31 0:31 /docker/4f1c /sys/fs/cgroup/cpu,cpuacct ro,nosuid - "
          "cgroup cgroup rw,cpu,cpuacct\n"
          "36 31 0:32 /docker/4f1c /sys/fs/cgroup/memory ro,nosuid - cgroup "
          "cgroup rw,memory\n");
  // Inside the container's namespace its cgroup is the mount's root.
  t.Write("sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us", "150000\n");
  t.Write("sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us", "100000\n");
  t.Write("sys/fs/cgroup/memory/memory.limit_in_bytes", "17179869184\n");
  t.Write("sys/fs/cgroup/memory/memory.usage_in_bytes", "16642998272\n");
  const MachineFacts m = ReadTree(t);
  const PlatformFinding cpu = Check(m, "cgroup_cpu");
  EXPECT_EQ(cpu.status, PlatformStatus::kWarn) << Describe(cpu);
  EXPECT_EQ(cpu.value,
            "quota 1.50 CPUs (/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us), "
            "16 CPUs allowed");
  const PlatformFinding mem = Check(m, "cgroup_memory");
  EXPECT_EQ(mem.status, PlatformStatus::kWarn) << Describe(mem);
  EXPECT_EQ(mem.value,
            "limit 16.0 GiB, in use 15.5 GiB (96.9%) "
            "(/sys/fs/cgroup/memory/memory.limit_in_bytes)");

  t.Remove("proc/self/cgroup");
  const PlatformFinding gone = Check(ReadTree(t), "cgroup_cpu");
  EXPECT_EQ(gone.status, PlatformStatus::kUnknown);
  EXPECT_EQ(gone.meaning, "/proc/self/cgroup does not exist");
}

TEST(CpuChecks, LoadAbovetheCpusAndCpuPressureWarn) {
  MachineTree t;
  PlatformFinding f = Check(ReadTree(t), "cpu_load");
  EXPECT_EQ(f.status, PlatformStatus::kOk) << Describe(f);
  EXPECT_EQ(f.value,
            "load 3.10 (1 min) on 16 CPUs, 4 runnable, cpu pressure 1.50% "
            "(some, 10 s)");
  t.Write("proc/loadavg", "40.52 38.10 30.00 41/1830 99123\n");
  f = Check(ReadTree(t), "cpu_load");
  EXPECT_EQ(f.status, PlatformStatus::kWarn) << Describe(f);
  EXPECT_EQ(f.value.substr(0, 40), "load 40.52 (1 min) on 16 CPUs, 41 runnab");
  t.Write("proc/loadavg", "1.00 1.00 1.00 1/1830 99123\n");
  t.Write("proc/pressure/cpu",
          "some avg10=35.20 avg60=20.00 avg300=5.00 total=1\n"
          "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n");
  EXPECT_EQ(Check(ReadTree(t), "cpu_load").status, PlatformStatus::kWarn);
}

TEST(CpuChecks, IowaitOverTheSampleInterval) {
  MachineTree t;
  const MachineRoot root(t.root());
  const auto iowait_after = [&](uint64_t busy, uint64_t idle, uint64_t wait) {
    t.SetProcStat(1000, 1000, 1000, 1000);
    const platform::CpuTimeSample begin = platform::BeginCpuTimeSample(root);
    t.SetProcStat(1000 + busy, 1000, 1000 + idle, 1000 + wait);
    MachineFacts m = ReadTree(t);
    platform::FinishCpuTimeSample(root, begin, &m.load);
    return Check(m, "cpu_iowait");
  };
  PlatformFinding f = iowait_after(60, 10, 30);  // 30 of 100 ticks
  EXPECT_EQ(f.status, PlatformStatus::kFail) << Describe(f);
  EXPECT_EQ(f.value.substr(0, 32), "iowait 30.0% of CPU time over 0.");
  EXPECT_NE(f.value.find(", io pressure 0.13% (some, 10 s)"),
            std::string::npos);
  f = iowait_after(80, 12, 8);
  EXPECT_EQ(f.status, PlatformStatus::kWarn) << Describe(f);
  EXPECT_EQ(f.value.substr(0, 12), "iowait 8.0% ");
  f = iowait_after(90, 9, 1);
  EXPECT_EQ(f.status, PlatformStatus::kOk) << Describe(f);
  EXPECT_EQ(f.value.substr(0, 12), "iowait 1.0% ");
  f = iowait_after(0, 0, 0);
  EXPECT_EQ(f.status, PlatformStatus::kUnknown);
  EXPECT_NE(f.meaning.find("no CPU time passed"), std::string::npos);
}

TEST(MemoryChecks, AvailableMemoryThresholds) {
  MachineTree t;
  t.SetMeminfo(100000000, 3000000, 0, 0, 0, 0);  // 3 %
  PlatformFinding f = Check(ReadTree(t), "mem_available");
  EXPECT_EQ(f.status, PlatformStatus::kFail) << Describe(f);
  EXPECT_EQ(f.value, "MemAvailable 2.9 GiB of 95.4 GiB (3.0%, now)");
  t.SetMeminfo(100000000, 8000000, 0, 0, 0, 0);
  EXPECT_EQ(Check(ReadTree(t), "mem_available").status, PlatformStatus::kWarn);
  t.SetMeminfo(100000000, 60000000, 0, 0, 0, 0);
  EXPECT_EQ(Check(ReadTree(t), "mem_available").status, PlatformStatus::kOk);
}

TEST(MemoryChecks, DirtyMemoryAgainstTheKernelsThresholds) {
  MachineTree t;
  // Dirtyable ≈ 10 GiB: background writeback from 1 GiB, throttling from
  // 2 GiB (vm.dirty_background_ratio 10, vm.dirty_ratio 20).
  t.SetMeminfo(104857600, 9437184, 1048576, 0, 0, 0);
  PlatformFinding f = Check(ReadTree(t), "mem_dirty");
  EXPECT_EQ(f.status, PlatformStatus::kWarn) << Describe(f);
  EXPECT_EQ(f.value,
            "Dirty 1.0 GiB, Writeback 0 B (now); background writeback from "
            "1.0 GiB, writers throttled from 2.0 GiB");
  t.SetMeminfo(104857600, 7340032, 2097152, 1048576, 0, 0);
  f = Check(ReadTree(t), "mem_dirty");
  EXPECT_EQ(f.status, PlatformStatus::kFail) << Describe(f);
  EXPECT_NE(f.value.find("Dirty 2.0 GiB, Writeback 1.0 GiB"),
            std::string::npos);
  t.Write("proc/sys/vm/dirty_bytes", "8589934592\n");  // 8 GiB
  t.Write("proc/sys/vm/dirty_background_bytes", "4294967296\n");
  EXPECT_EQ(Check(ReadTree(t), "mem_dirty").status, PlatformStatus::kOk);
}

TEST(MemoryChecks, SwapInUseWarns) {
  MachineTree t;
  EXPECT_EQ(Check(ReadTree(t), "mem_swap").value, "no swap configured");
  t.SetMeminfo(527280476, 500000000, 0, 0, 8388604, 6291452);
  const PlatformFinding f = Check(ReadTree(t), "mem_swap");
  EXPECT_EQ(f.status, PlatformStatus::kWarn) << Describe(f);
  EXPECT_EQ(f.value, "2.0 GiB of 8.0 GiB swap in use (now)");
}

TEST(MemoryChecks, TransparentHugePagesAlwaysWithAlwaysDefragWarns) {
  MachineTree t;
  PlatformFinding f = Check(ReadTree(t), "mem_thp");
  EXPECT_EQ(f.status, PlatformStatus::kOk) << Describe(f);
  EXPECT_EQ(f.value, "transparent huge pages madvise, defrag madvise");
  t.Write("sys/kernel/mm/transparent_hugepage/enabled",
          "[always] madvise never\n");
  t.Write("sys/kernel/mm/transparent_hugepage/defrag",
          "[always] defer defer+madvise madvise never\n");
  f = Check(ReadTree(t), "mem_thp");
  EXPECT_EQ(f.status, PlatformStatus::kWarn) << Describe(f);
  t.Remove("sys/kernel/mm/transparent_hugepage");
  f = Check(ReadTree(t), "mem_thp");
  EXPECT_EQ(f.status, PlatformStatus::kUnknown);
  EXPECT_NE(f.meaning.find("a kernel without transparent huge pages"),
            std::string::npos);
}

TEST(MemoryChecks, LockedMemoryLimitWarnsWhereRdmaNeedsIt) {
  MachineTree t;
  PlatformFinding f = Check(ReadTree(t), "mem_locked_limit", kSelf);
  EXPECT_EQ(f.status, PlatformStatus::kOk) << Describe(f);
  EXPECT_EQ(f.value, "ulimit -l unlimited");
  t.SetMemlock("8388608", "8388608");
  f = Check(ReadTree(t), "mem_locked_limit", kSelf);
  EXPECT_EQ(f.status, PlatformStatus::kWarn) << Describe(f);  // mlx5_0
  EXPECT_EQ(f.value, "ulimit -l 8.0 MiB");
  t.Remove("sys/class/infiniband");
  EXPECT_EQ(Check(ReadTree(t), "mem_locked_limit", kSelf).status,
            PlatformStatus::kOk);
}

TEST(MemoryChecks, CgroupMemoryLimitWithRoomIsOk) {
  MachineTree t;
  EXPECT_EQ(Check(ReadTree(t), "cgroup_memory").value, "no memory limit");
  t.Write("sys/fs/cgroup/user.slice/job-7/memory.max", "34359738368\n");
  const PlatformFinding f = Check(ReadTree(t), "cgroup_memory");
  EXPECT_EQ(f.status, PlatformStatus::kOk) << Describe(f);
  EXPECT_EQ(f.value,
            "limit 32.0 GiB, in use 3.0 GiB (9.4%) "
            "(/sys/fs/cgroup/user.slice/job-7/memory.max)");
}

}  // namespace
}  // namespace feedprof::testing
