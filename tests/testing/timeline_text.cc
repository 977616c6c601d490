#include "tests/testing/timeline_text.h"

#include <sstream>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace feedprof::testing {
namespace {

template <typename T>
std::string Opt(const std::optional<T>& v) {
  if (!v.has_value()) return "-";
  std::ostringstream o;
  o << +*v;
  return o.str();
}

void Mount(std::ostringstream& o, const Platform::Mount& m) {
  o << m.path << '|' << m.mount_point << '|' << m.fs_type << '|' << m.source
    << '|' << m.options << '|' << m.block_device << '|' << m.rotational << '|'
    << m.scheduler << '\n';
}

}  // namespace

std::string TimelineText(const Timeline& t) {
  std::ostringstream o;
  auto s = [&t](StringId id) {
    return absl::StrCat(id, "'", std::string(t.strings.Get(id)), "'");
  };
  o << "format " << static_cast<int>(t.format) << " path " << t.source_path
    << '\n';
  o << "strings " << t.strings.size() << '\n';
  for (StringId i = 0; i < t.strings.size(); ++i) o << s(i) << '\n';
  for (const Process& p : t.processes) {
    o << absl::StrFormat("process %d %d %d %d %d %s|%s|%s %d %d %s %d %s\n",
                         p.pid, p.ppid, p.rank, p.world_size, p.local_rank,
                         p.hostname, p.command, p.origin, p.start, p.end,
                         p.trace_path, static_cast<int>(p.gpu_collection),
                         p.gpu_collection_detail);
  }
  for (const Thread& th : t.threads) {
    o << absl::StrFormat("thread %d %d %s %d\n", th.pid, th.tid, th.name,
                         th.is_main);
  }
  for (const Device& d : t.devices) {
    o << absl::StrFormat("device %d %d %s %d %s %d %g %g %d %d\n", d.id, d.pid,
                         d.name, d.sm_count, d.pci_bus_id, d.memory_bytes,
                         d.pcie_current_gts, d.pcie_max_gts,
                         d.pcie_current_width, d.pcie_max_width);
  }
  for (const GpuOp& g : t.gpu_ops) {
    const LaunchShape& launch = t.LaunchOf(g);
    o << absl::StrFormat(
        "gpu_op %d %d %d %d %d %d %d %s %d %d %d %d %d %d:%d,%d,%d %d,%d,%d "
        "%d\n",
        g.start, g.end, g.correlation, g.bytes, g.stream, g.pid, g.device,
        s(g.name), static_cast<int>(g.kind), static_cast<int>(g.copy_kind),
        static_cast<int>(g.src_kind), static_cast<int>(g.dst_kind), g.async,
        g.launch, launch.grid[0], launch.grid[1], launch.grid[2],
        launch.block[0], launch.block[1], launch.block[2], launch.graph_id);
  }
  for (const ApiCall& c : t.api_calls) {
    o << absl::StrFormat("api %d %d %d %d %d %d %s %d %d\n", c.start, c.end,
                         c.correlation, c.bytes, c.pid, c.tid, s(c.name),
                         c.call_site, static_cast<int>(c.domain));
  }
  for (const SyncRecord& r : t.syncs) {
    o << absl::StrFormat("sync %d %d %d %d %d %d %d %d\n", r.start, r.end,
                         r.correlation, r.stream, r.pid, r.tid, r.device,
                         static_cast<int>(r.type));
  }
  for (const Range& r : t.ranges) {
    o << absl::StrFormat("range %d %d %d %d %s %s %d %d\n", r.start, r.end,
                         r.pid, r.tid, s(r.name), s(r.domain), r.depth,
                         static_cast<int>(r.source));
  }
  for (const Mark& m : t.marks) {
    o << absl::StrFormat("mark %d %d %d %s %s\n", m.ts, m.pid, m.tid, s(m.name),
                         s(m.domain));
  }
  for (const ThreadSample& x : t.thread_samples) {
    o << absl::StrFormat("thread_sample %d %d %d %d %d %d %d %d %d\n", x.ts,
                         x.user_ns, x.system_ns, x.pid, x.tid,
                         static_cast<int>(x.state), x.io_wait_ns,
                         x.voluntary_switches, x.involuntary_switches);
  }
  for (const ProcessSample& x : t.process_samples) {
    o << absl::StrFormat(
        "process_sample %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d "
        "%d\n",
        x.ts, x.pid, x.read_bytes, x.rchar, x.major_faults, x.minor_faults,
        x.user_ns, x.system_ns, x.write_bytes, x.rss_bytes, x.num_threads,
        x.wchar, x.syscr, x.syscw, x.profiler_syscr, x.profiler_rchar,
        x.profiler_syscw, x.profiler_wchar);
  }
  for (const DiskSample& x : t.disk_samples) {
    o << absl::StrFormat("disk_sample %d %d %s %d %d %d %d %d %d %d %d\n", x.ts,
                         x.pid, t.strings.Get(x.device), x.reads, x.read_bytes,
                         x.read_ms, x.writes, x.write_bytes, x.write_ms,
                         x.busy_ms, x.in_flight);
  }
  for (const NfsSample& x : t.nfs_samples) {
    o << absl::StrFormat("nfs_sample %d %d %s %d %d %d %d %d %d %d %d\n", x.ts,
                         x.pid, t.strings.Get(x.mount_point), x.ops,
                         x.transmissions, x.major_timeouts, x.rtt_ms,
                         x.execute_ms, x.read_ops, x.read_bytes, x.read_rtt_ms);
  }
  for (const SystemSample& x : t.system_samples) {
    o << absl::StrFormat(
        "system_sample %d %d %d %d %d %d %d %d %d %d %d %d %g\n", x.ts, x.pid,
        x.cpu_user_ns, x.cpu_system_ns, x.cpu_idle_ns, x.cpu_iowait_ns,
        x.cpu_other_ns, x.procs_running, x.procs_blocked, x.mem_available_bytes,
        x.mem_dirty_bytes, x.mem_writeback_bytes, x.load_1m);
  }
  for (const CounterSample& x : t.counters) {
    o << absl::StrFormat("counter %d %d %d %s %g\n", x.ts, x.pid, x.device,
                         s(x.name), x.value);
  }
  for (size_t i = 0; i < t.call_sites.size(); ++i) {
    const CallSite& c = t.call_sites[i];
    o << "call_site " << i << ' ' << c.python;
    for (const Frame& f : c.frames) {
      o << absl::StrFormat(" [%s %s %d %d]", s(f.file), s(f.function), f.line,
                           f.pc);
    }
    o << '\n';
  }
  for (const NvtxCategoryName& c : t.nvtx_categories) {
    o << absl::StrFormat("nvtx_category %d %s %d %s\n", c.pid, s(c.domain),
                         c.category, s(c.name));
  }
  for (const StreamInfo& x : t.streams) {
    o << absl::StrFormat("stream %d %d %d %d %d %d\n", x.pid, x.device,
                         x.context, x.stream, x.priority,
                         static_cast<int>(x.kind));
  }

  const Platform& p = t.platform;
  o << absl::StrFormat("platform %s %d %s %g %d %d %d [%s] %s\n", p.cpu_model,
                       p.logical_cpus, p.frequency_governor, p.cgroup_cpu_limit,
                       p.memory_total_bytes, p.numa_nodes, p.nvidia_probed,
                       absl::StrJoin(p.nvidia_pci_bus_ids, ","),
                       p.nvidia_driver_version);
  o << absl::StrFormat(
      "platform facts %d %d %d %s %s %s %s %s %d %d %d %s %d %d %d %d %d %d "
      "%d %s %s %d\n",
      p.host_facts_probed, p.pid, p.online_cpus, p.online_cpu_list,
      p.process_cpu_affinity, p.process_mems_allowed, p.memory_policy,
      p.cpu_scaling_driver, p.cpu_max_khz, p.cpu_cur_khz, p.threads_per_core,
      p.smt_control, p.memlock_limit_bytes, p.cgroup_memory_limit_bytes,
      p.memory_available_bytes, p.memory_dirty_bytes, p.memory_writeback_bytes,
      p.swap_total_bytes, p.swap_free_bytes, p.transparent_hugepage,
      p.transparent_hugepage_defrag, p.rdma_devices);
  for (const Platform::NumaNode& n : p.numa_node_cpus) {
    o << "numa " << n.id << ' ' << n.cpus << '\n';
  }
  for (const Platform::PciFunction& f : p.pci_functions) {
    o << absl::StrFormat("pci %s %d %d %s %g %g %d %d\n", f.bus_id,
                         f.class_code, f.numa_node, f.local_cpus,
                         f.current_link_gts, f.max_link_gts,
                         f.current_link_width, f.max_link_width);
  }
  if (p.working_directory_mount) {
    o << "cwd mount ";
    Mount(o, *p.working_directory_mount);
  }
  for (const Platform::Mount& m : p.data_mounts) {
    o << "data mount ";
    Mount(o, m);
  }
  for (const Platform::NvmlDevice& n : p.nvml_devices) {
    o << absl::StrFormat(
        "nvml %d %d %s %s %s %s %s %s %s %s %s %s %s %s %s %s %s %s\n", n.pid,
        n.device, n.pci_bus_id, n.name, Opt(n.power_limit_mw),
        Opt(n.default_power_limit_mw), Opt(n.enforced_power_limit_mw),
        Opt(n.max_sm_clock_mhz), Opt(n.max_mem_clock_mhz),
        Opt(n.slowdown_temperature_c), Opt(n.persistence_mode),
        Opt(n.ecc_enabled), Opt(n.ecc_volatile_corrected),
        Opt(n.ecc_volatile_uncorrected), Opt(n.ecc_aggregate_corrected),
        Opt(n.ecc_aggregate_uncorrected), Opt(n.row_remap_pending),
        Opt(n.row_remap_failure));
  }
  const DropCounts& d = t.drops;
  o << absl::StrFormat("drops %d %d %d %d %d %d %d %d\n", d.events_dropped,
                       d.cupti_records_dropped, d.zero_timestamp_records,
                       d.samples_dropped, d.cupti_buffers_dropped,
                       d.strings_dropped, d.events_recorded, d.packets_dropped);
  const Availability& a = t.available;
  o << absl::StrFormat("available %d %d %d %d %d %d %d %d %d\n", a.api_calls,
                       a.correlation, a.sync_records, a.host_samples,
                       a.system_samples, a.process_io, a.call_sites,
                       a.gpu_counters, a.ranges);
  for (const std::string& w : t.warnings) o << "warning " << w << '\n';
  return o.str();
}

std::string FirstDifference(const std::string& a, const std::string& b) {
  std::istringstream x(a);
  std::istringstream y(b);
  std::string lx;
  std::string ly;
  for (int line = 1;; ++line) {
    const bool more_x = static_cast<bool>(std::getline(x, lx));
    const bool more_y = static_cast<bool>(std::getline(y, ly));
    if (!more_x && !more_y) return "";
    if (!more_x || !more_y || lx != ly) {
      return absl::StrFormat("line %d:\n  %s\n  %s", line,
                             more_x ? lx : "<end>", more_y ? ly : "<end>");
    }
  }
}

}  // namespace feedprof::testing
