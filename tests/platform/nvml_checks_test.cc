// Doctor with NVML: a stand-in libnvidia-ml (fake_nvml_gpus.cc) reports the
// constructed server's two GPUs, one busy and in trouble, one idle and
// healthy; each NVML check reads the numbers the library returned. Without
// the library, NVML is unknown with dlopen's words.
#include <string>

#include "gtest/gtest.h"
#include "platform/doctor.h"
#include "tests/platform/findings.h"

namespace feedprof::testing {
namespace {

const std::string kGpu0 = "GPU0 0000:3b:00.0";
const std::string kGpu1 = "GPU1 0000:af:00.0";

platform::DoctorResult Doctor(const MachineTree& t,
                              const std::string& library = FEEDPROF_FAKE_NVML,
                              std::optional<int> pid = std::nullopt) {
  platform::DoctorOptions o;
  o.root = t.root();
  o.nvml_library = library;
  o.cpu_sample_ms = 0;
  o.read.pid = pid;
  return platform::RunDoctor(o);
}

TEST(NvmlChecks, DriverAndVersionsFromNvmlAndTheKernelModule) {
  MachineTree t;
  platform::DoctorResult r = Doctor(t);
  PlatformFinding f = FindingOf(r.report.findings, "nvidia_driver");
  EXPECT_EQ(f.status, PlatformStatus::kOk) << Describe(f);
  EXPECT_EQ(f.value,
            "driver 550.54.15, CUDA 12.4 (driver API), kernel module "
            "550.54.15");
  EXPECT_EQ(FindingOf(r.report.findings, "nvml").value, "NVML sees 2 GPUs");
  EXPECT_EQ(FindingOf(r.report.findings, "gpus").value,
            "2 NVIDIA GPUs: GPU0 0000:3b:00.0 NVIDIA A100-SXM4-80GB, GPU1 "
            "0000:af:00.0 NVIDIA A100-SXM4-80GB");
  EXPECT_EQ(r.hostname, "gpu-node-17");

  t.Write("proc/driver/nvidia/version",
          "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  "
          "545.29.06  Release Build  (dvs-builder@U16-T02-35-3)\n");
  r = Doctor(t);
  f = FindingOf(r.report.findings, "nvidia_driver");
  EXPECT_EQ(f.status, PlatformStatus::kFail) << Describe(f);
  EXPECT_NE(f.value.find("kernel module 545.29.06"), std::string::npos);
  EXPECT_EQ(platform::DoctorExitCode(r.report), 1);
}

TEST(NvmlChecks, BusyGpuInTroubleShowsEachReading) {
  MachineTree t;
  const platform::DoctorResult r = Doctor(t);
  const auto& all = r.report.findings;
  PlatformFinding f = FindingOf(all, "gpu_clocks", kGpu0);
  EXPECT_EQ(f.status, PlatformStatus::kWarn) << Describe(f);
  EXPECT_EQ(f.value, "SM 1410 of 1980 MHz, utilization 87%");
  f = FindingOf(all, "gpu_throttle", kGpu0);
  EXPECT_EQ(f.status, PlatformStatus::kFail) << Describe(f);
  EXPECT_EQ(f.value, "SW power cap, HW slowdown (0xc)");
  f = FindingOf(all, "gpu_power", kGpu0);
  EXPECT_EQ(f.status, PlatformStatus::kWarn) << Describe(f);
  EXPECT_EQ(f.value, "300.5 of 300.0 W (default limit 400.0 W)");
  f = FindingOf(all, "gpu_temperature", kGpu0);
  EXPECT_EQ(f.status, PlatformStatus::kWarn) << Describe(f);
  EXPECT_EQ(f.value, "84 °C (slowdown at 87 °C)");
  f = FindingOf(all, "gpu_persistence", kGpu0);
  EXPECT_EQ(f.status, PlatformStatus::kWarn) << Describe(f);
  f = FindingOf(all, "gpu_ecc", kGpu0);
  EXPECT_EQ(f.status, PlatformStatus::kFail) << Describe(f);
  EXPECT_EQ(f.value,
            "ECC on; since the driver loaded: 2 uncorrected, 14 corrected "
            "errors");
  f = FindingOf(all, "gpu_processes", kGpu0);
  EXPECT_EQ(f.status, PlatformStatus::kWarn) << Describe(f);
  EXPECT_EQ(f.value,
            "2 other compute processes (pids 4242, 777, 11.0 GiB of GPU "
            "memory)");
  // Busy at the link's maximum: fine.
  f = FindingOf(all, "gpu_pcie_link", kGpu0);
  EXPECT_EQ(f.status, PlatformStatus::kOk) << Describe(f);
  EXPECT_EQ(platform::DoctorExitCode(r.report), 1);
}

TEST(NvmlChecks, IdleHealthyGpuIsOkAndItsSlowLinkIsPowerSaving) {
  MachineTree t;
  t.SetLink(MachineTree::kGpu1, "2.5 GT/s PCIe", 16, "16.0 GT/s PCIe", 16);
  const platform::DoctorResult r = Doctor(t);
  const auto& all = r.report.findings;
  for (const char* check :
       {"gpu_clocks", "gpu_throttle", "gpu_power", "gpu_temperature",
        "gpu_persistence", "gpu_ecc", "gpu_processes", "gpu_pcie_link"}) {
    const PlatformFinding f = FindingOf(all, check, kGpu1);
    EXPECT_EQ(f.status, PlatformStatus::kOk) << Describe(f);
  }
  EXPECT_EQ(FindingOf(all, "gpu_throttle", kGpu1).value, "GPU idle (0x1)");
  EXPECT_EQ(FindingOf(all, "gpu_power", kGpu1).value,
            "61.0 of 400.0 W (default limit 400.0 W)");
  EXPECT_EQ(FindingOf(all, "gpu_processes", kGpu1).value,
            "0 compute processes");
  EXPECT_NE(FindingOf(all, "gpu_pcie_link", kGpu1)
                .meaning.find("idle (0% utilization)"),
            std::string::npos);
}

TEST(NvmlChecks, TheCheckedProcessIsNotAnOtherProcess) {
  MachineTree t;
  t.Write("proc/4242/status",
          "Name:\tpython3\nPid:\t4242\nCpus_allowed_list:\t0-7,16-23\n"
          "Mems_allowed_list:\t0-1\n");
  const platform::DoctorResult r = Doctor(t, FEEDPROF_FAKE_NVML, 4242);
  EXPECT_EQ(FindingOf(r.report.findings, "gpu_processes", kGpu0).value,
            "1 other compute process (pid 777, 1.0 GiB of GPU memory)");
}

TEST(NvmlChecks, GpusSeenOnlyByNvmlInAContainerWithoutSysfs) {
  MachineTree t;
  t.Remove("sys");
  const platform::DoctorResult r = Doctor(t);
  const PlatformFinding gpus = FindingOf(r.report.findings, "gpus");
  EXPECT_EQ(gpus.status, PlatformStatus::kOk) << Describe(gpus);
  const PlatformFinding link =
      FindingOf(r.report.findings, "gpu_pcie_link", kGpu0);
  EXPECT_EQ(link.status, PlatformStatus::kUnknown);
  EXPECT_EQ(link.meaning, "the GPU is not in /sys/bus/pci/devices");
  EXPECT_EQ(FindingOf(r.report.findings, "gpu_ecc", kGpu0).status,
            PlatformStatus::kFail);
}

TEST(NvmlChecks, MissingLibraryIsUnknownWithDlopensReason) {
  MachineTree t;
  const platform::DoctorResult r = Doctor(t, "libnvidia-ml-absent.so.1");
  const PlatformFinding f = FindingOf(r.report.findings, "nvml");
  EXPECT_EQ(f.status, PlatformStatus::kUnknown);
  EXPECT_NE(f.meaning.find("libnvidia-ml-absent.so.1: cannot open shared "
                           "object file"),
            std::string::npos)
      << f.meaning;
  // The kernel module alone still names the driver.
  EXPECT_EQ(FindingOf(r.report.findings, "nvidia_driver").value,
            "kernel module 550.54.15");
  for (const PlatformFinding& each : r.report.findings) {
    EXPECT_NE(each.check, "gpu_throttle");  // no NVML, no NVML checks
  }
}

TEST(NvmlChecks, GpusWithoutAnyDriverFail) {
  MachineTree t;
  t.Remove("proc/driver");
  const platform::DoctorResult r = Doctor(t, "");
  const PlatformFinding f = FindingOf(r.report.findings, "nvidia_driver");
  EXPECT_EQ(f.status, PlatformStatus::kFail) << Describe(f);
  EXPECT_NE(f.meaning.find("/proc/driver/nvidia/version"), std::string::npos);
}

}  // namespace
}  // namespace feedprof::testing
