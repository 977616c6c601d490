#include "platform/snapshot_facts.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "platform/machine_reader.h"

namespace feedprof::platform {
namespace {

constexpr uint64_t kUnlimited = ~uint64_t{0};

// Counter values and recorded doubles come from files that may be damaged:
// NaN, negative or huge values saturate instead of overflowing a cast.
uint32_t Clamp32(double v) {
  if (!(v > 0)) return 0;
  return v >= 4294967295.0 ? UINT32_MAX : static_cast<uint32_t>(v);
}
uint64_t Clamp64(double v) {
  if (!(v > 0)) return 0;
  return v >= 1.8e19 ? UINT64_MAX : static_cast<uint64_t>(v);
}

bool InScope(const RecordingScope& s, int32_t pid) {
  return s.pids.empty() ||
         std::find(s.pids.begin(), s.pids.end(), pid) != s.pids.end();
}

// Why the facts a source does not carry are unknown: `all` for those every
// feedprof snapshot has, `newer` for fields 16-33 of the snapshot.
struct Reasons {
  std::string all;
  std::string newer;
};

Reasons ReasonsFor(const Timeline& tl, bool snapshot) {
  switch (tl.format) {
    case SourceFormat::kKineto: {
      const std::string r =
          "not recorded: Kineto traces describe only the GPUs (name, "
          "memory, SMs)";
      return {r, r};
    }
    case SourceFormat::kNsight: {
      const std::string r =
          "not recorded: Nsight Systems exports describe only the GPUs "
          "(name, bus id, memory, SMs, PCIe link)";
      return {r, r};
    }
    case SourceFormat::kFeedprof:
      if (!snapshot) {
        const std::string r =
            "not recorded: the trace has no platform snapshot";
        return {r, r};
      }
      return {"could not be read when recording",
              tl.platform.host_facts_probed
                  ? "could not be read when recording"
                  : "not recorded: the trace is from a feedprof version "
                    "before these facts (record again to have them)"};
    case SourceFormat::kUnknown:
      break;
  }
  return {"not recorded in this input", "not recorded in this input"};
}

template <typename T>
void SetOr(Fact<T>* fact, bool known, T value, const std::string& why) {
  if (known) {
    fact->Set(std::move(value));
  } else {
    fact->Unknown(why);
  }
}

void SetCpuList(Fact<std::vector<int>>* fact, const std::string& list,
                const std::string& why) {
  std::optional<std::vector<int>> cpus =
      list.empty() ? std::nullopt : ParseCpuList(list);
  SetOr(fact, cpus.has_value(), cpus.value_or(std::vector<int>{}), why);
}

std::vector<int> FirstN(uint32_t n) {
  std::vector<int> cpus(n);
  for (uint32_t i = 0; i < n; ++i) cpus[i] = static_cast<int>(i);
  return cpus;
}

MountEntry EntryOf(const Platform::Mount& m) {
  MountEntry e;
  e.mount_point = m.mount_point;
  e.fs_type = m.fs_type;
  e.source = m.source;
  e.mount_options = m.options;
  return e;
}

StorageFacts StorageOf(const Platform::Mount& m, std::string label) {
  StorageFacts s;
  s.path = m.path;
  s.label = std::move(label);
  s.probed = false;
  const MountEntry e = EntryOf(m);
  s.mount.Set(e);
  if (!m.block_device.empty()) {
    BlockDeviceFacts d;
    d.name = m.block_device;
    SetOr(&d.rotational, m.rotational >= 0, m.rotational == 1,
          "queue/rotational could not be read when recording");
    SetOr(&d.scheduler, !m.scheduler.empty(), m.scheduler,
          "queue/scheduler could not be read when recording");
    s.device.Set(std::move(d));
  } else {
    std::string why = NoBlockDeviceReason(e);
    s.device.Unknown(why.empty() ? absl::StrCat("no block device was found "
                                                "for ",
                                                m.source, " when recording")
                                 : why);
  }
  return s;
}

// NVML samples of one device in the window: the readings while busy.
struct NvmlRow {
  std::optional<double> util, sm_clock, reasons, power_w, temperature, gen,
      width;
};

std::optional<NvmlGpuFacts> NvmlOf(const Timeline& tl,
                                   const RecordingScope& scope,
                                   int32_t device) {
  std::map<std::pair<int32_t, TimeNs>, NvmlRow> rows;  // (pid, ts)
  for (const CounterSample& c : tl.counters) {
    if (c.device != device || c.ts < scope.start || c.ts > scope.end ||
        !InScope(scope, c.pid)) {
      continue;
    }
    const std::string_view name = tl.strings.Get(c.name);
    NvmlRow& r = rows[{c.pid, c.ts}];
    if (name == "sm_util_pct") r.util = c.value;
    if (name == "sm_clock_mhz") r.sm_clock = c.value;
    if (name == "clock_event_reasons") r.reasons = c.value;
    if (name == "power_w") r.power_w = c.value;
    if (name == "temperature_c") r.temperature = c.value;
    if (name == "pcie_link_gen") r.gen = c.value;
    if (name == "pcie_link_width") r.width = c.value;
  }
  if (rows.empty()) return std::nullopt;
  // Busy rows when there are any (what the GPU did while working), else
  // all of them.
  bool any_busy = false;
  for (const auto& [key, r] : rows) any_busy |= r.util.value_or(0) > 0;
  NvmlGpuFacts n;
  n.from_trace = true;
  std::vector<double> clocks;
  uint64_t reasons = 0;
  bool have_reasons = false;
  for (const auto& [key, r] : rows) {
    if (r.util) {
      n.utilization_pct =
          std::max<uint32_t>(n.utilization_pct.value_or(0), Clamp32(*r.util));
    }
    if (r.power_w) {
      n.power_mw = std::max<uint32_t>(n.power_mw.value_or(0),
                                      Clamp32(*r.power_w * 1000));
    }
    if (r.temperature) {
      n.temperature_c = std::max<uint32_t>(n.temperature_c.value_or(0),
                                           Clamp32(*r.temperature));
    }
    if (any_busy && r.util.value_or(0) <= 0) continue;
    ++n.samples;
    if (r.sm_clock) clocks.push_back(*r.sm_clock);
    if (r.reasons) {
      reasons |= Clamp64(*r.reasons);
      have_reasons = true;
    }
    // The link while busy: the lowest reading (a downgrade shows in it).
    if (r.gen && *r.gen > 0) {
      n.pcie_gen =
          std::min<uint32_t>(n.pcie_gen.value_or(~0u), Clamp32(*r.gen));
    }
    if (r.width && *r.width > 0) {
      n.pcie_width =
          std::min<uint32_t>(n.pcie_width.value_or(~0u), Clamp32(*r.width));
    }
  }
  if (!clocks.empty()) {
    std::sort(clocks.begin(), clocks.end());
    n.sm_clock_mhz = Clamp32(clocks[(clocks.size() - 1) / 2]);
  }
  if (have_reasons) {
    // An idle bit from idle moments between busy samples says nothing.
    n.clock_event_reasons = any_busy ? reasons & ~uint64_t{1} : reasons;
  }
  return n;
}

// NVML's static facts of the GPU at `bus_id` (normalized), recorded by an
// analysed process's NVML sampler; null when none was.
const Platform::NvmlDevice* StaticFactsOf(const Timeline& tl,
                                          const RecordingScope& scope,
                                          const std::string& bus_id) {
  for (const Platform::NvmlDevice& n : tl.platform.nvml_devices) {
    if (!n.pci_bus_id.empty() && NormalizeBusId(n.pci_bus_id) == bus_id &&
        InScope(scope, n.pid)) {
      return &n;
    }
  }
  return nullptr;
}

// Adds the static facts to what the samples say (or to nothing, when the
// GPU was not sampled in the window).
void AddStaticFacts(const Platform::NvmlDevice* facts, GpuFacts* g) {
  if (facts == nullptr) return;
  if (!g->nvml) {
    g->nvml.emplace();
    g->nvml->from_trace = true;
  }
  NvmlGpuFacts& n = *g->nvml;
  n.static_facts = true;
  if (g->name.empty()) g->name = facts->name;
  if (n.name.empty()) n.name = facts->name;
  n.sm_max_clock_mhz = facts->max_sm_clock_mhz;
  // The limit the GPU holds itself to: the enforced one, else the
  // management limit.
  n.power_limit_mw = facts->enforced_power_limit_mw
                         ? facts->enforced_power_limit_mw
                         : facts->power_limit_mw;
  n.default_power_limit_mw = facts->default_power_limit_mw;
  n.slowdown_temperature_c = facts->slowdown_temperature_c;
  n.persistence_mode = facts->persistence_mode;
  n.ecc_enabled = facts->ecc_enabled;
  n.ecc_uncorrected_volatile = facts->ecc_volatile_uncorrected;
  n.ecc_corrected_volatile = facts->ecc_volatile_corrected;
  n.ecc_uncorrected_aggregate = facts->ecc_aggregate_uncorrected;
  n.ecc_corrected_aggregate = facts->ecc_aggregate_corrected;
  n.row_remap_pending = facts->row_remap_pending;
  n.row_remap_failure = facts->row_remap_failure;
}

Fact<std::vector<GpuFacts>> GpusOf(const Timeline& tl,
                                   const RecordingScope& scope, bool snapshot,
                                   const Reasons& why) {
  Fact<std::vector<GpuFacts>> out;
  std::vector<GpuFacts> gpus;
  // CUDA device ordinal (of an analysed process) by bus id, for names and
  // NVML samples.
  const auto device_of = [&](const std::string& bus_id) -> const Device* {
    for (const Device& d : tl.devices) {
      if (!d.pci_bus_id.empty() && NormalizeBusId(d.pci_bus_id) == bus_id &&
          (d.pid < 0 || InScope(scope, d.pid))) {
        return &d;
      }
    }
    return nullptr;
  };
  const Platform& p = tl.platform;
  if (snapshot && p.nvidia_probed) {
    for (const Platform::PciFunction& f : p.pci_functions) {
      if (f.class_code != 0 && (f.class_code >> 16) != 0x03) continue;
      GpuFacts g;
      g.index = static_cast<int>(gpus.size());
      g.bus_id = NormalizeBusId(f.bus_id);
      const std::string link_why =
          "the link could not be read when recording (no link attributes in "
          "sysfs, or the link was down)";
      SetOr(&g.link.current_gts, f.current_link_gts > 0, f.current_link_gts,
            link_why);
      SetOr(&g.link.max_gts, f.max_link_gts > 0, f.max_link_gts, link_why);
      SetOr(&g.link.current_width, f.current_link_width > 0,
            f.current_link_width, link_why);
      SetOr(&g.link.max_width, f.max_link_width > 0, f.max_link_width,
            link_why);
      const std::string port_why = "the slot's link is not recorded";
      g.port_link.current_gts.Unknown(port_why);
      g.port_link.max_gts.Unknown(port_why);
      g.port_link.current_width.Unknown(port_why);
      g.port_link.max_width.Unknown(port_why);
      g.numa_node.Set(f.numa_node);
      SetCpuList(&g.local_cpus, f.local_cpus, why.all);
      if (const Device* d = device_of(g.bus_id)) {
        g.name = d->name;
        g.nvml = NvmlOf(tl, scope, d->id);
      }
      AddStaticFacts(StaticFactsOf(tl, scope, g.bus_id), &g);
      gpus.push_back(std::move(g));
    }
    out.Set(std::move(gpus));
    return out;
  }
  // Without a snapshot: the devices the trace describes.
  for (const Device& d : tl.devices) {
    if (d.pid >= 0 && !InScope(scope, d.pid)) continue;
    const std::string bus = d.pci_bus_id.empty() ? absl::StrCat("device ", d.id)
                                                 : NormalizeBusId(d.pci_bus_id);
    if (std::any_of(gpus.begin(), gpus.end(),
                    [&](const GpuFacts& g) { return g.bus_id == bus; })) {
      continue;  // one device seen by several processes
    }
    GpuFacts g;
    g.index = static_cast<int>(gpus.size());
    g.bus_id = bus;
    g.name = d.name;
    SetOr(&g.link.current_gts, d.pcie_current_gts > 0, d.pcie_current_gts,
          why.all);
    SetOr(&g.link.max_gts, d.pcie_max_gts > 0, d.pcie_max_gts, why.all);
    SetOr(&g.link.current_width, d.pcie_current_width > 0, d.pcie_current_width,
          why.all);
    SetOr(&g.link.max_width, d.pcie_max_width > 0, d.pcie_max_width, why.all);
    g.port_link = PciLinkFacts{};
    g.port_link.max_gts.Unknown(why.all);
    g.port_link.max_width.Unknown(why.all);
    g.numa_node.Unknown(why.all);
    g.local_cpus.Unknown(why.all);
    g.nvml = NvmlOf(tl, scope, d.id);
    AddStaticFacts(StaticFactsOf(tl, scope, bus), &g);
    gpus.push_back(std::move(g));
  }
  if (gpus.empty()) {
    out.Unknown(absl::StrCat("no GPU in the trace and ", why.all));
  } else {
    out.Set(std::move(gpus));
  }
  return out;
}

// iowait and memory over the run, from the system samples in the window.
void SampledLoadAndMemory(const Timeline& tl, const RecordingScope& scope,
                          MachineFacts* m) {
  const SystemSample* first = nullptr;
  const SystemSample* last = nullptr;
  uint64_t lowest_available = 0;
  uint64_t highest_dirty = 0;
  uint64_t highest_writeback = 0;
  bool memory = false;
  const SystemSample* last_memory = nullptr;
  const SystemSample* highest_load = nullptr;
  for (const SystemSample& s : tl.system_samples) {
    if (s.ts < scope.start || s.ts > scope.end || !InScope(scope, s.pid)) {
      continue;
    }
    // One sampler's series (the first process's) keeps the deltas
    // consistent.
    if (first != nullptr && s.pid != first->pid) continue;
    if (first == nullptr) first = &s;
    last = &s;
    if (s.mem_available_bytes > 0) {
      lowest_available = memory
                             ? std::min(lowest_available, s.mem_available_bytes)
                             : s.mem_available_bytes;
      highest_dirty = std::max(highest_dirty, s.mem_dirty_bytes);
      highest_writeback = std::max(highest_writeback, s.mem_writeback_bytes);
      memory = true;
      last_memory = &s;
    }
    // Traces from before the load average was sampled read 0.
    if (std::isfinite(s.load_1m) && s.load_1m > 0 &&
        (highest_load == nullptr || s.load_1m > highest_load->load_1m)) {
      highest_load = &s;
    }
  }
  if (highest_load != nullptr) {
    LoadAverage l;
    l.load1 = highest_load->load_1m;
    l.runnable = highest_load->procs_running;
    m->load.loadavg.Set(l);
    m->load.loadavg_when = "the highest during the run";
  } else if (first != nullptr) {
    m->load.loadavg.Unknown(
        "not recorded: the system samples carry no load average (the "
        "trace is from a feedprof version before it)");
  }
  if (first != nullptr && last != first) {
    // In doubles: damaged counters must not overflow a sum.
    const auto total = [](const SystemSample& s) {
      return static_cast<double>(s.cpu_user_ns) +
             static_cast<double>(s.cpu_system_ns) +
             static_cast<double>(s.cpu_idle_ns) +
             static_cast<double>(s.cpu_iowait_ns) +
             static_cast<double>(s.cpu_other_ns);
    };
    const double all = total(*last) - total(*first);
    const double wait = static_cast<double>(last->cpu_iowait_ns) -
                        static_cast<double>(first->cpu_iowait_ns);
    m->load.interval_s = static_cast<double>(last->ts - first->ts) / 1e9;
    m->load.interval_label =
        absl::StrFormat("over %.1f s of the run", m->load.interval_s);
    if (all > 0 && wait >= 0 && wait <= all) {
      m->load.iowait_share.Set(wait / all);
    }
  }
  if (memory) {
    m->memory.available.Set(lowest_available);
    m->memory.dirty.Set(highest_dirty);
    m->memory.writeback.Set(highest_writeback);
    m->memory.when =
        "lowest MemAvailable, highest Dirty and Writeback during "
        "the run";
    m->memory.at_end = MemoryFacts::Reading{last_memory->mem_available_bytes,
                                            last_memory->mem_dirty_bytes,
                                            last_memory->mem_writeback_bytes};
  }
}

}  // namespace

MachineFacts FactsFromRecording(const Timeline& tl,
                                const RecordingScope& scope) {
  MachineFacts m;
  m.live = false;
  const Platform& p = tl.platform;
  const bool snapshot = tl.format == SourceFormat::kFeedprof &&
                        (!p.cpu_model.empty() || p.logical_cpus > 0);
  const bool probed = snapshot && p.host_facts_probed;
  const Reasons why = ReasonsFor(tl, snapshot);
  switch (tl.format) {
    case SourceFormat::kKineto:
      m.source = "Kineto device properties";
      break;
    case SourceFormat::kNsight:
      m.source = "Nsight target info";
      break;
    default:
      m.source = snapshot ? "recorded snapshot" : "none";
  }

  for (const Platform::NumaNode& n : p.numa_node_cpus) {
    m.numa_nodes.push_back({static_cast<int>(n.id),
                            ParseCpuList(n.cpus).value_or(std::vector<int>{})});
  }
  m.gpus = GpusOf(tl, scope, snapshot, why);
  m.gpus_found_by = snapshot && p.nvidia_probed
                        ? "found on the PCI bus when recording started"
                        : "described by the trace";
  m.driver_probed = snapshot && p.nvidia_probed;

  // The process the snapshot is of.
  ProcessFacts& proc = m.process;
  proc.own = false;
  proc.pid = p.pid;
  for (const Process& pr : tl.processes) {
    if (pr.pid != p.pid) continue;
    // The program's name: the first word's last path part.
    const std::string first = pr.command.substr(0, pr.command.find(' '));
    proc.command = first.substr(first.rfind('/') + 1);
  }
  if (proc.pid == 0 && !tl.processes.empty()) {
    proc.pid = tl.processes.front().pid;
  }
  SetCpuList(&proc.affinity, snapshot ? p.process_cpu_affinity : "", why.all);
  SetCpuList(&proc.mems_allowed, snapshot ? p.process_mems_allowed : "",
             why.all);
  SetOr(&proc.memory_policy, probed && !p.memory_policy.empty(),
        p.memory_policy, why.newer);
  ResourceLimit memlock;
  memlock.unlimited = p.memlock_limit_bytes == kUnlimited;
  memlock.value = p.memlock_limit_bytes;
  SetOr(&proc.memlock, probed && p.memlock_limit_bytes > 0, memlock, why.newer);
  proc.workers = scope.workers;

  CpuFacts& cpu = m.cpu;
  cpu.model = p.cpu_model;
  SetCpuList(&cpu.online, probed ? p.online_cpu_list : "", why.newer);
  if (cpu.online.known() && p.logical_cpus > 0) {
    cpu.present.Set(FirstN(p.logical_cpus));
  } else {
    cpu.present.Unknown(why.newer);
  }
  const std::string no_cpufreq =
      "no CPU frequency driver on the recording machine (cpu0's cpufreq "
      "could not be read: a virtual machine or a container without it)";
  const std::string freq_why = snapshot ? no_cpufreq : why.all;
  SetOr(&cpu.governor, snapshot && !p.frequency_governor.empty(),
        p.frequency_governor, freq_why);
  SetOr(&cpu.driver, probed && !p.cpu_scaling_driver.empty(),
        p.cpu_scaling_driver, probed ? no_cpufreq : why.newer);
  SetOr(&cpu.max_khz, snapshot && p.cpu_max_khz > 0, p.cpu_max_khz, freq_why);
  SetOr(&cpu.cur_khz, snapshot && p.cpu_cur_khz > 0, p.cpu_cur_khz, freq_why);
  cpu.cur_khz_of = "on cpu0 when recording started";
  SetOr(&cpu.threads_per_core, probed && p.threads_per_core > 0,
        p.threads_per_core, why.newer);
  cpu.smt_control = p.smt_control;

  // The snapshot's 0 is "no quota" (or not readable).
  const bool quota_number =
      std::isfinite(p.cgroup_cpu_limit) && p.cgroup_cpu_limit >= 0;
  SetOr(&m.cgroup.cpu_limit, snapshot && quota_number, p.cgroup_cpu_limit,
        snapshot ? std::string("the recorded quota is not a number") : why.all);
  SetOr(&m.cgroup.memory_limit, probed, p.cgroup_memory_limit_bytes, why.newer);

  const std::string no_load =
      snapshot ? "not recorded: the trace has no pressure readings" : why.all;
  m.load.loadavg.Unknown(
      !snapshot ? why.all
      : tl.system_samples.empty()
          ? "no system samples in the trace (host sampling was off), so no "
            "load average"
          : "no system sample in the analysed window");
  m.load.cpu_pressure.Unknown(no_load);
  m.load.io_pressure.Unknown(no_load);
  m.load.iowait_share.Unknown(
      tl.system_samples.empty()
          ? (snapshot ? "no system samples in the trace (host sampling was "
                        "off)"
                      : why.all)
          : "fewer than two system samples in the analysed window");

  MemoryFacts& mem = m.memory;
  SetOr(&mem.total, snapshot && p.memory_total_bytes > 0, p.memory_total_bytes,
        why.all);
  SetOr(&mem.available, probed && p.memory_available_bytes > 0,
        p.memory_available_bytes, why.newer);
  SetOr(&mem.dirty, probed, p.memory_dirty_bytes, why.newer);
  SetOr(&mem.writeback, probed, p.memory_writeback_bytes, why.newer);
  mem.when = "when recording started";
  if (probed && p.memory_available_bytes > 0) {
    mem.at_start =
        MemoryFacts::Reading{p.memory_available_bytes, p.memory_dirty_bytes,
                             p.memory_writeback_bytes};
  }
  SetOr(&mem.swap_total, probed, p.swap_total_bytes, why.newer);
  SetOr(&mem.swap_free, probed, p.swap_free_bytes, why.newer);
  SetOr(&mem.thp_enabled, probed && !p.transparent_hugepage.empty(),
        p.transparent_hugepage,
        probed ? "transparent huge pages could not be read when recording"
               : why.newer);
  SetOr(&mem.thp_defrag, probed && !p.transparent_hugepage_defrag.empty(),
        p.transparent_hugepage_defrag, why.newer);
  SampledLoadAndMemory(tl, scope, &m);

  if (p.working_directory_mount) {
    m.storage.push_back(
        StorageOf(*p.working_directory_mount, "working directory"));
  }
  for (const Platform::Mount& d : p.data_mounts) {
    m.storage.push_back(StorageOf(d, absl::StrCat("data ", d.path)));
  }
  if (m.storage.empty()) {
    m.storage_unknown =
        probed ? "no mount was found for the working directory when "
                 "recording"
               : why.newer;
  }

  size_t sampled = 0;
  if (m.gpus.known()) {
    for (const GpuFacts& g : *m.gpus) sampled += g.nvml.has_value();
  }
  if (sampled > 0) {
    NvmlFacts n;
    n.driver_version = p.nvidia_driver_version;
    n.devices = static_cast<uint32_t>(sampled);
    m.nvml.Set(n);
  } else {
    m.nvml.Unknown(
        snapshot ? "no NVML samples in the trace: libnvidia-ml.so.1 was not "
                   "found while recording (or no GPU was sampled), so clocks, "
                   "throttling, power and temperature are unknown"
                 : why.all);
  }
  SetOr(&m.kernel_driver_version,
        snapshot && p.nvidia_probed && !p.nvidia_driver_version.empty(),
        p.nvidia_driver_version,
        snapshot && p.nvidia_probed
            ? std::string("no NVIDIA kernel module was loaded on the "
                          "recording machine")
            : why.all);
  SetOr(&m.rdma_devices, probed, p.rdma_devices, why.newer);
  return m;
}

}  // namespace feedprof::platform
