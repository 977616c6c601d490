// One reading of every GPU through NVML (libnvidia-ml), loaded with dlopen:
// it exists only where an NVIDIA driver is installed, and doctor must run
// (and say what it could not check) everywhere else. Functions an older
// driver lacks are looked up one by one and their readings left out.
#include <dlfcn.h>

#include <cstring>

#include "abi/nvml_abi.h"
#include "absl/strings/str_cat.h"
#include "platform/machine_reader.h"

namespace feedprof::platform {
namespace {

using namespace nvml;  // NOLINT(build/namespaces): the NVML ABI names
constexpr unsigned kMaxProcesses = 64;
struct ProcessInfo {  // nvmlProcessInfo_v2_t, used by the _v2 and _v3 calls
  unsigned pid;
  unsigned long long used_gpu_memory;
  unsigned gpu_instance_id;
  unsigned compute_instance_id;
};

// The entry points, each null when the library lacks it.
struct Nvml {
  void* library = nullptr;
  int (*init)() = nullptr;
  int (*shutdown)() = nullptr;
  const char* (*error_string)(int) = nullptr;
  int (*driver_version)(char*, unsigned) = nullptr;
  int (*cuda_version)(int*) = nullptr;
  int (*count)(unsigned*) = nullptr;
  int (*handle)(unsigned, Device*) = nullptr;
  int (*name)(Device, char*, unsigned) = nullptr;
  int (*pci_info)(Device, PciInfo*) = nullptr;
  int (*utilization)(Device, Utilization*) = nullptr;
  int (*clock)(Device, int, unsigned*) = nullptr;
  int (*max_clock)(Device, int, unsigned*) = nullptr;
  int (*clock_reasons)(Device, unsigned long long*) = nullptr;
  int (*power)(Device, unsigned*) = nullptr;
  int (*power_limit)(Device, unsigned*) = nullptr;
  int (*default_power_limit)(Device, unsigned*) = nullptr;
  int (*temperature)(Device, int, unsigned*) = nullptr;
  int (*temperature_threshold)(Device, int, unsigned*) = nullptr;
  int (*persistence)(Device, int*) = nullptr;
  int (*ecc_mode)(Device, int*, int*) = nullptr;
  int (*ecc_errors)(Device, int, int, unsigned long long*) = nullptr;
  int (*remapped_rows)(Device, unsigned*, unsigned*, unsigned*,
                       unsigned*) = nullptr;
  int (*link_gen)(Device, unsigned*) = nullptr;
  int (*link_width)(Device, unsigned*) = nullptr;
  int (*max_link_gen)(Device, unsigned*) = nullptr;
  int (*max_link_width)(Device, unsigned*) = nullptr;
  int (*processes)(Device, unsigned*, ProcessInfo*) = nullptr;

  std::string Error(int code) const {
    const char* text = error_string != nullptr ? error_string(code) : nullptr;
    return text != nullptr ? std::string(text) : absl::StrCat("error ", code);
  }
};

template <typename Fn>
void Lookup(void* library, const char* name, Fn* slot) {
  if (*slot == nullptr) *slot = reinterpret_cast<Fn>(dlsym(library, name));
}

void LookupAll(Nvml* n) {
  void* l = n->library;
  Lookup(l, "nvmlInit_v2", &n->init);
  Lookup(l, "nvmlShutdown", &n->shutdown);
  Lookup(l, "nvmlErrorString", &n->error_string);
  Lookup(l, "nvmlSystemGetDriverVersion", &n->driver_version);
  Lookup(l, "nvmlSystemGetCudaDriverVersion_v2", &n->cuda_version);
  Lookup(l, "nvmlSystemGetCudaDriverVersion", &n->cuda_version);
  Lookup(l, "nvmlDeviceGetCount_v2", &n->count);
  Lookup(l, "nvmlDeviceGetHandleByIndex_v2", &n->handle);
  Lookup(l, "nvmlDeviceGetName", &n->name);
  Lookup(l, "nvmlDeviceGetPciInfo_v3", &n->pci_info);
  Lookup(l, "nvmlDeviceGetUtilizationRates", &n->utilization);
  Lookup(l, "nvmlDeviceGetClockInfo", &n->clock);
  Lookup(l, "nvmlDeviceGetMaxClockInfo", &n->max_clock);
  Lookup(l, "nvmlDeviceGetCurrentClocksEventReasons", &n->clock_reasons);
  Lookup(l, "nvmlDeviceGetCurrentClocksThrottleReasons", &n->clock_reasons);
  Lookup(l, "nvmlDeviceGetPowerUsage", &n->power);
  Lookup(l, "nvmlDeviceGetEnforcedPowerLimit", &n->power_limit);
  Lookup(l, "nvmlDeviceGetPowerManagementDefaultLimit",
         &n->default_power_limit);
  Lookup(l, "nvmlDeviceGetTemperature", &n->temperature);
  Lookup(l, "nvmlDeviceGetTemperatureThreshold", &n->temperature_threshold);
  Lookup(l, "nvmlDeviceGetPersistenceMode", &n->persistence);
  Lookup(l, "nvmlDeviceGetEccMode", &n->ecc_mode);
  Lookup(l, "nvmlDeviceGetTotalEccErrors", &n->ecc_errors);
  Lookup(l, "nvmlDeviceGetRemappedRows", &n->remapped_rows);
  Lookup(l, "nvmlDeviceGetCurrPcieLinkGeneration", &n->link_gen);
  Lookup(l, "nvmlDeviceGetCurrPcieLinkWidth", &n->link_width);
  Lookup(l, "nvmlDeviceGetMaxPcieLinkGeneration", &n->max_link_gen);
  Lookup(l, "nvmlDeviceGetMaxPcieLinkWidth", &n->max_link_width);
  Lookup(l, "nvmlDeviceGetComputeRunningProcesses_v3", &n->processes);
  Lookup(l, "nvmlDeviceGetComputeRunningProcesses_v2", &n->processes);
}

// `fn(device, args..., &out)` into `*slot` when it succeeds.
template <typename T, typename Fn, typename... Args>
void Reading(Fn fn, std::optional<T>* slot, Device d, Args... args) {
  if (fn == nullptr) return;
  unsigned v = 0;
  if (fn(d, args..., &v) == kSuccess) *slot = static_cast<T>(v);
}

NvmlGpuFacts ReadDevice(const Nvml& n, Device d) {
  NvmlGpuFacts g;
  char name[96] = {};
  if (n.name != nullptr && n.name(d, name, sizeof name) == kSuccess) {
    g.name = name;
  }
  Utilization u{};
  if (n.utilization != nullptr && n.utilization(d, &u) == kSuccess) {
    g.utilization_pct = u.gpu;
  }
  Reading(n.clock, &g.sm_clock_mhz, d, kClockSm);
  Reading(n.max_clock, &g.sm_max_clock_mhz, d, kClockSm);
  unsigned long long reasons = 0;
  if (n.clock_reasons != nullptr && n.clock_reasons(d, &reasons) == kSuccess) {
    g.clock_event_reasons = reasons;
  }
  Reading(n.power, &g.power_mw, d);
  Reading(n.power_limit, &g.power_limit_mw, d);
  Reading(n.default_power_limit, &g.default_power_limit_mw, d);
  Reading(n.temperature, &g.temperature_c, d, kTemperatureGpu);
  Reading(n.temperature_threshold, &g.slowdown_temperature_c, d,
          kThresholdSlowdown);
  int state = 0;
  if (n.persistence != nullptr && n.persistence(d, &state) == kSuccess) {
    g.persistence_mode = state != 0;
  }
  int current = 0;
  int pending = 0;
  if (n.ecc_mode != nullptr && n.ecc_mode(d, &current, &pending) == kSuccess) {
    g.ecc_enabled = current != 0;
  }
  unsigned long long count = 0;
  if (g.ecc_enabled.value_or(false) && n.ecc_errors != nullptr) {
    if (n.ecc_errors(d, kErrorUncorrected, kVolatileEcc, &count) == kSuccess) {
      g.ecc_uncorrected_volatile = count;
    }
    if (n.ecc_errors(d, kErrorCorrected, kVolatileEcc, &count) == kSuccess) {
      g.ecc_corrected_volatile = count;
    }
  }
  unsigned corrected_rows = 0;
  unsigned uncorrected_rows = 0;
  unsigned is_pending = 0;
  unsigned failure = 0;
  if (n.remapped_rows != nullptr &&
      n.remapped_rows(d, &corrected_rows, &uncorrected_rows, &is_pending,
                      &failure) == kSuccess) {
    g.row_remap_pending = is_pending != 0;
    g.row_remap_failure = failure != 0;
  }
  Reading(n.link_gen, &g.pcie_gen, d);
  Reading(n.link_width, &g.pcie_width, d);
  Reading(n.max_link_gen, &g.pcie_max_gen, d);
  Reading(n.max_link_width, &g.pcie_max_width, d);
  if (n.processes != nullptr) {
    ProcessInfo infos[kMaxProcesses] = {};
    unsigned found = kMaxProcesses;
    const int r = n.processes(d, &found, infos);
    if (r == kSuccess || r == kInsufficientSize) {
      std::vector<NvmlGpuFacts::Process> list;
      for (unsigned i = 0; i < found && i < kMaxProcesses; ++i) {
        list.push_back({infos[i].pid, infos[i].used_gpu_memory});
      }
      g.processes = std::move(list);
    }
  }
  g.samples = 1;
  return g;
}

}  // namespace

Fact<NvmlFacts> ReadNvml(const std::string& library,
                         Fact<std::vector<GpuFacts>>* gpus) {
  Fact<NvmlFacts> out;
  Nvml n;
  n.library = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (n.library == nullptr) {
    const char* why = dlerror();
    out.Unknown(absl::StrCat(
        "NVML did not load (", why != nullptr ? why : library,
        "): no NVIDIA driver is installed here, so GPU clocks, throttling, "
        "power, temperature, ECC and processes cannot be read"));
    return out;
  }
  LookupAll(&n);
  if (n.init == nullptr || n.count == nullptr || n.handle == nullptr) {
    out.Unknown(absl::StrCat(library,
                             " loaded but lacks nvmlInit_v2 or the device "
                             "calls (a driver older than 2015?)"));
    dlclose(n.library);
    return out;
  }
  if (const int r = n.init(); r != kSuccess) {
    out.Unknown(absl::StrCat("nvmlInit failed: ", n.Error(r),
                             " (is the NVIDIA kernel module loaded?)"));
    dlclose(n.library);
    return out;
  }
  NvmlFacts facts;
  char version[96] = {};
  if (n.driver_version != nullptr &&
      n.driver_version(version, sizeof version) == kSuccess) {
    facts.driver_version = version;
  }
  int cuda = 0;
  if (n.cuda_version != nullptr && n.cuda_version(&cuda) == kSuccess) {
    facts.cuda_driver_version = cuda;
  }
  unsigned count = 0;
  if (n.count(&count) != kSuccess) count = 0;
  facts.devices = count;
  if (!gpus->known()) gpus->Set({});
  std::vector<GpuFacts>& list = *gpus->value;
  for (unsigned i = 0; i < count; ++i) {
    Device d = nullptr;
    if (n.handle(i, &d) != kSuccess) continue;
    NvmlGpuFacts g = ReadDevice(n, d);
    PciInfo pci{};
    std::string bus_id;
    if (n.pci_info != nullptr && n.pci_info(d, &pci) == kSuccess) {
      pci.bus_id[sizeof pci.bus_id - 1] = '\0';
      bus_id = NormalizeBusId(pci.bus_id);
    }
    GpuFacts* match = nullptr;
    for (GpuFacts& known : list) {
      if (!bus_id.empty() && NormalizeBusId(known.bus_id) == bus_id) {
        match = &known;
      }
    }
    if (match == nullptr) {
      // Seen by NVML only (no sysfs in a container): link and NUMA facts
      // come from NVML or stay unknown.
      GpuFacts added;
      added.index = static_cast<int>(list.size());
      added.bus_id = bus_id.empty() ? absl::StrCat("nvml:", i) : bus_id;
      const std::string why = "the GPU is not in /sys/bus/pci/devices";
      added.link.current_gts.Unknown(why);
      added.link.max_gts.Unknown(why);
      added.link.current_width.Unknown(why);
      added.link.max_width.Unknown(why);
      added.port_link = added.link;
      added.numa_node.Unknown(why);
      added.local_cpus.Unknown(why);
      list.push_back(std::move(added));
      match = &list.back();
    }
    match->name = g.name;
    match->nvml = std::move(g);
  }
  if (n.shutdown != nullptr) n.shutdown();
  dlclose(n.library);
  out.Set(std::move(facts));
  return out;
}

}  // namespace feedprof::platform
