#include "fpt/platform_snapshot_facts.h"

#include <algorithm>
#include <optional>

namespace feedprof::fpt {
namespace {

Platform::Mount MountOf(const trace::Mount& m) {
  Platform::Mount out;
  out.path = m.path();
  out.mount_point = m.mount_point();
  out.fs_type = m.fs_type();
  out.source = m.source();
  out.options = m.options();
  out.block_device = m.block_device();
  out.rotational = m.disk_kind() == trace::DISK_KIND_ROTATIONAL    ? 1
                   : m.disk_kind() == trace::DISK_KIND_SOLID_STATE ? 0
                                                                   : -1;
  out.scheduler = m.scheduler();
  return out;
}

std::optional<bool> StateOf(trace::NvmlEnableState s) {
  if (s == trace::NVML_STATE_ENABLED) return true;
  if (s == trace::NVML_STATE_DISABLED) return false;
  return std::nullopt;
}

template <typename T, typename Has, typename Get>
std::optional<T> Optional(Has has, Get get) {
  return has ? std::optional<T>(get) : std::nullopt;
}

}  // namespace

void AddNvmlStaticFacts(const trace::NvmlFacts& in, int32_t pid,
                        Platform* out) {
  for (const trace::NvmlDevice& d : in.devices()) {
    const auto device = static_cast<int32_t>(d.device_id());
    const bool known =
        std::any_of(out->nvml_devices.begin(), out->nvml_devices.end(),
                    [&](const Platform::NvmlDevice& n) {
                      return n.pid == pid && n.device == device;
                    });
    if (known) continue;
    Platform::NvmlDevice n;
    n.pid = pid;
    n.device = device;
    n.pci_bus_id = d.pci_bus_id();
    n.name = d.name();
    n.power_limit_mw =
        Optional<uint32_t>(d.has_power_limit_mw(), d.power_limit_mw());
    n.default_power_limit_mw = Optional<uint32_t>(
        d.has_power_default_limit_mw(), d.power_default_limit_mw());
    n.enforced_power_limit_mw = Optional<uint32_t>(
        d.has_power_enforced_limit_mw(), d.power_enforced_limit_mw());
    n.max_sm_clock_mhz =
        Optional<uint32_t>(d.has_max_sm_clock_mhz(), d.max_sm_clock_mhz());
    n.max_mem_clock_mhz =
        Optional<uint32_t>(d.has_max_mem_clock_mhz(), d.max_mem_clock_mhz());
    n.slowdown_temperature_c = Optional<uint32_t>(
        d.has_slowdown_temperature_c(), d.slowdown_temperature_c());
    n.persistence_mode = StateOf(d.persistence_mode());
    n.ecc_enabled = StateOf(d.ecc_mode());
    n.ecc_volatile_corrected = Optional<uint64_t>(
        d.has_ecc_volatile_corrected(), d.ecc_volatile_corrected());
    n.ecc_volatile_uncorrected = Optional<uint64_t>(
        d.has_ecc_volatile_uncorrected(), d.ecc_volatile_uncorrected());
    n.ecc_aggregate_corrected = Optional<uint64_t>(
        d.has_ecc_aggregate_corrected(), d.ecc_aggregate_corrected());
    n.ecc_aggregate_uncorrected = Optional<uint64_t>(
        d.has_ecc_aggregate_uncorrected(), d.ecc_aggregate_uncorrected());
    n.row_remap_pending = StateOf(d.row_remap_pending());
    n.row_remap_failure = StateOf(d.row_remap_failure());
    out->nvml_devices.push_back(std::move(n));
  }
}

void CopyPlatformSnapshotFacts(const trace::Platform& in, Platform* out) {
  // Known in every trace that has a snapshot.
  out->online_cpus = in.online_cpus();
  out->process_cpu_affinity = in.process_cpu_affinity();
  out->process_mems_allowed = in.process_mems_allowed();
  out->cpu_max_khz = in.cpu_max_khz();
  out->cpu_cur_khz = in.cpu_cur_khz();
  for (const trace::NumaNode& n : in.numa_nodes()) {
    out->numa_node_cpus.push_back({n.id(), n.cpus()});
  }
  for (const trace::PciDevice& d : in.pci_devices()) {
    Platform::PciFunction f;
    f.bus_id = d.bus_id();
    f.class_code = d.class_code();
    f.numa_node = d.numa_node();
    f.local_cpus = d.local_cpus();
    f.current_link_gts = d.current_link_gts();
    f.max_link_gts = d.max_link_gts();
    f.current_link_width = d.current_link_width();
    f.max_link_width = d.max_link_width();
    out->pci_functions.push_back(std::move(f));
  }
  // Fields 16-33: only in traces that looked for them.
  out->host_facts_probed = in.host_facts_probed();
  if (!in.host_facts_probed()) return;
  out->online_cpu_list = in.online_cpu_list();
  out->cpu_scaling_driver = in.cpu_scaling_driver();
  out->threads_per_core = in.threads_per_core();
  out->smt_control = in.smt_control();
  out->memory_policy = in.memory_policy();
  out->memlock_limit_bytes = in.memlock_limit_bytes();
  out->cgroup_memory_limit_bytes = in.cgroup_memory_limit_bytes();
  out->memory_available_bytes = in.memory_available_bytes();
  out->memory_dirty_bytes = in.memory_dirty_bytes();
  out->memory_writeback_bytes = in.memory_writeback_bytes();
  out->swap_total_bytes = in.swap_total_bytes();
  out->swap_free_bytes = in.swap_free_bytes();
  out->transparent_hugepage = in.transparent_hugepage();
  out->transparent_hugepage_defrag = in.transparent_hugepage_defrag();
  out->rdma_devices = in.rdma_devices();
  if (in.has_working_directory_mount()) {
    out->working_directory_mount = MountOf(in.working_directory_mount());
  }
  for (const trace::Mount& m : in.data_mounts()) {
    out->data_mounts.push_back(MountOf(m));
  }
}

}  // namespace feedprof::fpt
