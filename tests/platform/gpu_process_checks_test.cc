// GPU and process checks on a constructed two-socket GPU server: the PCIe
// link (full, narrow, slow while idle or busy, capped by its slot, down,
// absent in a VM), the GPUs' NUMA nodes, and the process's CPUs and memory
// policy against them.
#include <string>

#include "gtest/gtest.h"
#include "tests/platform/findings.h"

namespace feedprof::testing {
namespace {

using platform::MachineFacts;

const std::string kGpu0Label = "GPU0 0000:3b:00.0";
const std::string kGpu1Label = "GPU1 0000:af:00.0";
const std::string kSelf = "this shell (doctor, pid 4242)";

TEST(GpuChecks, HealthyServerHasTwoGpusAtFullLinkOnTheirNodes) {
  MachineTree t;
  const MachineFacts m = ReadTree(t);
  ASSERT_TRUE(m.gpus.known());
  ASSERT_EQ(m.gpus->size(), 2u);  // the audio function is not a GPU
  EXPECT_EQ((*m.gpus)[0].upstream_port, "0000:3a:00.0");

  const PlatformFinding gpus = Check(m, "gpus");
  EXPECT_EQ(gpus.status, PlatformStatus::kOk) << Describe(gpus);
  EXPECT_EQ(gpus.value, "2 NVIDIA GPUs: GPU0 0000:3b:00.0, GPU1 0000:af:00.0");
  const PlatformFinding link = Check(m, "gpu_pcie_link", kGpu0Label);
  EXPECT_EQ(link.status, PlatformStatus::kOk) << Describe(link);
  EXPECT_EQ(link.value,
            "Gen4 x16 (16 GT/s, 31.5 GB/s) of Gen4 x16 (16 GT/s, 31.5 GB/s)");
  const PlatformFinding node = Check(m, "gpu_numa", kGpu1Label);
  EXPECT_EQ(node.status, PlatformStatus::kOk) << Describe(node);
  EXPECT_EQ(node.value, "NUMA node 1, local CPUs 8-15,24-31");
}

TEST(GpuChecks, NarrowLinkFailsWithTheLaneCountsAndBandwidth) {
  MachineTree t;
  t.SetLink(MachineTree::kGpu0, "16.0 GT/s PCIe", 8, "16.0 GT/s PCIe", 16);
  const PlatformFinding f = Check(ReadTree(t), "gpu_pcie_link", kGpu0Label);
  EXPECT_EQ(f.status, PlatformStatus::kFail) << Describe(f);
  EXPECT_EQ(f.value,
            "Gen4 x8 (16 GT/s, 15.8 GB/s) of Gen4 x16 (16 GT/s, 31.5 GB/s)");
  EXPECT_NE(f.meaning.find("x8 of x16 lanes"), std::string::npos) << f.meaning;
  EXPECT_NE(f.meaning.find("at most 15.8 of 31.5 GB/s"), std::string::npos);
  EXPECT_NE(f.action.find("lspci -vv -s 0000:3b:00.0"), std::string::npos);
  // The other GPU is not affected.
  EXPECT_EQ(Check(ReadTree(t), "gpu_pcie_link", kGpu1Label).status,
            PlatformStatus::kOk);
}

TEST(GpuChecks, SlowLinkWithoutNvmlWarnsThatTheGpuMayBeIdle) {
  MachineTree t;
  // What an idle A100 shows: trained down to Gen1 to save power.
  t.SetLink(MachineTree::kGpu1, "2.5 GT/s PCIe", 16, "16.0 GT/s PCIe", 16);
  const PlatformFinding f = Check(ReadTree(t), "gpu_pcie_link", kGpu1Label);
  EXPECT_EQ(f.status, PlatformStatus::kWarn) << Describe(f);
  EXPECT_EQ(f.value,
            "Gen1 x16 (2.5 GT/s, 4.0 GB/s) of Gen4 x16 (16 GT/s, 31.5 GB/s)");
  EXPECT_NE(f.meaning.find("idle GPUs lower their link speed"),
            std::string::npos);
  EXPECT_NE(f.meaning.find("Gen1 of Gen4"), std::string::npos);
}

TEST(GpuChecks, SlowLinkIsOkWhenNvmlSaysIdleAndFailsWhenBusy) {
  MachineTree t;
  t.SetLink(MachineTree::kGpu0, "2.5 GT/s PCIe", 16, "16.0 GT/s PCIe", 16);
  MachineFacts m = ReadTree(t);
  platform::NvmlGpuFacts idle;
  idle.utilization_pct = 0;
  (*m.gpus.value)[0].nvml = idle;
  PlatformFinding f = Check(m, "gpu_pcie_link", kGpu0Label);
  EXPECT_EQ(f.status, PlatformStatus::kOk) << Describe(f);
  EXPECT_NE(f.meaning.find("idle (0% utilization)"), std::string::npos);
  EXPECT_NE(f.value.find("GPU utilization 0%"), std::string::npos);

  platform::NvmlGpuFacts busy;
  busy.utilization_pct = 93;
  busy.pcie_gen = 1;
  busy.pcie_width = 16;
  (*m.gpus.value)[0].nvml = busy;
  f = Check(m, "gpu_pcie_link", kGpu0Label);
  EXPECT_EQ(f.status, PlatformStatus::kFail) << Describe(f);
  EXPECT_NE(f.meaning.find("Gen1 while the GPU is busy"), std::string::npos);
  EXPECT_NE(f.meaning.find("at most 4.0 of 31.5 GB/s"), std::string::npos);
}

TEST(GpuChecks, BusyLinkReadByNvmlWinsOverAnIdleSysfsReading) {
  // sysfs read while idle (Gen1), NVML samples while busy (Gen4): fine.
  MachineTree t;
  t.SetLink(MachineTree::kGpu0, "2.5 GT/s PCIe", 16, "16.0 GT/s PCIe", 16);
  MachineFacts m = ReadTree(t);
  platform::NvmlGpuFacts busy;
  busy.utilization_pct = 80;
  busy.pcie_gen = 4;
  busy.pcie_width = 16;
  busy.samples = 120;
  (*m.gpus.value)[0].nvml = busy;
  const PlatformFinding f = Check(m, "gpu_pcie_link", kGpu0Label);
  EXPECT_EQ(f.status, PlatformStatus::kOk) << Describe(f);
  EXPECT_EQ(f.value,
            "Gen4 x16 (16 GT/s, 31.5 GB/s) (NVML, while busy) of Gen4 x16 "
            "(16 GT/s, 31.5 GB/s), GPU utilization 80%");
}

TEST(GpuChecks, SlotThatCapsTheGpuWarnsAndNamesThePort) {
  MachineTree t;
  // A Gen4 GPU in a Gen3 slot: it trains at Gen3, the port's maximum.
  t.SetLink(MachineTree::kGpu0, "8.0 GT/s PCIe", 16, "16.0 GT/s PCIe", 16);
  t.Write(MachineTree::PortDir(MachineTree::kGpu0) + "max_link_speed",
          "8.0 GT/s PCIe\n");
  const PlatformFinding f = Check(ReadTree(t), "gpu_pcie_link", kGpu0Label);
  EXPECT_EQ(f.status, PlatformStatus::kWarn) << Describe(f);
  EXPECT_EQ(f.value,
            "Gen3 x16 (8 GT/s, 15.8 GB/s) of Gen3 x16 (8 GT/s, 15.8 GB/s)");
  EXPECT_NE(f.meaning.find("port 0000:3a:00.0, up to Gen3 x16 (8 GT/s, 15.8 "
                           "GB/s)"),
            std::string::npos)
      << f.meaning;
  EXPECT_NE(f.meaning.find("can do Gen4 x16"), std::string::npos);
}

TEST(GpuChecks, LinkThatIsDownOrHasNoAttributesIsUnknown) {
  MachineTree t;
  t.Write(MachineTree::GpuDir(MachineTree::kGpu0) + "current_link_speed",
          "Unknown\n");
  // A VM's emulated bus: no link attributes at all.
  for (const char* name : {"current_link_speed", "max_link_speed",
                           "current_link_width", "max_link_width"}) {
    t.Remove(MachineTree::GpuDir(MachineTree::kGpu1) + name);
  }
  const MachineFacts m = ReadTree(t);
  const PlatformFinding down = Check(m, "gpu_pcie_link", kGpu0Label);
  EXPECT_EQ(down.status, PlatformStatus::kUnknown) << Describe(down);
  EXPECT_NE(down.meaning.find("says \"Unknown\" (the link is down"),
            std::string::npos)
      << down.meaning;
  const PlatformFinding vm = Check(m, "gpu_pcie_link", kGpu1Label);
  EXPECT_EQ(vm.status, PlatformStatus::kUnknown);
  EXPECT_NE(vm.meaning.find("has no link attributes"), std::string::npos);
}

TEST(GpuChecks, UnknownNumaNodeOnTwoSocketsWarns) {
  MachineTree t;
  t.Write(MachineTree::GpuDir(MachineTree::kGpu1) + "numa_node", "-1\n");
  const PlatformFinding f = Check(ReadTree(t), "gpu_numa", kGpu1Label);
  EXPECT_EQ(f.status, PlatformStatus::kWarn) << Describe(f);
  EXPECT_EQ(f.value,
            "numa_node -1 on a machine with 2 NUMA nodes, local CPUs "
            "8-15,24-31");
}

TEST(GpuChecks, MachineWithoutNvidiaGpusWarns) {
  MachineTree t;
  t.Remove("sys/bus/pci/devices/" + std::string(MachineTree::kGpu0));
  t.Remove("sys/bus/pci/devices/" + std::string(MachineTree::kGpu1));
  const MachineFacts m = ReadTree(t);
  const PlatformFinding f = Check(m, "gpus");
  EXPECT_EQ(f.status, PlatformStatus::kWarn) << Describe(f);
  EXPECT_EQ(f.value, "no NVIDIA GPU");
  EXPECT_EQ(FindingOf(platform::CheckPlatform(m), "process_numa").status,
            PlatformStatus::kUnknown);
}

TEST(ProcessChecks, ProcessOnTheFarNodeFails) {
  MachineTree t;
  // Both GPUs on node 0, the process allowed only node 1's CPUs.
  t.Write(MachineTree::GpuDir(MachineTree::kGpu1) + "numa_node", "0\n");
  t.SetSelfStatus("8-15,24-31", "1");
  const PlatformFinding f = Check(ReadTree(t), "process_numa", kSelf);
  EXPECT_EQ(f.status, PlatformStatus::kFail) << Describe(f);
  EXPECT_EQ(f.value,
            "CPUs 8-15,24-31, memory policy default; CPUs on node 1; GPU0 "
            "and GPU1 on node 0");
  EXPECT_NE(f.meaning.find("runs on node 1"), std::string::npos);
  EXPECT_NE(f.action.find("numactl --cpunodebind=0 --membind=0"),
            std::string::npos);
}

TEST(ProcessChecks, MemoryBoundToTheFarNodeFails) {
  MachineTree t;
  t.Write(MachineTree::GpuDir(MachineTree::kGpu1) + "numa_node", "0\n");
  t.SetSelfStatus("0-7,16-23", "0-1");
  t.SetNumaMapsPolicy("bind:1");
  const PlatformFinding f = Check(ReadTree(t), "process_numa", kSelf);
  EXPECT_EQ(f.status, PlatformStatus::kFail) << Describe(f);
  EXPECT_NE(f.value.find("memory policy bind:1"), std::string::npos);
  EXPECT_NE(f.meaning.find("memory is bound to node 1"), std::string::npos);
}

TEST(ProcessChecks, PinnedNearItsGpuAndUnpinnedAreOk) {
  MachineTree t;
  PlatformFinding f = Check(ReadTree(t), "process_numa", kSelf);
  EXPECT_EQ(f.status, PlatformStatus::kOk) << Describe(f);
  EXPECT_EQ(f.value,
            "CPUs 0-7,16-23, memory policy default; CPUs on node 0; GPU0 on "
            "node 0, GPU1 on node 1");
  EXPECT_EQ(f.meaning, "on the node of its GPU");

  t.Write(MachineTree::GpuDir(MachineTree::kGpu1) + "numa_node", "0\n");
  t.SetSelfStatus("0-31", "0-1");
  f = Check(ReadTree(t), "process_numa", kSelf);
  EXPECT_EQ(f.status, PlatformStatus::kOk) << Describe(f);
  EXPECT_NE(f.meaning.find("not pinned"), std::string::npos);
}

TEST(ProcessChecks, AnotherProcessIsNamedByPid) {
  MachineTree t;
  t.Write("proc/777/status",
          "Name:\tpt_data_worker\nPid:\t777\nCpus_allowed_list:\t8-15\n"
          "Mems_allowed_list:\t0-1\n");
  t.Write("proc/777/numa_maps", "55d0c8a00000 prefer:1 file=/usr/bin/x\n");
  platform::ReadOptions o;
  o.pid = 777;
  const MachineFacts m = ReadTree(t, o);
  const PlatformFinding f = Check(m, "process_numa");
  EXPECT_EQ(f.subject, "process 777 (pt_data_worker)");
  EXPECT_EQ(f.status, PlatformStatus::kOk) << Describe(f);  // GPU1: node 1
  EXPECT_NE(f.value.find("memory policy prefer:1"), std::string::npos);
  // Its limits file is missing in this tree: unknown, naming the file.
  const PlatformFinding l = Check(m, "mem_locked_limit");
  EXPECT_EQ(l.status, PlatformStatus::kUnknown);
  EXPECT_EQ(l.meaning, "/proc/777/limits does not exist");
}

}  // namespace
}  // namespace feedprof::testing
