#include "fpt/feedprof_timeline_builder.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <functional>
#include <limits>
#include <span>
#include <string_view>
#include <type_traits>

#include "absl/strings/escaping.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/parallel_for.h"
#include "common/stable_time_sort.h"
#include "fpt/event_batch_decoder.h"
#include "fpt/platform_snapshot_facts.h"
#include "timeline/cuda_names.h"
#include "timeline/thread_key.h"
#include "timeline/time_limits.h"

namespace feedprof::fpt {
namespace {

constexpr StringId kUndefined = std::numeric_limits<StringId>::max();
// String ids below this live in a vector; a damaged huge id costs a map
// entry, never a huge allocation.
constexpr uint32_t kDenseStringIds = 1u << 22;

using timeline::ThreadKey;

ThreadState ToThreadState(trace::ThreadState state) {
  switch (state) {
    case trace::THREAD_STATE_RUNNING:
      return ThreadState::kRunning;
    case trace::THREAD_STATE_SLEEPING:
      return ThreadState::kSleeping;
    case trace::THREAD_STATE_DISK_WAIT:
      return ThreadState::kDiskWait;
    case trace::THREAD_STATE_STOPPED:
      return ThreadState::kStopped;
    case trace::THREAD_STATE_ZOMBIE:
      return ThreadState::kZombie;
    case trace::THREAD_STATE_IDLE:
      return ThreadState::kIdle;
    default:
      return ThreadState::kUnknown;
  }
}

// PCI addresses come as "0000:3b:00.0" from sysfs and "00000000:3B:00.0"
// from CUDA; compare them as (domain, bus, device, function) numbers.
std::string NormalizePciBusId(std::string_view bus_id) {
  unsigned domain = 0, bus = 0, device = 0, function = 0;
  const std::string text(bus_id);
  if (std::sscanf(text.c_str(), "%x:%x:%x.%x", &domain, &bus, &device,
                  &function) == 4) {
    return absl::StrFormat("%04x:%02x:%02x.%x", domain, bus, device, function);
  }
  if (std::sscanf(text.c_str(), "%x:%x.%x", &bus, &device, &function) == 3) {
    return absl::StrFormat("0000:%02x:%02x.%x", bus, device, function);
  }
  std::string lower = text;
  for (char& c : lower) c = static_cast<char>(std::tolower(c));
  return lower;
}

}  // namespace

FeedprofTimelineBuilder::FeedprofTimelineBuilder(Timeline* timeline)
    : timeline_(timeline) {}

void FeedprofTimelineBuilder::BeginFile(const std::string& path) {
  // Events read here are no sorted run: Finish sorts them with the rest.
  runs_sorted_ = false;
  events_sorted_ = false;
  section_ = Section();
  section_.path = path;
  StartSection();
}

void FeedprofTimelineBuilder::EndFile() { EndSection(); }

void FeedprofTimelineBuilder::StartSection() {
  Timeline& t = *timeline_;
  section_.api_calls_begin = t.api_calls.size();
  section_.gpu_ops_begin = t.gpu_ops.size();
  section_.ranges_begin = t.ranges.size();
  section_.marks_begin = t.marks.size();
  section_.counters_begin = t.counters.size();
  section_.disk_samples_begin = t.disk_samples.size();
  section_.nfs_samples_begin = t.nfs_samples.size();
  section_.call_sites_begin = t.call_sites.size();
  section_.native_modules_begin = t.native_modules.size();
  section_.nvtx_categories_begin = t.nvtx_categories.size();
  section_.streams_begin = t.streams.size();
}

void FeedprofTimelineBuilder::AddPacket(const trace::Packet& packet) {
  switch (packet.data_case()) {
    case trace::Packet::kHeader:
      if (section_.has_packets) {
        // A concatenated file: the next process begins here.
        EndSection();
        const std::string path = section_.path;
        section_ = Section();
        section_.path = path;
        StartSection();
      }
      AddHeader(packet.header());
      break;
    case trace::Packet::kStrings:
      AddStrings(packet.strings());
      break;
    case trace::Packet::kEvents:
      AddEvents(packet.events());
      break;
    case trace::Packet::kHostSamples:
      AddHostSamples(packet.host_samples());
      break;
    case trace::Packet::kCounters:
      AddCounters(packet.counters());
      break;
    case trace::Packet::kDrops:
      AddDrops(packet.drops());
      break;
    case trace::Packet::kDevice:
      AddDevice(packet.device());
      break;
    case trace::Packet::kThread:
      AddThread(packet.thread());
      break;
    case trace::Packet::kFooter:
      AddFooter(packet.footer());
      break;
    case trace::Packet::kStackNodes:
      AddStackNodes(packet.stack_nodes());
      break;
    case trace::Packet::kPythonStacks:
      AddPythonStackStatus(packet.python_stacks());
      break;
    case trace::Packet::kCallSites:
      AddCallSites(packet.call_sites());
      break;
    case trace::Packet::kClock:
      // Clock pairs serve cross-host alignment, which needs no timeline
      // field yet.
      break;
    case trace::Packet::kNvtxCategory:
      AddNvtxCategory(packet.nvtx_category());
      break;
    case trace::Packet::kGpuCollection:
      AddGpuCollection(packet.gpu_collection());
      break;
    case trace::Packet::kStream:
      AddStream(packet.stream());
      break;
    case trace::Packet::kNvmlFacts:
      AddNvmlStaticFacts(packet.nvml_facts(), section_.pid,
                         &timeline_->platform);
      break;
    default:
      // Packets from a newer writer are skipped.
      break;
  }
  section_.has_packets = true;
}

void FeedprofTimelineBuilder::AddHeader(const trace::Header& header) {
  Timeline& t = *timeline_;
  any_header_ = true;
  section_.has_header = true;
  section_.pid = static_cast<int32_t>(header.pid());
  section_.platform = header.platform();
  if (header.format_version() > 1) {
    t.warnings.push_back(absl::StrFormat(
        "%s: written in trace format version %d, newer than this reader "
        "(version 1); fields it does not know were skipped. Update feedprof "
        "to read them",
        section_.path, header.format_version()));
  }

  Process process;
  process.pid = section_.pid;
  process.ppid = static_cast<int32_t>(header.ppid());
  process.rank = header.rank();
  process.local_rank = header.local_rank();
  process.world_size = header.world_size() > 0 ? header.world_size() : 0;
  process.hostname = header.hostname();
  process.command = header.argv_size() > 0 ? absl::StrJoin(header.argv(), " ")
                                           : header.executable();
  process.origin = header.origin();
  process.start = static_cast<TimeNs>(header.clock().monotonic_ns());
  if (!file_clock_.known && header.clock().monotonic_ns() > 0 &&
      header.clock().realtime_ns() > 0 &&
      header.clock().realtime_ns() <= static_cast<uint64_t>(INT64_MAX) &&
      header.clock().monotonic_ns() <= static_cast<uint64_t>(INT64_MAX)) {
    file_clock_.known = true;
    file_clock_.host = header.hostname();
    file_clock_.wall_minus_monotonic_ns =
        static_cast<int64_t>(header.clock().realtime_ns()) -
        static_cast<int64_t>(header.clock().monotonic_ns());
  }
  if (!InTimeRange(process.start)) process.start = 0;  // first event's time
  process.trace_path = section_.path;
  section_.process_index = t.processes.size();
  t.processes.push_back(std::move(process));

  const trace::Platform& platform = header.platform();
  if (!platform_set_ &&
      (!platform.cpu_model().empty() || platform.logical_cpus() > 0)) {
    platform_set_ = true;
    t.platform.cpu_model = platform.cpu_model();
    t.platform.logical_cpus = platform.logical_cpus();
    t.platform.frequency_governor = platform.frequency_governor();
    t.platform.cgroup_cpu_limit = platform.cgroup_cpu_limit();
    t.platform.memory_total_bytes = platform.memory_total_bytes();
    t.platform.numa_nodes = static_cast<uint32_t>(platform.numa_nodes_size());
    t.platform.nvidia_probed = platform.nvidia_probed();
    for (const trace::PciDevice& d : platform.pci_devices()) {
      t.platform.nvidia_pci_bus_ids.push_back(d.bus_id());
    }
    t.platform.nvidia_driver_version = platform.nvidia_driver_version();
    t.platform.pid = section_.pid;
    CopyPlatformSnapshotFacts(platform, &t.platform);
  }
}

void FeedprofTimelineBuilder::AddGpuCollection(
    const trace::GpuCollection& status) {
  if (!section_.has_header) return;  // no process to attach it to
  Process& p = timeline_->processes[section_.process_index];
  switch (status.state()) {
    case trace::GPU_COLLECTION_FULL:
      p.gpu_collection = GpuCollectionState::kFull;
      break;
    case trace::GPU_COLLECTION_ACTIVITY_ONLY:
      p.gpu_collection = GpuCollectionState::kActivityOnly;
      break;
    case trace::GPU_COLLECTION_OFF:
      p.gpu_collection = GpuCollectionState::kOff;
      break;
    default:
      return;  // a state from a newer writer
  }
  p.gpu_collection_detail = status.detail();
}

void FeedprofTimelineBuilder::AddStrings(
    const trace::InternedStrings& strings) {
  for (const trace::InternedString& s : strings.strings()) {
    const StringId global = timeline_->strings.Intern(s.value());
    const uint32_t id = s.id();
    if (id < kDenseStringIds) {
      if (id >= section_.dense_strings.size()) {
        section_.dense_strings.resize(
            std::max<size_t>(id + 1, section_.dense_strings.size() * 2),
            kUndefined);
      }
      section_.dense_strings[id] = global;
    } else {
      section_.sparse_strings[id] = global;
    }
  }
}

void FeedprofTimelineBuilder::AddCallSites(const trace::CallSites& sites) {
  any_call_sites_ = true;
  for (const trace::CallSite& site : sites.call_sites()) {
    CallSite mapped;
    mapped.python = site.python();
    mapped.frames.reserve(static_cast<size_t>(site.frames_size()));
    for (const trace::Frame& frame : site.frames()) {
      // File and function ids stay file-local until the section ends.
      Frame mapped_frame;
      mapped_frame.function = frame.function_id();
      mapped_frame.line = frame.line();
      mapped_frame.pc = frame.pc();
      if (site.python()) {
        mapped_frame.kind = FrameKind::kPython;
        mapped_frame.file = frame.file_id();
      } else {
        // A native frame's file_id names its module.
        mapped_frame.kind = FrameKind::kNative;
        mapped_frame.module = frame.file_id();
      }
      mapped.frames.push_back(mapped_frame);
    }
    section_.call_sites[site.id()] =
        static_cast<uint32_t>(timeline_->call_sites.size());
    timeline_->call_sites.push_back(std::move(mapped));
  }
  // Path ids stay file-local until the section ends, as the frames' do.
  for (const trace::NativeModule& module : sites.modules()) {
    timeline_->native_modules.push_back(NativeModule{
        module.path_id(), absl::BytesToHexString(module.build_id())});
  }
}

void FeedprofTimelineBuilder::AddStackNodes(const trace::StackNodes& nodes) {
  for (const trace::StackNode& node : nodes.nodes()) {
    if (node.id() == 0) continue;
    section_.stack_nodes[node.id()] = {node.parent_id(), node.file_id(),
                                       node.function_id(), node.line()};
  }
}

void FeedprofTimelineBuilder::AddPythonStackStatus(
    const trace::PythonStackStatus& status) {
  if (!section_.has_header) return;  // no process to attach it to
  PythonStacks& out =
      timeline_->processes[section_.process_index].python_stacks;
  // Said once per process, however often the status is repeated.
  const bool said = out.state == PythonStackState::kUnsupported ||
                    out.state == PythonStackState::kUnreadable;
  switch (status.state()) {
    case trace::PYTHON_STACKS_ON:
      out.state = PythonStackState::kOn;
      break;
    case trace::PYTHON_STACKS_UNSUPPORTED:
      out.state = PythonStackState::kUnsupported;
      break;
    case trace::PYTHON_STACKS_UNREADABLE:
      out.state = PythonStackState::kUnreadable;
      break;
    case trace::PYTHON_STACKS_DISABLED:
      out.state = PythonStackState::kDisabled;
      break;
    default:
      return;  // unknown, or a state from a newer writer
  }
  out.detail = status.detail();
  out.version_hex = status.version_hex();
  if (!said && (out.state == PythonStackState::kUnsupported ||
                out.state == PythonStackState::kUnreadable)) {
    timeline_->warnings.push_back(absl::StrFormat(
        "pid %d: no Python stacks were recorded (%s)", section_.pid,
        out.detail.empty() ? std::string("no reason given") : out.detail));
  }
  out.stacks = status.stacks();
  out.torn = status.torn();
}

void FeedprofTimelineBuilder::AddSectionStackSamples() {
  Timeline& t = *timeline_;
  // Innermost node -> call site index; a node whose chain is broken (a
  // packet lost) or loops gets none.
  std::unordered_map<uint32_t, uint32_t> site_of;
  constexpr size_t kMaxDepth = 4096;
  for (const auto& sample : section_.stack_samples) {
    auto [it, fresh] = site_of.try_emplace(sample.node, 0);
    if (fresh) {
      CallSite site;
      site.python = true;
      uint32_t node = sample.node;
      while (node != 0 && site.frames.size() < kMaxDepth) {
        auto found = section_.stack_nodes.find(node);
        if (found == section_.stack_nodes.end()) {
          site.frames.clear();
          break;
        }
        Frame frame;
        frame.kind = FrameKind::kPython;
        frame.file = found->second.file;  // resolved with the section's ids
        frame.function = found->second.function;
        frame.line = found->second.line;
        site.frames.push_back(frame);
        node = found->second.parent;
      }
      if (node == 0 && !site.frames.empty()) {
        it->second = static_cast<uint32_t>(t.call_sites.size());
        t.call_sites.push_back(std::move(site));
      }
    }
    if (it->second == 0) continue;
    t.stack_samples.push_back(StackSample{sample.ts, section_.pid, sample.tid,
                                          it->second, sample.cpu_ns});
  }
  section_.stack_samples.clear();
}

void FeedprofTimelineBuilder::AddEvents(const trace::EventBatch& batch) {
  Timeline& t = *timeline_;
  const size_t first_op = t.gpu_ops.size();
  DecodeEventBatch(batch, section_.pid,
                   {&t.api_calls, &t.ranges, &t.marks, &t.gpu_ops, &t.syncs,
                    &t.launch_shapes},
                   &section_.times);
  NameCopiesAndMemsets(first_op);
}

void FeedprofTimelineBuilder::AddDecodedEvents(const DecodedEvents& events) {
  Timeline& t = *timeline_;
  const int32_t pid = section_.pid;
  const size_t first_op = t.gpu_ops.size();
  auto append = [pid](auto& from, auto& to) {
    const size_t begin = to.size();
    to.insert(to.end(), from.begin(), from.end());
    for (size_t i = begin; i < to.size(); ++i) to[i].pid = pid;
  };
  append(events.api_calls, t.api_calls);
  append(events.ranges, t.ranges);
  append(events.marks, t.marks);
  append(events.gpu_ops, t.gpu_ops);
  append(events.syncs, t.syncs);
  if (events.launch_shapes.size() > 1) {
    const std::vector<uint32_t> launch =
        t.launch_shapes.InternAll(events.launch_shapes);
    for (size_t i = first_op; i < t.gpu_ops.size(); ++i) {
      t.gpu_ops[i].launch = launch[t.gpu_ops[i].launch];
    }
  }
  section_.times.Merge(events.times);
  NameCopiesAndMemsets(first_op);
  section_.has_packets = true;
}

void FeedprofTimelineBuilder::NameCopiesAndMemsets(size_t first_op) {
  Timeline& t = *timeline_;
  for (size_t i = first_op; i < t.gpu_ops.size(); ++i) {
    GpuOp& op = t.gpu_ops[i];
    if (op.kind == GpuOpKind::kMemcpy) {
      op.name = CopyKindName(op.copy_kind);
    } else if (op.kind == GpuOpKind::kMemset) {
      if (memset_name_ == 0) memset_name_ = t.strings.Intern("Memset");
      op.name = memset_name_;
    }
  }
}

void FeedprofTimelineBuilder::AddHostSamples(
    const trace::HostSampleBatch& batch) {
  Timeline& t = *timeline_;
  const int32_t pid = section_.pid;
  const auto base = static_cast<TimeNs>(batch.base_ts_ns());

  TimeNs previous = base;
  for (const trace::ThreadSample& sample : batch.threads()) {
    previous = AddDelta(previous, sample.ts_delta());
    if (!section_.times.InRange(previous, 0)) continue;
    ThreadSample& out = t.thread_samples.emplace_back();
    out.ts = previous;
    out.user_ns = static_cast<int64_t>(sample.user_ns());
    out.system_ns = static_cast<int64_t>(sample.system_ns());
    out.pid = pid;
    out.tid = static_cast<int32_t>(sample.tid());
    out.state = ToThreadState(sample.state());
    out.io_wait_ns = static_cast<int64_t>(sample.io_wait_ns());
    out.voluntary_switches = sample.voluntary_switches();
    out.involuntary_switches = sample.involuntary_switches();
    if (sample.name_id() != 0) {
      section_.sampled_thread_names[ThreadKey(pid, out.tid)] = sample.name_id();
    }
    // A Python stack stands for the CPU time the thread used since its
    // previous sample.
    const int64_t cpu = out.user_ns + out.system_ns;
    auto [last, first] =
        section_.thread_cpu_ns.try_emplace(ThreadKey(pid, out.tid), cpu);
    if (!first) {
      if (sample.python_stack_id() != 0 && cpu > last->second) {
        section_.stack_samples.push_back(
            {out.ts, out.tid, sample.python_stack_id(), cpu - last->second});
      }
      last->second = cpu;
    }
    section_.times.span.Add(out.ts, out.ts);
  }

  previous = base;
  for (const trace::ProcessSample& sample : batch.process()) {
    previous = AddDelta(previous, sample.ts_delta());
    if (!section_.times.InRange(previous, 0)) continue;
    ProcessSample& out = t.process_samples.emplace_back();
    out.ts = previous;
    out.pid = pid;
    out.read_bytes = sample.read_bytes();
    out.rchar = sample.rchar();
    out.major_faults = sample.major_faults();
    out.minor_faults = sample.minor_faults();
    out.user_ns = static_cast<int64_t>(sample.user_ns());
    out.system_ns = static_cast<int64_t>(sample.system_ns());
    out.write_bytes = sample.write_bytes();
    out.rss_bytes = sample.rss_bytes();
    out.num_threads = sample.num_threads();
    out.wchar = sample.wchar();
    out.syscr = sample.syscr();
    out.syscw = sample.syscw();
    out.profiler_syscr = sample.profiler_syscr();
    out.profiler_rchar = sample.profiler_rchar();
    out.profiler_syscw = sample.profiler_syscw();
    out.profiler_wchar = sample.profiler_wchar();
    section_.times.span.Add(out.ts, out.ts);
  }

  previous = base;
  for (const trace::SystemSample& sample : batch.system()) {
    previous = AddDelta(previous, sample.ts_delta());
    if (!section_.times.InRange(previous, 0)) continue;
    SystemSample& out = t.system_samples.emplace_back();
    out.ts = previous;
    out.pid = pid;
    out.cpu_user_ns = static_cast<int64_t>(sample.cpu_user_ns());
    out.cpu_system_ns = static_cast<int64_t>(sample.cpu_system_ns());
    out.cpu_idle_ns = static_cast<int64_t>(sample.cpu_idle_ns());
    out.cpu_iowait_ns = static_cast<int64_t>(sample.cpu_iowait_ns());
    out.cpu_other_ns =
        static_cast<int64_t>(sample.cpu_nice_ns() + sample.cpu_irq_ns() +
                             sample.cpu_softirq_ns() + sample.cpu_steal_ns());
    out.procs_running = sample.procs_running();
    out.procs_blocked = sample.procs_blocked();
    out.mem_available_bytes = sample.mem_available_bytes();
    out.mem_dirty_bytes = sample.mem_dirty_bytes();
    out.mem_writeback_bytes = sample.mem_writeback_bytes();
    out.load_1m = sample.load_1m();
    section_.times.span.Add(out.ts, out.ts);
  }

  previous = base;
  for (const trace::DiskSample& sample : batch.disks()) {
    previous = AddDelta(previous, sample.ts_delta());
    if (!section_.times.InRange(previous, 0)) continue;
    DiskSample& out = t.disk_samples.emplace_back();
    out.ts = previous;
    out.pid = pid;
    out.device = sample.device_id();  // file-local until the section ends
    out.reads = sample.reads();
    out.read_bytes = sample.read_bytes();
    out.read_ms = sample.read_ms();
    out.writes = sample.writes();
    out.write_bytes = sample.write_bytes();
    out.write_ms = sample.write_ms();
    out.busy_ms = sample.busy_ms();
    out.in_flight = sample.in_flight();
    section_.times.span.Add(out.ts, out.ts);
  }

  previous = base;
  for (const trace::NfsSample& sample : batch.nfs()) {
    previous = AddDelta(previous, sample.ts_delta());
    if (!section_.times.InRange(previous, 0)) continue;
    NfsSample& out = t.nfs_samples.emplace_back();
    out.ts = previous;
    out.pid = pid;
    out.mount_point = sample.mount_point_id();  // file-local, as above
    out.ops = sample.ops();
    out.transmissions = sample.transmissions();
    out.major_timeouts = sample.major_timeouts();
    out.rtt_ms = sample.rtt_ms();
    out.execute_ms = sample.execute_ms();
    out.read_ops = sample.read_ops();
    out.read_bytes = sample.read_bytes();
    out.read_rtt_ms = sample.read_rtt_ms();
    section_.times.span.Add(out.ts, out.ts);
  }
}

void FeedprofTimelineBuilder::AddCounters(const trace::CounterBatch& batch) {
  TimeNs previous = static_cast<TimeNs>(batch.base_ts_ns());
  for (const trace::CounterSample& sample : batch.samples()) {
    previous = AddDelta(previous, sample.ts_delta());
    if (!section_.times.InRange(previous, 0)) continue;
    CounterSample& out = timeline_->counters.emplace_back();
    out.ts = previous;
    out.pid = section_.pid;
    out.device = static_cast<int32_t>(sample.device_id());
    out.name = sample.name_id();  // file-local until the section ends
    out.value = sample.value();
    section_.times.span.Add(out.ts, out.ts);
  }
}

void FeedprofTimelineBuilder::AddDrops(const trace::DropCounts& drops) {
  // Cumulative since the file began: the last one wins.
  section_.drops.events_recorded = drops.events_recorded();
  section_.drops.events_dropped = drops.events_dropped();
  section_.drops.cupti_records_dropped = drops.cupti_records_dropped();
  section_.drops.zero_timestamp_records = drops.zero_timestamp_records();
  section_.drops.cupti_buffers_dropped = drops.cupti_buffers_dropped();
  section_.drops.strings_dropped = drops.strings_dropped();
  section_.drops.samples_dropped = drops.samples_dropped();
  section_.drops.packets_dropped = drops.packets_dropped();
}

void FeedprofTimelineBuilder::AddDevice(const trace::DeviceInfo& info) {
  Timeline& t = *timeline_;
  const uint64_t key =
      ThreadKey(section_.pid, static_cast<int32_t>(info.device_id()));
  auto [it, inserted] = device_index_.try_emplace(key, t.devices.size());
  if (inserted) {
    t.devices.emplace_back();
    section_.devices.push_back(it->second);
  }
  Device& device = t.devices[it->second];
  device.id = static_cast<int32_t>(info.device_id());
  device.pid = section_.pid;
  device.name = info.name();
  device.sm_count = info.sm_count();
  device.pci_bus_id = info.pci_bus_id();
  device.memory_bytes = info.global_memory_bytes();
  if (info.context_id() != 0) {
    section_.context_devices[info.context_id()] = device.id;
  }
}

void FeedprofTimelineBuilder::AddStream(const trace::StreamInfo& info) {
  Timeline& t = *timeline_;
  // One entry per (context, stream) of the section: CUPTI reports a stream
  // again when a late start asks for the streams that already exist.
  const uint64_t key =
      (static_cast<uint64_t>(info.context_id()) << 32) | info.stream_id();
  auto [it, inserted] =
      section_.stream_index.try_emplace(key, t.streams.size());
  if (inserted) t.streams.emplace_back();
  StreamInfo* entry = &t.streams[it->second];
  entry->context = info.context_id();
  entry->stream = info.stream_id();
  entry->priority = info.priority();
  entry->kind = info.kind() >= trace::STREAM_KIND_UNKNOWN &&
                        info.kind() <= trace::STREAM_KIND_PER_THREAD
                    ? static_cast<StreamKind>(info.kind())
                    : StreamKind::kUnknown;
}

void FeedprofTimelineBuilder::ResolveSectionStreams() {
  Timeline& t = *timeline_;
  for (size_t i = section_.streams_begin; i < t.streams.size(); ++i) {
    StreamInfo& s = t.streams[i];
    s.pid = section_.pid;
    auto it = section_.context_devices.find(s.context);
    s.device = it == section_.context_devices.end() ? -1 : it->second;
  }
}

Thread& FeedprofTimelineBuilder::ThreadFor(int32_t pid, int32_t tid) {
  Timeline& t = *timeline_;
  auto [it, inserted] =
      thread_index_.try_emplace(ThreadKey(pid, tid), t.threads.size());
  if (inserted) {
    Thread& thread = t.threads.emplace_back();
    thread.pid = pid;
    thread.tid = tid;
  }
  return t.threads[it->second];
}

void FeedprofTimelineBuilder::AddThread(const trace::ThreadInfo& info) {
  Thread& thread = ThreadFor(section_.pid, static_cast<int32_t>(info.tid()));
  if (!info.name().empty()) {
    thread.name = info.name();
    threads_named_by_packet_.insert(ThreadKey(thread.pid, thread.tid));
  }
  thread.is_main = thread.is_main || info.is_main();
}

void FeedprofTimelineBuilder::AddNvtxCategory(
    const trace::NvtxCategoryName& category) {
  if (category.name_id() == 0) return;  // nothing to show
  // Ids stay file-local until the section ends, like the events'.
  NvtxCategoryName& out = timeline_->nvtx_categories.emplace_back();
  out.pid = section_.pid;
  out.domain = category.domain_id();
  out.category = category.category();
  out.name = category.name_id();
}

void FeedprofTimelineBuilder::AddFooter(const trace::Footer& footer) {
  if (!section_.has_header) return;
  const auto end = static_cast<TimeNs>(footer.end_ns());
  if (!InTimeRange(end)) return;  // damaged: the last event's time ends it
  section_.has_footer = true;
  timeline_->processes[section_.process_index].end = end;
}

StringId FeedprofTimelineBuilder::CopyKindName(CopyKind kind) {
  constexpr size_t kCount = static_cast<size_t>(CopyKind::kPtoP) + 1;
  if (copy_kind_names_.empty()) copy_kind_names_.assign(kCount, kUndefined);
  StringId& name = copy_kind_names_[static_cast<size_t>(kind)];
  if (name == kUndefined) {
    name = timeline_->strings.Intern(timeline::CopyOpName(kind));
  }
  return name;
}

StringId FeedprofTimelineBuilder::ResolveString(uint32_t local_id) {
  if (local_id == 0) return 0;
  if (local_id < section_.dense_strings.size() &&
      section_.dense_strings[local_id] != kUndefined) {
    return section_.dense_strings[local_id];
  }
  if (auto it = section_.sparse_strings.find(local_id);
      it != section_.sparse_strings.end()) {
    return it->second;
  }
  // Never defined (its InternedStrings packet was lost or dropped): keep
  // the events, named so the report shows the gap instead of hiding it.
  ++section_.unknown_string_refs;
  const StringId placeholder = timeline_->strings.Intern(
      absl::StrFormat("<unknown string #%d>", local_id));
  section_.sparse_strings.emplace(local_id, placeholder);
  return placeholder;
}

void FeedprofTimelineBuilder::ResolveSectionIds() {
  Timeline& t = *timeline_;
  for (size_t i = section_.api_calls_begin; i < t.api_calls.size(); ++i) {
    ApiCall& call = t.api_calls[i];
    call.name = ResolveString(call.name);
    if (call.call_site != 0) {
      auto it = section_.call_sites.find(call.call_site);
      call.call_site = it == section_.call_sites.end() ? 0 : it->second;
    }
  }
  for (size_t i = section_.gpu_ops_begin; i < t.gpu_ops.size(); ++i) {
    GpuOp& op = t.gpu_ops[i];
    if (op.kind == GpuOpKind::kKernel) op.name = ResolveString(op.name);
  }
  for (size_t i = section_.ranges_begin; i < t.ranges.size(); ++i) {
    t.ranges[i].name = ResolveString(t.ranges[i].name);
    t.ranges[i].domain = ResolveString(t.ranges[i].domain);
  }
  for (size_t i = section_.marks_begin; i < t.marks.size(); ++i) {
    t.marks[i].name = ResolveString(t.marks[i].name);
    t.marks[i].domain = ResolveString(t.marks[i].domain);
  }
  for (size_t i = section_.counters_begin; i < t.counters.size(); ++i) {
    t.counters[i].name = ResolveString(t.counters[i].name);
  }
  for (size_t i = section_.disk_samples_begin; i < t.disk_samples.size(); ++i) {
    t.disk_samples[i].device = ResolveString(t.disk_samples[i].device);
  }
  for (size_t i = section_.nfs_samples_begin; i < t.nfs_samples.size(); ++i) {
    t.nfs_samples[i].mount_point = ResolveString(t.nfs_samples[i].mount_point);
  }
  for (size_t i = section_.nvtx_categories_begin; i < t.nvtx_categories.size();
       ++i) {
    t.nvtx_categories[i].domain = ResolveString(t.nvtx_categories[i].domain);
    t.nvtx_categories[i].name = ResolveString(t.nvtx_categories[i].name);
  }
  for (size_t i = section_.call_sites_begin; i < t.call_sites.size(); ++i) {
    for (Frame& frame : t.call_sites[i].frames) {
      frame.file = ResolveString(frame.file);
      frame.function = ResolveString(frame.function);
      frame.module = ResolveString(frame.module);
    }
  }
  // A module several processes loaded is kept once.
  const auto modules_begin =
      t.native_modules.begin() +
      static_cast<std::ptrdiff_t>(section_.native_modules_begin);
  for (auto it = modules_begin; it != t.native_modules.end(); ++it) {
    it->path = ResolveString(it->path);
  }
  auto kept = modules_begin;
  for (auto it = modules_begin; it != t.native_modules.end(); ++it) {
    const bool seen = std::any_of(
        t.native_modules.begin(), kept, [&it](const NativeModule& m) {
          return m.path == it->path && m.build_id == it->build_id;
        });
    if (seen) continue;
    if (kept != it) *kept = std::move(*it);
    ++kept;
  }
  t.native_modules.erase(kept, t.native_modules.end());
  for (const auto& [key, local_name] : section_.sampled_thread_names) {
    Thread& thread = ThreadFor(static_cast<int32_t>(key >> 32),
                               static_cast<int32_t>(key & 0xFFFFFFFFu));
    if (thread.name.empty()) {
      thread.name = std::string(t.strings.Get(ResolveString(local_name)));
    }
  }
}

void FeedprofTimelineBuilder::ApplyPcieLinks() {
  Timeline& t = *timeline_;
  for (size_t index : section_.devices) {
    Device& device = t.devices[index];
    if (device.pci_bus_id.empty()) continue;
    const std::string bus_id = NormalizePciBusId(device.pci_bus_id);
    for (const trace::PciDevice& pci : section_.platform.pci_devices()) {
      if (NormalizePciBusId(pci.bus_id()) != bus_id) continue;
      device.pcie_current_gts = pci.current_link_gts();
      device.pcie_max_gts = pci.max_link_gts();
      device.pcie_current_width = pci.current_link_width();
      device.pcie_max_width = pci.max_link_width();
      break;
    }
  }
}

void FeedprofTimelineBuilder::EndSection() {
  Timeline& t = *timeline_;
  if (!section_.has_packets) return;
  AddSectionStackSamples();
  ResolveSectionIds();
  ResolveSectionStreams();
  ApplyPcieLinks();

  if (section_.has_header) {
    Process& process = t.processes[section_.process_index];
    if (process.start == 0 && section_.times.span.any) {
      process.start = section_.times.span.first;
    }
    // Without a footer (killed, still running) the last event ends it.
    if (!section_.has_footer && section_.times.span.any) {
      process.end = section_.times.span.last;
    }
  } else if (section_.times.span.any) {
    t.warnings.push_back(absl::StrFormat(
        "%s: events without a Header packet before them; their process id "
        "is unknown and shown as 0",
        section_.path));
  }
  // A section without a DropCounts packet adds its zeros.
  t.drops.events_recorded += section_.drops.events_recorded;
  t.drops.events_dropped += section_.drops.events_dropped;
  t.drops.cupti_records_dropped += section_.drops.cupti_records_dropped;
  t.drops.zero_timestamp_records += section_.drops.zero_timestamp_records;
  t.drops.cupti_buffers_dropped += section_.drops.cupti_buffers_dropped;
  t.drops.strings_dropped += section_.drops.strings_dropped;
  t.drops.samples_dropped += section_.drops.samples_dropped;
  t.drops.packets_dropped += section_.drops.packets_dropped;
  if (section_.times.out_of_range > 0) {
    t.warnings.push_back(absl::StrFormat(
        "%s: skipped %d events whose times are out of range (before 0 or "
        "beyond 2^62 ns: damaged deltas or durations); the rest was "
        "analysed",
        section_.path, section_.times.out_of_range));
  }
  if (section_.unknown_string_refs > 0) {
    t.warnings.push_back(absl::StrFormat(
        "%s: %d names refer to string ids the file never defines (lost or "
        "dropped strings); they are shown as \"<unknown string #N>\"",
        section_.path, section_.unknown_string_refs));
  }
  section_.has_packets = false;
}

void FeedprofTimelineBuilder::SortEvents(size_t threads) {
  std::vector<size_t> sizes;
  std::vector<std::function<void()>> sorts;
  ForEachEventVector(*timeline_, [&](auto& events, auto key, auto tie) {
    sizes.push_back(events.size());
    sorts.emplace_back([&events, key, tie] {
      common::StableSortByKeys(std::span(events), key, tie);
    });
  });
  common::ParallelForLongestFirst(sizes, threads,
                                  [&sorts](size_t job) { sorts[job](); });
  events_sorted_ = true;
}

void FeedprofTimelineBuilder::Finish(size_t threads) {
  Timeline& t = *timeline_;
  if (!parts_.empty()) {
    // The parts' events go into the timeline vector by vector, side by
    // side; each job touches its own vector of every part.
    // A big vector's merge also runs on its share of the threads.
    std::vector<size_t> sizes;
    std::vector<std::function<void(unsigned)>> jobs;
    ForEachEventVector(t, [&](auto& events, auto key, auto tie) {
      using Event = typename std::decay_t<decltype(events)>::value_type;
      sizes.push_back(events.size() + timeline::PartEventCount<Event>(parts_));
      jobs.emplace_back([this, &events, key, tie](unsigned merge_threads) {
        if (!runs_sorted_) {
          timeline::AppendPartEvents(parts_, &events);
          return;
        }
        timeline::MergePartEvents(
            parts_, &events,
            [&](const Event& a, const Event& b) {
              return key(a) != key(b) ? key(a) < key(b) : tie(a) < tie(b);
            },
            merge_threads);
      });
    });
    common::ParallelForLongestFirstSharing(
        sizes, threads,
        [&jobs](size_t job, unsigned share) { jobs[job](share); });
    parts_.clear();
  }
  // Merged parts are sorted already (this only checks that); appended
  // ones are sorted here.
  SortEvents(threads);

  Availability& a = t.available;
  a.api_calls = !t.api_calls.empty();
  a.correlation =
      std::any_of(t.api_calls.begin(), t.api_calls.end(),
                  [](const ApiCall& c) { return c.correlation != 0; }) ||
      std::any_of(t.gpu_ops.begin(), t.gpu_ops.end(),
                  [](const GpuOp& op) { return op.correlation != 0; });
  // Sync records come with CUPTI activity collection: with GPU work
  // recorded and no sync record, there simply was none.
  a.sync_records = !t.syncs.empty() || !t.gpu_ops.empty();
  a.host_samples = !t.thread_samples.empty();
  a.system_samples = !t.system_samples.empty();
  // rchar counts every read system call (the loader's included): 0 in
  // every sample means /proc/PID/io could not be read.
  a.process_io =
      std::any_of(t.process_samples.begin(), t.process_samples.end(),
                  [](const ProcessSample& s) { return s.rchar > 0; });
  a.call_sites = any_call_sites_;
  a.gpu_counters = !t.counters.empty();
  // feedprof always records NVTX: no range means the program emitted none.
  a.ranges = any_header_;
}

}  // namespace feedprof::fpt
