// The platform inside an analysis: constructed timelines whose snapshot says
// the link is downgraded, the process is on the far NUMA node, the governor
// is powersave, the cgroup quota is below the worker count, or whose NVML
// samples say the GPU throttled; each is a finding, cited as evidence where
// the verdict depends on it and named as "not the limit here" where it does
// not. Kineto inputs and older traces say what is unknown.
#include <string>

#include "feedprof/analysis.h"
#include "gtest/gtest.h"
#include "tests/analysis/must_analyze.h"
#include "tests/analysis/timeline_builder.h"

namespace feedprof::testing {
namespace {

constexpr const char* kBus = "0000:3b:00.0";
const std::string kGpu0 = "GPU0 0000:3b:00.0";

// A two-node server's snapshot: GPU0 on node 0 at Gen4 x16, performance
// governor, SMT on, no quota, the process allowed every CPU.
Platform ServerSnapshot() {
  Platform p;
  p.cpu_model = "Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz";
  p.logical_cpus = 16;
  p.online_cpus = 16;
  p.frequency_governor = "performance";
  p.cgroup_cpu_limit = 0;
  p.memory_total_bytes = 64ull << 30;
  p.numa_nodes = 2;
  p.nvidia_probed = true;
  p.nvidia_pci_bus_ids = {kBus};
  p.nvidia_driver_version = "550.54.15";
  p.host_facts_probed = true;
  p.pid = TimelineBuilder::kPid;
  p.online_cpu_list = "0-15";
  p.process_cpu_affinity = "0-15";
  p.process_mems_allowed = "0-1";
  p.memory_policy = "default";
  p.cpu_scaling_driver = "intel_pstate";
  p.cpu_max_khz = 3800000;
  p.cpu_cur_khz = 3400000;
  p.threads_per_core = 2;
  p.smt_control = "on";
  p.memlock_limit_bytes = ~uint64_t{0};
  p.memory_available_bytes = 60ull << 30;
  p.transparent_hugepage = "madvise";
  p.transparent_hugepage_defrag = "madvise";
  p.numa_node_cpus = {{0, "0-7"}, {1, "8-15"}};
  Platform::PciFunction gpu;
  gpu.bus_id = kBus;
  gpu.class_code = 0x030200;
  gpu.numa_node = 0;
  gpu.local_cpus = "0-7";
  gpu.current_link_gts = 16;
  gpu.max_link_gts = 16;
  gpu.current_link_width = 16;
  gpu.max_link_width = 16;
  p.pci_functions = {gpu};
  Platform::Mount data;
  data.path = "/mnt/nfs/imagenet";
  data.mount_point = "/mnt/nfs";
  data.fs_type = "nfs4";
  data.source = "storage01:/export/datasets";
  data.options = "rw,relatime,vers=4.2,rsize=1048576";
  p.data_mounts = {data};
  return p;
}

// Each step: a 4 ms pinned H2D copy of 48 MiB (12.6 GB/s), then a 0.5 ms
// kernel, all queued ahead.
TimelineBuilder TransferBound() {
  TimelineBuilder b;
  double t = 100;
  for (int i = 0; i < 20; ++i) {
    b.Copy("cudaMemcpyAsync", i * 3.0, i * 3.0 + 1, t, t + 4000,
           CopyKind::kHtoD, 48ull << 20, MemoryKind::kPinned);
    b.Launch(i * 3.0 + 1, i * 3.0 + 2, t + 4000, t + 4500);
    t += 4500;
  }
  return b;
}

// 1 ms kernels queued far ahead of the GPU.
TimelineBuilder GpuBound() {
  TimelineBuilder b;
  for (int i = 0; i < 50; ++i) {
    b.Launch(i * 2.0, i * 2.0 + 1, 100 + i * 1000.0,
             100 + (i + 1) * 1000.0 - 1);
  }
  return b;
}

// One 1 ms kernel per step, then 5 ms of on-CPU host work.
TimelineBuilder PreprocessingBound() {
  TimelineBuilder b;
  double t = 0;
  for (int i = 0; i < 20; ++i) {
    b.Launch(t, t + 5, t + 10, t + 1010);
    t += 6010;
  }
  b.Sample(0, 0, ThreadState::kRunning);
  b.Sample(t, t, ThreadState::kRunning);
  return b;
}

Report AnalyzeWith(TimelineBuilder b, const Platform& platform) {
  Timeline& tl = b.timeline();
  tl.platform = platform;
  tl.devices[0].pci_bus_id = "00000000:3B:00.0";  // as CUPTI spells it
  return MustAnalyze(b.Take());
}

const PlatformFinding& FindingOf(const Report& r, const std::string& check,
                                 const std::string& subject = "") {
  const PlatformFinding* f = r.platform.Find(check, subject);
  static const PlatformFinding kMissing;
  if (f == nullptr) ADD_FAILURE() << "no finding " << check << " " << subject;
  return f != nullptr ? *f : kMissing;
}

// The evidence line that contains `text`, or "" (a failure) when none does.
std::string EvidenceWith(const Report& r, const std::string& text) {
  for (const std::string& e : r.verdict.evidence) {
    if (e.find(text) != std::string::npos) return e;
  }
  std::string all;
  for (const std::string& e : r.verdict.evidence) all += "\n  " + e;
  ADD_FAILURE() << "no evidence with \"" << text << "\" in" << all;
  return "";
}

bool NextStepWith(const Report& r, const std::string& text) {
  for (const std::string& s : r.verdict.next_steps) {
    if (s.find(text) != std::string::npos) return true;
  }
  return false;
}

TEST(PlatformFindings, DowngradedLinkIsAFindingAndTransferBoundEvidence) {
  Platform p = ServerSnapshot();
  p.pci_functions[0].current_link_width = 8;
  const Report r = AnalyzeWith(TransferBound(), p);
  ASSERT_EQ(r.verdict.primary, VerdictClass::kTransferBound);
  EXPECT_EQ(r.platform.source, "recorded snapshot");
  const PlatformFinding& f = FindingOf(r, "gpu_pcie_link", kGpu0);
  EXPECT_EQ(f.status, PlatformStatus::kFail);
  EXPECT_EQ(f.value,
            "Gen4 x8 (16 GT/s, 15.8 GB/s) of Gen4 x16 (16 GT/s, 31.5 GB/s)");
  // 48 MiB in 4 ms: 12.58 GB/s, 79.9 % of x8's 15.75 GB/s, 40.0 % of x16's.
  const std::string e = EvidenceWith(r, "Platform, where it caps this: ");
  EXPECT_NE(e.find("GPU0 0000:3b:00.0 PCIe link: Gen4 x8 (16 GT/s, 15.8 GB/s) "
                   "of Gen4 x16 (16 GT/s, 31.5 GB/s) (fail)"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("HtoD 12.58 GB/s (79.9% of the 15.8 GB/s the link carries "
                   "as trained, 39.9% of 31.5 GB/s at its maximum)"),
            std::string::npos)
      << e;
  // The platform line comes before the runner-up.
  EXPECT_EQ(r.verdict.evidence.back().rfind("Runner-up:", 0), 0u);
  EXPECT_TRUE(NextStepWith(r,
                           "Fix the platform (GPU0 0000:3b:00.0 PCIe link, "
                           "fail): Reseat the GPU"));
}

TEST(PlatformFindings, DowngradedLinkUnderAGpuBoundRunIsNotTheLimitHere) {
  Platform p = ServerSnapshot();
  p.pci_functions[0].current_link_width = 8;
  const Report r = AnalyzeWith(GpuBound(), p);
  ASSERT_EQ(r.verdict.primary, VerdictClass::kGpuBound);
  EXPECT_EQ(FindingOf(r, "gpu_pcie_link", kGpu0).status, PlatformStatus::kFail);
  const std::string e = EvidenceWith(r, "not the limit here");
  EXPECT_EQ(e,
            "Platform: GPU0 0000:3b:00.0 PCIe link: Gen4 x8 (16 GT/s, 15.8 "
            "GB/s) of Gen4 x16 (16 GT/s, 31.5 GB/s) (fail), but copies not "
            "overlapped by kernels take 0.0% of the span: not the limit here.");
  EXPECT_FALSE(NextStepWith(r, "Fix the platform"));
}

TEST(PlatformFindings, ProcessOnTheFarNodeIsAFindingAndTransferEvidence) {
  Platform p = ServerSnapshot();
  p.process_cpu_affinity = "8-15";
  p.process_mems_allowed = "1";
  const Report r = AnalyzeWith(TransferBound(), p);
  const PlatformFinding& f = FindingOf(r, "process_numa");
  EXPECT_EQ(f.subject, "process 100 (train.py)");
  EXPECT_EQ(f.status, PlatformStatus::kFail);
  EXPECT_EQ(f.value,
            "CPUs 8-15, memory policy default; CPUs on node 1; GPU0 on node 0");
  const std::string e = EvidenceWith(r, "Platform, where it caps this: ");
  EXPECT_NE(e.find("process 100 (train.py) NUMA placement: CPUs 8-15"),
            std::string::npos)
      << e;
  EXPECT_TRUE(NextStepWith(r, "numactl --cpunodebind=0 --membind=0"));
}

TEST(PlatformFindings, PowersaveGovernorCapsPreprocessing) {
  Platform p = ServerSnapshot();
  p.frequency_governor = "powersave";
  p.cpu_scaling_driver = "acpi-cpufreq";
  p.cpu_cur_khz = 800000;
  const Report r = AnalyzeWith(PreprocessingBound(), p);
  ASSERT_EQ(r.verdict.primary, VerdictClass::kPreprocessingBound);
  const PlatformFinding& f = FindingOf(r, "cpu_frequency");
  EXPECT_EQ(f.status, PlatformStatus::kFail);
  EXPECT_EQ(f.value,
            "governor powersave (acpi-cpufreq), 0.80 of 3.80 GHz on cpu0 when "
            "recording started");
  const std::string e = EvidenceWith(r, "Platform, where it caps this: ");
  EXPECT_NE(e.find("CPU governor: governor powersave (acpi-cpufreq)"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("cgroup CPU quota: no CPU quota (ok)"), std::string::npos);
  EXPECT_NE(e.find("SMT: on: 2 threads per core (8 cores, 16 logical CPUs "
                   "online), control on (ok)"),
            std::string::npos)
      << e;
  EXPECT_TRUE(NextStepWith(r, "cpupower frequency-set -g performance"));
}

TEST(PlatformFindings, QuotaBelowTheWorkersCapsPreprocessing) {
  Platform p = ServerSnapshot();
  p.cgroup_cpu_limit = 4.0;
  TimelineBuilder b = PreprocessingBound();
  for (int i = 0; i < 16; ++i) {
    Process w;
    w.pid = 200 + i;
    w.ppid = TimelineBuilder::kPid;
    w.origin = "fork";
    w.command = "pt_data_worker";
    b.timeline().processes.push_back(w);
  }
  const Report r = AnalyzeWith(std::move(b), p);
  ASSERT_EQ(r.host.workers.size(), 16u);
  ASSERT_EQ(r.verdict.primary, VerdictClass::kPreprocessingBound);
  const PlatformFinding& f = FindingOf(r, "cgroup_cpu");
  EXPECT_EQ(f.status, PlatformStatus::kFail);
  EXPECT_EQ(f.value, "quota 4.00 CPUs, 16 CPUs allowed, 16 worker processes");
  EXPECT_NE(EvidenceWith(r, "Platform, where it caps this: ")
                .find("cgroup CPU quota: quota 4.00 CPUs, 16 CPUs allowed, 16 "
                      "worker processes (fail)"),
            std::string::npos);
  // 16 workers on 8 physical cores: SMT warns too.
  EXPECT_EQ(FindingOf(r, "cpu_smt").status, PlatformStatus::kWarn);
  EXPECT_TRUE(NextStepWith(r, "num_workers=3"));
}

TEST(PlatformFindings, SlowLinkReadAtTheStartIsSettledByTheCopiesSpeed) {
  Platform p = ServerSnapshot();
  p.pci_functions[0].current_link_gts = 2.5;  // idle at the start: Gen1
  const Report r = AnalyzeWith(TransferBound(), p);
  const PlatformFinding& f = FindingOf(r, "gpu_pcie_link", kGpu0);
  EXPECT_EQ(f.status, PlatformStatus::kOk);
  EXPECT_NE(f.meaning.find("copies reached 12.6 GB/s, more than the 4.0 GB/s "
                           "the link as read carries"),
            std::string::npos)
      << f.meaning;
}

// NVML samples of GPU0 every 10 ms over the run: busy, Gen3 where Gen4 is
// possible, held down by a hardware slowdown.
void AddNvmlSamples(TimelineBuilder* b, double until_us) {
  Timeline& tl = b->timeline();
  const auto add = [&](TimeNs ts, const char* name, double v) {
    CounterSample c;
    c.ts = ts;
    c.pid = TimelineBuilder::kPid;
    c.device = 0;
    c.name = tl.strings.Intern(name);
    c.value = v;
    tl.counters.push_back(c);
  };
  for (double t = 0; t <= until_us; t += 10000) {
    const TimeNs ts = Us(t);
    add(ts, "sm_util_pct", 97);
    add(ts, "sm_clock_mhz", 1200);
    add(ts, "clock_event_reasons", 0x8);  // HW slowdown
    add(ts, "power_w", 410.5);
    add(ts, "temperature_c", 71);
    add(ts, "pcie_link_gen", 3);
    add(ts, "pcie_link_width", 16);
  }
  tl.available.gpu_counters = true;
}

TEST(PlatformFindings, ThrottlingFromNvmlSamplesIsGpuBoundEvidence) {
  TimelineBuilder b = GpuBound();
  AddNvmlSamples(&b, 50000);
  const Report r = AnalyzeWith(std::move(b), ServerSnapshot());
  ASSERT_EQ(r.verdict.primary, VerdictClass::kGpuBound);
  const PlatformFinding& t = FindingOf(r, "gpu_throttle", kGpu0);
  EXPECT_EQ(t.status, PlatformStatus::kFail);
  EXPECT_EQ(t.value, "HW slowdown (0x8) over 6 NVML samples");
  const std::string e = EvidenceWith(r, "Platform, where it caps this: ");
  EXPECT_NE(e.find("GPU0 0000:3b:00.0 throttling: HW slowdown (0x8) over 6 "
                   "NVML samples (fail)"),
            std::string::npos)
      << e;
  EXPECT_EQ(FindingOf(r, "gpu_clocks", kGpu0).value,
            "SM 1200 MHz (median while busy), utilization up to 97% over 6 "
            "NVML samples");
  // Busy at Gen3 of Gen4: the link, read by NVML while busy, is downgraded.
  const PlatformFinding& l = FindingOf(r, "gpu_pcie_link", kGpu0);
  EXPECT_EQ(l.status, PlatformStatus::kFail);
  EXPECT_NE(l.value.find("Gen3 x16 (8 GT/s, 15.8 GB/s) (NVML, while busy)"),
            std::string::npos)
      << l.value;
  EXPECT_NE(EvidenceWith(r, "not the limit here").find("PCIe link"),
            std::string::npos);
  EXPECT_EQ(FindingOf(r, "nvml").value, "NVML sees 1 GPU");
  // Samples without the static facts (traces before them): no limits,
  // persistence or ECC lines.
  EXPECT_EQ(r.platform.Find("gpu_persistence", kGpu0), nullptr);
  EXPECT_EQ(r.platform.Find("gpu_ecc", kGpu0), nullptr);
}

TEST(PlatformFindings, DataOnNfsIsAFinding) {
  const Report r = AnalyzeWith(GpuBound(), ServerSnapshot());
  const PlatformFinding& f = FindingOf(r, "data_filesystem");
  EXPECT_EQ(f.subject, "data /mnt/nfs/imagenet");
  EXPECT_EQ(f.status, PlatformStatus::kWarn);
  EXPECT_EQ(f.value,
            "nfs4 storage01:/export/datasets on /mnt/nfs "
            "(rw,relatime,vers=4.2,rsize=1048576)");
  // A recording is not probed: no read-latency line.
  EXPECT_EQ(r.platform.Find("data_read_latency"), nullptr);
}

TEST(PlatformFindings, KinetoInputSaysWhatIsUnknown) {
  TimelineBuilder b = GpuBound();
  b.timeline().format = SourceFormat::kKineto;
  b.timeline().devices[0].name = "NVIDIA H100 80GB HBM3";
  const Report r = MustAnalyze(b.Take());
  EXPECT_EQ(r.platform.source, "Kineto device properties");
  EXPECT_EQ(FindingOf(r, "gpus").value,
            "1 NVIDIA GPU: GPU0 device 0 NVIDIA H100 80GB HBM3");
  const PlatformFinding& link = FindingOf(r, "gpu_pcie_link");
  EXPECT_EQ(link.status, PlatformStatus::kUnknown);
  EXPECT_EQ(link.meaning,
            "not recorded: Kineto traces describe only the GPUs (name, "
            "memory, SMs)");
  EXPECT_EQ(FindingOf(r, "cgroup_cpu").status, PlatformStatus::kUnknown);
  EXPECT_EQ(r.platform.Count(PlatformStatus::kFail), 0u);
  EXPECT_NE(
      EvidenceWith(r, "Platform: the throttling is unknown").find("Kineto"),
      std::string::npos);
}

TEST(PlatformFindings, OlderTraceWithoutTheNewFactsSaysSo) {
  Platform p = ServerSnapshot();
  p.host_facts_probed = false;
  const Report r = AnalyzeWith(GpuBound(), p);
  const PlatformFinding& f = FindingOf(r, "mem_thp");
  EXPECT_EQ(f.status, PlatformStatus::kUnknown);
  EXPECT_EQ(f.meaning,
            "not recorded: the trace is from a feedprof version before these "
            "facts (record again to have them)");
  // What every snapshot has is still judged.
  EXPECT_EQ(FindingOf(r, "gpu_pcie_link", kGpu0).status, PlatformStatus::kOk);
  EXPECT_EQ(FindingOf(r, "process_numa").status, PlatformStatus::kOk);
}

TEST(PlatformFindings, IowaitAndMemoryComeFromTheSystemSamples) {
  TimelineBuilder b = GpuBound();
  Timeline& tl = b.timeline();
  for (int64_t i = 0; i <= 5; ++i) {
    SystemSample s;
    s.ts = Us(static_cast<double>(i) * 10000.0);
    s.pid = TimelineBuilder::kPid;
    s.cpu_user_ns = i * 600'000'000;
    s.cpu_idle_ns = i * 100'000'000;
    s.cpu_iowait_ns = i * 300'000'000;  // 30 % of CPU time
    s.mem_available_bytes = (60ull - static_cast<uint64_t>(i) * 11) << 30;
    s.mem_dirty_bytes = static_cast<uint64_t>(i) << 20;
    tl.system_samples.push_back(s);
  }
  tl.available.system_samples = true;
  const Report r = AnalyzeWith(std::move(b), ServerSnapshot());
  const PlatformFinding& io = FindingOf(r, "cpu_iowait");
  EXPECT_EQ(io.status, PlatformStatus::kFail);
  EXPECT_EQ(io.value, "iowait 30.0% of CPU time over 0.1 s of the run");
  const PlatformFinding& mem = FindingOf(r, "mem_available");
  EXPECT_EQ(mem.status, PlatformStatus::kWarn);  // 5 GiB of 64 GiB
  EXPECT_EQ(mem.value,
            "MemAvailable 5.0 GiB of 64.0 GiB (7.8%, lowest MemAvailable, "
            "highest Dirty and Writeback during the run); 60.0 GiB when "
            "recording started, 5.0 GiB at the end");
}

// MemAvailable falls and Dirty + Writeback climb in the middle of the run:
// the lowest and highest readings are judged, the start (snapshot) and the
// end (last system sample) are shown beside them.
TEST(PlatformFindings, MemoryAtTheStartAndTheEndOfTheRun) {
  TimelineBuilder b = GpuBound();
  Timeline& tl = b.timeline();
  const uint64_t gib = uint64_t{1} << 30;
  const struct {
    double us;
    uint64_t available, dirty, writeback;
  } readings[] = {{0, 50 * gib, 1 << 20, 0},
                  {20000, 5 * gib, 9 * gib, gib},
                  {40000, 30 * gib, 2 * gib, gib / 2}};
  for (const auto& r : readings) {
    SystemSample s;
    s.ts = Us(r.us);
    s.pid = TimelineBuilder::kPid;
    s.mem_available_bytes = r.available;
    s.mem_dirty_bytes = r.dirty;
    s.mem_writeback_bytes = r.writeback;
    tl.system_samples.push_back(s);
  }
  tl.available.system_samples = true;
  Platform p = ServerSnapshot();
  p.memory_dirty_bytes = gib;
  const Report r = AnalyzeWith(std::move(b), p);
  const PlatformFinding& mem = FindingOf(r, "mem_available");
  EXPECT_EQ(mem.status, PlatformStatus::kWarn);
  EXPECT_EQ(mem.value,
            "MemAvailable 5.0 GiB of 64.0 GiB (7.8%, lowest MemAvailable, "
            "highest Dirty and Writeback during the run); 60.0 GiB when "
            "recording started, 30.0 GiB at the end");
  const PlatformFinding& dirty = FindingOf(r, "mem_dirty");
  // 10 GiB waiting of 15 GiB dirtyable: past the 20 % dirty limit.
  EXPECT_EQ(dirty.status, PlatformStatus::kFail);
  EXPECT_EQ(dirty.value.rfind(
                "Dirty 9.0 GiB, Writeback 1.0 GiB (lowest MemAvailable, "
                "highest Dirty and Writeback during the run); 1.0 GiB when "
                "recording started, 2.5 GiB at the end (Dirty + Writeback); "
                "background writeback from 1.5 GiB, writers throttled from "
                "3.0 GiB",
                0),
            0u)
      << dirty.value;
}

// The highest 1-minute load of the system samples against the CPUs the
// process may use (16): overloaded.
TEST(PlatformFindings, LoadAverageComesFromTheSystemSamples) {
  TimelineBuilder b = GpuBound();
  Timeline& tl = b.timeline();
  const struct {
    double us, load;
    uint32_t running;
  } readings[] = {{0, 3.5, 4}, {20000, 20.25, 18}, {40000, 9, 7}};
  for (const auto& r : readings) {
    SystemSample s;
    s.ts = Us(r.us);
    s.pid = TimelineBuilder::kPid;
    s.load_1m = r.load;
    s.procs_running = r.running;
    tl.system_samples.push_back(s);
  }
  tl.available.system_samples = true;
  const Report r = AnalyzeWith(std::move(b), ServerSnapshot());
  const PlatformFinding& load = FindingOf(r, "cpu_load");
  EXPECT_EQ(load.status, PlatformStatus::kWarn);
  EXPECT_EQ(load.value,
            "load 20.25 (1 min) on 16 CPUs, 18 runnable, the highest during "
            "the run");
}

TEST(PlatformFindings, LoadAverageOfOlderTracesIsUnknown) {
  TimelineBuilder b = GpuBound();
  Timeline& tl = b.timeline();
  for (double us : {0.0, 40000.0}) {
    SystemSample s;
    s.ts = Us(us);
    s.pid = TimelineBuilder::kPid;
    s.procs_running = 30;  // load_1m 0: not sampled
    tl.system_samples.push_back(s);
  }
  tl.available.system_samples = true;
  const Report r = AnalyzeWith(std::move(b), ServerSnapshot());
  const PlatformFinding& load = FindingOf(r, "cpu_load");
  EXPECT_EQ(load.status, PlatformStatus::kUnknown);
  EXPECT_EQ(load.meaning,
            "not recorded: the system samples carry no load average (the "
            "trace is from a feedprof version before it)");
  // Without system samples at all.
  const Report none = AnalyzeWith(GpuBound(), ServerSnapshot());
  EXPECT_EQ(FindingOf(none, "cpu_load").meaning,
            "no system samples in the trace (host sampling was off), so no "
            "load average");
}

// NVML's static facts as the NVML sampler records them for GPU0 (NVML
// numbers it device 0 too; matched by bus id).
Platform::NvmlDevice Gpu0StaticFacts() {
  Platform::NvmlDevice n;
  n.pid = TimelineBuilder::kPid;
  n.device = 0;
  n.pci_bus_id = "00000000:3B:00.0";
  n.name = "NVIDIA H100 80GB HBM3";
  n.power_limit_mw = 400000;
  n.default_power_limit_mw = 700000;
  n.enforced_power_limit_mw = 400000;
  n.max_sm_clock_mhz = 1980;
  n.max_mem_clock_mhz = 2619;
  n.slowdown_temperature_c = 87;
  n.persistence_mode = false;
  n.ecc_enabled = true;
  n.ecc_volatile_uncorrected = 2;
  n.ecc_volatile_corrected = 5;
  n.ecc_aggregate_uncorrected = 3;
  n.ecc_aggregate_corrected = 11;
  n.row_remap_pending = false;
  n.row_remap_failure = false;
  return n;
}

TEST(PlatformFindings, NvmlStaticFactsJudgeClocksPowerPersistenceAndEcc) {
  TimelineBuilder b = GpuBound();
  AddNvmlSamples(&b, 50000);
  Platform p = ServerSnapshot();
  p.nvml_devices = {Gpu0StaticFacts()};
  const Report r = AnalyzeWith(std::move(b), p);
  ASSERT_EQ(r.verdict.primary, VerdictClass::kGpuBound);
  // Busy at 1200 of 1980 MHz: below 80 % of the maximum.
  const PlatformFinding& clocks = FindingOf(r, "gpu_clocks", kGpu0);
  EXPECT_EQ(clocks.status, PlatformStatus::kWarn);
  EXPECT_EQ(clocks.value,
            "SM 1200 of 1980 MHz, utilization 97% over 6 NVML samples");
  // The enforced limit, 400 W, is 57 % of the 700 W default.
  const PlatformFinding& power = FindingOf(r, "gpu_power", kGpu0);
  EXPECT_EQ(power.status, PlatformStatus::kWarn);
  EXPECT_EQ(power.value, "410.5 of 400.0 W (default limit 700.0 W)");
  const PlatformFinding& heat = FindingOf(r, "gpu_temperature", kGpu0);
  EXPECT_EQ(heat.status, PlatformStatus::kOk);
  EXPECT_EQ(heat.value, "71 °C (slowdown at 87 °C)");
  const PlatformFinding& persistence = FindingOf(r, "gpu_persistence", kGpu0);
  EXPECT_EQ(persistence.status, PlatformStatus::kWarn);
  EXPECT_EQ(persistence.value, "disabled");
  const PlatformFinding& ecc = FindingOf(r, "gpu_ecc", kGpu0);
  EXPECT_EQ(ecc.status, PlatformStatus::kFail);
  EXPECT_EQ(ecc.value,
            "ECC on; since the driver loaded: 2 uncorrected, 5 corrected "
            "errors (when recording started); over the GPU's life: 3 "
            "uncorrected, 11 corrected");
  // A trace never lists the GPU's processes.
  EXPECT_EQ(r.platform.Find("gpu_processes", kGpu0), nullptr);
  // The power cap is evidence for the GPU-bound verdict.
  EXPECT_NE(EvidenceWith(r, "Platform, where it caps this: ")
                .find("410.5 of 400.0 W (default limit 700.0 W)"),
            std::string::npos)
      << EvidenceWith(r, "Platform, where it caps this: ");
}

TEST(PlatformFindings, NvmlStaticFactsWithoutSamplesStillJudgeTheModes) {
  Platform p = ServerSnapshot();
  Platform::NvmlDevice n = Gpu0StaticFacts();
  n.persistence_mode = true;
  n.ecc_enabled = false;
  p.nvml_devices = {n};
  const Report r = AnalyzeWith(GpuBound(), p);
  EXPECT_EQ(FindingOf(r, "nvml").value, "NVML sees 1 GPU");
  EXPECT_EQ(FindingOf(r, "gpu_persistence", kGpu0).status, PlatformStatus::kOk);
  EXPECT_EQ(FindingOf(r, "gpu_ecc", kGpu0).value, "ECC disabled");
  EXPECT_EQ(FindingOf(r, "gpu_power", kGpu0).value,
            "limit 400.0 W (default limit 700.0 W)");
  EXPECT_EQ(FindingOf(r, "gpu_clocks", kGpu0).status, PlatformStatus::kUnknown);
  // Facts of another process (not analysed) are not this GPU's.
  p.nvml_devices[0].pid = TimelineBuilder::kPid + 1;
  const Report other = AnalyzeWith(GpuBound(), p);
  EXPECT_EQ(other.platform.Find("gpu_persistence", kGpu0), nullptr);
}

}  // namespace
}  // namespace feedprof::testing
