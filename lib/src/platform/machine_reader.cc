// Reads CPUs, NUMA nodes, the process, load, memory and driver facts, and
// assembles MachineFacts from the other readers.
#include "platform/machine_reader.h"

#include <algorithm>
#include <cstdio>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace feedprof::platform {
namespace {

constexpr const char* kCpuDir = "/sys/devices/system/cpu";

// A file's one-line value into `fact`, or the reason it is missing.
void ReadStringFact(const MachineRoot& root, const std::string& path,
                    Fact<std::string>* fact) {
  const FileText f = root.Read(path, 64 * 1024);
  if (!f.ok()) {
    fact->Unknown(f.Problem());
    return;
  }
  fact->Set(std::string(Trim(f.text)));
}

void ReadCpuListFact(const MachineRoot& root, const std::string& path,
                     Fact<std::vector<int>>* fact) {
  const FileText f = root.Read(path, 64 * 1024);
  if (!f.ok()) {
    fact->Unknown(f.Problem());
    return;
  }
  std::optional<std::vector<int>> cpus = ParseCpuList(f.text);
  if (!cpus) {
    fact->Unknown(absl::StrCat(path, " is not a CPU list: \"",
                               std::string(Trim(f.text).substr(0, 40)), "\""));
    return;
  }
  fact->Set(std::move(*cpus));
}

void ReadFrequencies(const MachineRoot& root, CpuFacts* cpu) {
  const std::string cpufreq = absl::StrCat(kCpuDir, "/cpu0/cpufreq");
  if (!root.Exists(cpufreq)) {
    const std::string why = absl::StrCat(
        cpufreq,
        " does not exist: no CPU frequency driver (a virtual machine or a "
        "container without cpufreq; the hypervisor or firmware sets the "
        "clock)");
    cpu->governor.Unknown(why);
    cpu->driver.Unknown(why);
    cpu->max_khz.Unknown(why);
    cpu->cur_khz.Unknown(why);
    return;
  }
  ReadStringFact(root, cpufreq + "/scaling_governor", &cpu->governor);
  ReadStringFact(root, cpufreq + "/scaling_driver", &cpu->driver);
  for (const char* name : {"cpuinfo_max_freq", "scaling_max_freq"}) {
    const std::string path = absl::StrCat(cpufreq, "/", name);
    const std::optional<std::string> v = root.Attribute(path);
    if (const std::optional<uint64_t> khz = v ? ParseUint(*v) : std::nullopt) {
      cpu->max_khz.Set(*khz);
      break;
    }
    cpu->max_khz.Unknown(absl::StrCat(path, " cannot be read"));
  }
  // The mean current clock over the online CPUs that report one, and the
  // CPUs whose governor differs from cpu0's.
  const std::vector<int> online =
      cpu->online.known() ? *cpu->online : std::vector<int>{0};
  uint64_t sum = 0;
  uint64_t count = 0;
  for (int c : online) {
    const std::string dir = absl::StrCat(kCpuDir, "/cpu", c, "/cpufreq");
    if (const std::optional<std::string> v =
            root.Attribute(dir + "/scaling_cur_freq")) {
      if (const std::optional<uint64_t> khz = ParseUint(*v)) {
        sum += *khz;
        ++count;
      }
    }
    if (c != 0 && cpu->governor.known()) {
      const std::optional<std::string> g =
          root.Attribute(dir + "/scaling_governor");
      if (g && *g != *cpu->governor) ++cpu->other_governor_cpus;
    }
  }
  if (count > 0) {
    cpu->cur_khz.Set(sum / count);
  } else {
    cpu->cur_khz.Unknown(
        absl::StrCat(cpufreq, "/scaling_cur_freq cannot be read"));
  }
}

}  // namespace

void ReadCpuFacts(const MachineRoot& root, CpuFacts* cpu,
                  std::vector<NumaNodeFacts>* nodes) {
  const FileText cpuinfo = root.Read("/proc/cpuinfo", 256 * 1024);
  if (cpuinfo.ok()) {
    for (const char* key : {"model name", "Model", "Processor"}) {
      if (std::optional<std::string> m = FindKeyValue(cpuinfo.text, key)) {
        cpu->model = *m;
        break;
      }
    }
  }
  ReadCpuListFact(root, absl::StrCat(kCpuDir, "/present"), &cpu->present);
  ReadCpuListFact(root, absl::StrCat(kCpuDir, "/online"), &cpu->online);
  ReadFrequencies(root, cpu);

  // SMT: threads per core from cpu0's siblings; the control knob when the
  // kernel has it.
  const std::string siblings =
      absl::StrCat(kCpuDir, "/cpu0/topology/thread_siblings_list");
  Fact<std::vector<int>> sibling_cpus;
  ReadCpuListFact(root, siblings, &sibling_cpus);
  if (sibling_cpus.known() && !sibling_cpus->empty()) {
    cpu->threads_per_core.Set(static_cast<uint32_t>(sibling_cpus->size()));
  } else {
    cpu->threads_per_core.Unknown(sibling_cpus.why_unknown.empty()
                                      ? siblings + " is empty"
                                      : sibling_cpus.why_unknown);
  }
  cpu->smt_control =
      root.Attribute(absl::StrCat(kCpuDir, "/smt/control")).value_or("");

  nodes->clear();
  for (const std::string& name : root.List("/sys/devices/system/node")) {
    int id = 0;
    if (!std::string_view(name).starts_with("node") ||
        !absl::SimpleAtoi(absl::string_view(name).substr(4), &id)) {
      continue;
    }
    NumaNodeFacts node;
    node.id = id;
    if (const std::optional<std::string> list = root.Attribute(
            absl::StrCat("/sys/devices/system/node/", name, "/cpulist"))) {
      node.cpus = ParseCpuList(*list).value_or(std::vector<int>{});
    }
    nodes->push_back(std::move(node));
  }
  std::sort(nodes->begin(), nodes->end(),
            [](const NumaNodeFacts& a, const NumaNodeFacts& b) {
              return a.id < b.id;
            });
}

void ReadProcessFacts(const MachineRoot& root, std::optional<int> pid,
                      ProcessFacts* process) {
  const std::string dir =
      pid ? absl::StrCat("/proc/", *pid) : std::string("/proc/self");
  process->own = !pid.has_value();
  const FileText status = root.Read(dir + "/status");
  if (!status.ok()) {
    const std::string why = status.Problem();
    process->affinity.Unknown(why);
    process->mems_allowed.Unknown(why);
  } else {
    process->command = FindKeyValue(status.text, "Name").value_or("");
    if (const auto pid_text = FindKeyValue(status.text, "Pid")) {
      process->pid = static_cast<int>(ParseInt(*pid_text).value_or(0));
    }
    const auto field = [&](const char* key, Fact<std::vector<int>>* fact) {
      const std::optional<std::string> v = FindKeyValue(status.text, key);
      std::optional<std::vector<int>> cpus =
          v ? ParseCpuList(*v) : std::nullopt;
      if (cpus) {
        fact->Set(std::move(*cpus));
      } else {
        fact->Unknown(absl::StrCat(dir, "/status has no ", key));
      }
    };
    field("Cpus_allowed_list", &process->affinity);
    field("Mems_allowed_list", &process->mems_allowed);
  }
  if (pid && process->pid == 0) process->pid = *pid;

  // The policy of the first mapping is the process's default policy unless
  // the program set one on that mapping itself (mbind).
  const FileText maps = root.Read(dir + "/numa_maps", 4096);
  if (!maps.ok()) {
    process->memory_policy.Unknown(
        maps.outcome == ReadOutcome::kMissing
            ? absl::StrCat(maps.Problem(),
                           " (a kernel without NUMA support, or no process)")
            : maps.Problem());
  } else {
    const std::string_view text = maps.text;
    const std::vector<std::string_view> first =
        Split(text.substr(0, text.find('\n')), ' ', true);
    if (first.size() >= 2) {
      process->memory_policy.Set(std::string(first[1]));
    } else {
      process->memory_policy.Unknown(dir + "/numa_maps is empty");
    }
  }
  const FileText limits = root.Read(dir + "/limits");
  if (!limits.ok()) {
    process->memlock.Unknown(limits.Problem());
  } else if (std::optional<ResourceLimit> l =
                 ParseLimit(limits.text, "Max locked memory")) {
    process->memlock.Set(*l);
  } else {
    process->memlock.Unknown(dir + "/limits has no \"Max locked memory\"");
  }
}

void ReadLoadAndMemory(const MachineRoot& root, LoadFacts* load,
                       MemoryFacts* memory) {
  const FileText loadavg = root.Read("/proc/loadavg");
  if (!loadavg.ok()) {
    load->loadavg.Unknown(loadavg.Problem());
  } else if (std::optional<LoadAverage> l = ParseLoadavg(loadavg.text)) {
    load->loadavg.Set(*l);
  } else {
    load->loadavg.Unknown("/proc/loadavg is not in the expected format");
  }
  const auto pressure = [&](const char* path, Fact<Pressure>* fact) {
    const FileText f = root.Read(path);
    if (!f.ok()) {
      fact->Unknown(f.outcome == ReadOutcome::kMissing
                        ? absl::StrCat(f.Problem(),
                                       " (a kernel without pressure stall "
                                       "information, or psi=0)")
                        : f.Problem());
    } else if (std::optional<Pressure> p = ParsePressure(f.text)) {
      fact->Set(*p);
    } else {
      fact->Unknown(absl::StrCat(path, " has no \"some\" line"));
    }
  };
  pressure("/proc/pressure/cpu", &load->cpu_pressure);
  pressure("/proc/pressure/io", &load->io_pressure);
  load->iowait_share.Unknown("no CPU time sample was taken");

  const FileText meminfo = root.Read("/proc/meminfo");
  const std::map<std::string, uint64_t> mem =
      meminfo.ok() ? ParseMeminfo(meminfo.text)
                   : std::map<std::string, uint64_t>{};
  const auto field = [&](const char* key, Fact<uint64_t>* fact) {
    auto it = mem.find(key);
    if (it != mem.end()) {
      fact->Set(it->second);
    } else {
      fact->Unknown(meminfo.ok() ? absl::StrCat("/proc/meminfo has no ", key)
                                 : meminfo.Problem());
    }
  };
  field("MemTotal", &memory->total);
  field("MemAvailable", &memory->available);
  field("Dirty", &memory->dirty);
  field("Writeback", &memory->writeback);
  field("SwapTotal", &memory->swap_total);
  field("SwapFree", &memory->swap_free);
  const auto choice = [&](const char* path, Fact<std::string>* fact) {
    const FileText f = root.Read(path);
    if (!f.ok()) {
      fact->Unknown(f.outcome == ReadOutcome::kMissing
                        ? absl::StrCat(f.Problem(),
                                       " (a kernel without transparent huge "
                                       "pages)")
                        : f.Problem());
    } else if (std::optional<std::string> c = BracketedChoice(f.text)) {
      fact->Set(*c);
    } else {
      fact->Unknown(absl::StrCat(path, " names no [selected] setting"));
    }
  };
  choice("/sys/kernel/mm/transparent_hugepage/enabled", &memory->thp_enabled);
  choice("/sys/kernel/mm/transparent_hugepage/defrag", &memory->thp_defrag);
  const auto vm = [&](const char* name, uint64_t* out) {
    const std::optional<std::string> v =
        root.Attribute(absl::StrCat("/proc/sys/vm/", name));
    if (const std::optional<uint64_t> n = v ? ParseUint(*v) : std::nullopt) {
      *out = *n;
    }
  };
  vm("dirty_background_ratio", &memory->dirty_background_ratio);
  vm("dirty_ratio", &memory->dirty_ratio);
  vm("dirty_background_bytes", &memory->dirty_background_bytes);
  vm("dirty_bytes", &memory->dirty_bytes);
}

CpuTimeSample BeginCpuTimeSample(const MachineRoot& root) {
  CpuTimeSample s;
  s.at = std::chrono::steady_clock::now();
  const FileText stat = root.Read("/proc/stat");
  if (!stat.ok()) {
    s.problem = stat.Problem();
    return s;
  }
  s.times = ParseProcStatCpu(stat.text);
  if (!s.times) s.problem = "/proc/stat has no \"cpu\" line";
  return s;
}

void FinishCpuTimeSample(const MachineRoot& root, const CpuTimeSample& begin,
                         LoadFacts* load) {
  load->interval_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - begin.at)
          .count();
  char label[48];
  std::snprintf(label, sizeof label, "over %.2f s", load->interval_s);
  load->interval_label = label;
  if (!begin.times) {
    load->iowait_share.Unknown(begin.problem);
    return;
  }
  const FileText stat = root.Read("/proc/stat");
  const std::optional<CpuTimes> end =
      stat.ok() ? ParseProcStatCpu(stat.text) : std::nullopt;
  if (!end) {
    load->iowait_share.Unknown(stat.ok() ? "/proc/stat has no \"cpu\" line"
                                         : stat.Problem());
    return;
  }
  const uint64_t total = end->Total() - begin.times->Total();
  if (end->Total() < begin.times->Total() || total == 0) {
    load->iowait_share.Unknown(
        "no CPU time passed between the two reads of /proc/stat");
    return;
  }
  const uint64_t iowait = end->iowait >= begin.times->iowait
                              ? end->iowait - begin.times->iowait
                              : 0;
  load->iowait_share.Set(static_cast<double>(iowait) /
                         static_cast<double>(total));
}

MachineFacts ReadMachineFacts(const MachineRoot& root,
                              const ReadOptions& options) {
  MachineFacts m;
  m.source = root.live() ? "this machine"
                         : absl::StrCat("the tree under ", root.Path(""));
  ReadCpuFacts(root, &m.cpu, &m.numa_nodes);
  ReadProcessFacts(root, options.pid, &m.process);
  ReadCgroupFacts(root,
                  options.pid ? absl::StrCat("/proc/", *options.pid)
                              : std::string("/proc/self"),
                  &m.cgroup);
  ReadLoadAndMemory(root, &m.load, &m.memory);
  m.gpus = ReadPciGpus(root);
  m.nvml.Unknown("NVML was not loaded");

  Fact<std::string> version;
  for (const char* path :
       {"/proc/driver/nvidia/version", "/sys/module/nvidia/version"}) {
    const FileText f = root.Read(path);
    if (!f.ok()) continue;
    const std::string v = ParseNvidiaDriverVersion(f.text);
    if (!v.empty()) {
      version.Set(v);
      break;
    }
  }
  if (!version.known()) {
    version.Unknown(
        "no NVIDIA kernel module is loaded (/proc/driver/nvidia/version and "
        "/sys/module/nvidia/version do not exist)");
  }
  m.kernel_driver_version = version;

  ReadOutcome ib = ReadOutcome::kOk;
  const std::vector<std::string> rdma = root.List("/sys/class/infiniband", &ib);
  if (ib == ReadOutcome::kOk || ib == ReadOutcome::kMissing) {
    m.rdma_devices.Set(!rdma.empty());
  } else {
    m.rdma_devices.Unknown("/sys/class/infiniband cannot be read");
  }

  for (const std::string& path : options.data_paths) {
    m.storage.push_back(ReadStorageFacts(root, path, /*probe=*/true));
  }
  if (options.data_paths.empty()) {
    m.storage_unknown =
        "no --data PATH given: pass the dataset's directory to check its "
        "file system, device and read latency";
  }
  return m;
}

}  // namespace feedprof::platform
