#include "tests/testing/trace_test_files.h"

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace feedprof::testing {
namespace {

void AppendVarint(uint64_t value, std::string* out) {
  while (value >= 0x80) {
    out->push_back(static_cast<char>((value & 0x7F) | 0x80));
    value >>= 7;
  }
  out->push_back(static_cast<char>(value));
}

}  // namespace

std::string FramePacket(const trace::Packet& packet) {
  const std::string bytes = packet.SerializeAsString();
  std::string framed = "\x0A";
  AppendVarint(bytes.size(), &framed);
  framed += bytes;
  return framed;
}

std::string FramePackets(const std::vector<trace::Packet>& packets) {
  std::string out;
  for (const trace::Packet& packet : packets) out += FramePacket(packet);
  return out;
}

trace::Packet StringsPacket(
    const std::vector<std::pair<uint32_t, std::string>>& strings) {
  trace::Packet packet;
  for (const auto& [id, value] : strings) {
    trace::InternedString* s = packet.mutable_strings()->add_strings();
    s->set_id(id);
    s->set_value(value);
  }
  return packet;
}

void WriteFile(const std::string& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error("cannot write " + path);
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

TempDir::TempDir() {
  std::string pattern =
      (std::filesystem::temp_directory_path() / "feedprof-reader-XXXXXX")
          .string();
  if (mkdtemp(pattern.data()) == nullptr) {
    throw std::runtime_error("mkdtemp failed");
  }
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

std::string TempDir::File(std::string_view name) const {
  return path_ + "/" + std::string(name);
}

std::vector<trace::Packet> FullTracePackets() {
  std::vector<trace::Packet> packets;

  trace::Packet header_packet;
  trace::Header& h = *header_packet.mutable_header();
  h.set_format_version(1);
  h.set_feedprof_version("0.1.0");
  h.set_pid(4242);
  h.set_ppid(1);
  h.set_hostname("gpu-node-7");
  h.set_executable("/usr/bin/python3");
  for (const char* arg : {"python3", "train.py", "--epochs", "1"}) {
    h.add_argv(arg);
  }
  h.set_rank(3);
  h.set_local_rank(1);
  h.set_world_size(8);
  h.mutable_clock()->set_monotonic_ns(1'000'000);
  h.mutable_clock()->set_realtime_ns(1'700'000'000'000'000'000);
  trace::Platform& platform = *h.mutable_platform();
  platform.set_cpu_model("Test Xeon 8480");
  platform.set_logical_cpus(64);
  platform.set_online_cpus(64);
  platform.set_frequency_governor("performance");
  for (uint32_t node = 0; node < 2; ++node) {
    trace::NumaNode* n = platform.add_numa_nodes();
    n->set_id(node);
    n->set_cpus(node == 0 ? "0-31" : "32-63");
  }
  platform.set_cgroup_cpu_limit(12.5);
  platform.set_memory_total_bytes(uint64_t{512} << 30);
  trace::PciDevice* gpu_pci = platform.add_pci_devices();
  gpu_pci->set_bus_id("0000:af:00.0");
  gpu_pci->set_current_link_gts(2.5);
  gpu_pci->set_max_link_gts(2.5);
  gpu_pci->set_current_link_width(1);
  gpu_pci->set_max_link_width(1);
  gpu_pci = platform.add_pci_devices();
  gpu_pci->set_bus_id("0000:3b:00.0");
  gpu_pci->set_vendor_id(0x10de);
  gpu_pci->set_current_link_gts(16.0);
  gpu_pci->set_max_link_gts(32.0);
  gpu_pci->set_current_link_width(8);
  gpu_pci->set_max_link_width(16);
  trace::KeyValue* env = h.add_environment();
  env->set_key("FEEDPROF_SAMPLING_HZ");
  env->set_value("100");
  h.set_origin("start");
  h.set_sampling_interval_ns(10'000'000);
  packets.push_back(header_packet);

  packets.push_back(StringsPacket({{1, "cudaLaunchKernel"},
                                   {2, "volta_sgemm"},
                                   {3, "forward"},
                                   {4, "my.domain"},
                                   {5, "checkpoint"},
                                   {6, "sm_util_pct"},
                                   {7, "train.py"},
                                   {8, "step"},
                                   {9, "loader-0"},
                                   {10, "cudaMemcpyAsync"},
                                   {11, "data-loading"}}));

  trace::Packet call_sites;
  trace::CallSite* site = call_sites.mutable_call_sites()->add_call_sites();
  site->set_id(5);
  site->set_python(true);
  trace::Frame* frame = site->add_frames();
  frame->set_file_id(7);
  frame->set_line(42);
  frame->set_function_id(8);
  frame = site->add_frames();
  frame->set_file_id(7);
  frame->set_line(7);
  frame->set_pc(0xdeadbeef);
  packets.push_back(call_sites);

  trace::Packet device;
  device.mutable_device()->set_device_id(0);
  device.mutable_device()->set_name("NVIDIA H100");
  device.mutable_device()->set_sm_count(132);
  device.mutable_device()->set_pci_bus_id("00000000:3B:00.0");
  device.mutable_device()->set_global_memory_bytes(uint64_t{80} << 30);
  packets.push_back(device);

  trace::Packet thread;
  thread.mutable_thread()->set_tid(4243);
  thread.mutable_thread()->set_name("pt_data_worker");
  packets.push_back(thread);
  thread.mutable_thread()->set_tid(4242);
  thread.mutable_thread()->set_name("python3");
  thread.mutable_thread()->set_is_main(true);
  packets.push_back(thread);
  // A later ThreadInfo without a name (an older writer, a thread gone before
  // it was read) keeps the name above.
  thread.mutable_thread()->set_tid(4243);
  thread.mutable_thread()->clear_name();
  thread.mutable_thread()->set_is_main(false);
  packets.push_back(thread);

  // NVTX category names: 2 in "my.domain", 7 in the default domain.
  trace::Packet category;
  category.mutable_nvtx_category()->set_domain_id(4);
  category.mutable_nvtx_category()->set_category(2);
  category.mutable_nvtx_category()->set_name_id(11);
  packets.push_back(category);
  category.mutable_nvtx_category()->set_domain_id(0);
  category.mutable_nvtx_category()->set_category(7);
  category.mutable_nvtx_category()->set_name_id(3);
  packets.push_back(category);

  // Host events of thread 4242; starts 2'000'100, 2'000'400, 2'000'350.
  trace::Packet host;
  trace::EventBatch& hb = *host.mutable_events();
  hb.set_tid(4242);
  hb.set_base_ts_ns(2'000'000);
  // Correlations 11, 12, 13: the recorder's way (a base and deltas) for the
  // first two, an absolute id (older files, CUPTI records) for the third.
  hb.set_base_correlation_id(11);
  trace::ApiCall* call = hb.add_api_calls();
  call->set_start_delta(100);
  call->set_duration_ns(50);
  call->set_name_id(1);
  call->set_call_site_id(5);
  call->set_domain(trace::API_DOMAIN_RUNTIME);
  call->set_callback_id(211);
  call = hb.add_api_calls();
  call->set_start_delta(300);
  call->set_duration_ns(20);
  call->set_name_id(10);
  call->set_correlation_delta(1);
  call->set_domain(trace::API_DOMAIN_RUNTIME);
  call->set_bytes(1 << 20);
  call = hb.add_api_calls();
  call->set_start_delta(-50);
  call->set_duration_ns(5);
  call->set_name_id(1);
  call->set_correlation_id(13);
  call->set_correlation_delta(-7);  // ignored beside an absolute id
  call->set_domain(trace::API_DOMAIN_DRIVER);
  // Ranges: 1'999'000 + 5000, 1'999'010 + 100.
  trace::NvtxRange* range = hb.add_ranges();
  range->set_start_delta(-1000);
  range->set_duration_ns(5000);
  range->set_name_id(3);
  range->set_domain_id(4);
  range->set_depth(0);
  range = hb.add_ranges();
  range->set_start_delta(10);
  range->set_duration_ns(100);
  range->set_name_id(8);
  range->set_depth(1);
  trace::NvtxMark* mark = hb.add_marks();
  mark->set_ts_delta(7);
  mark->set_name_id(5);
  mark->set_domain_id(4);
  packets.push_back(host);

  // GPU activity: kernels 3'000'000+500 and 3'000'600+400, copy 3'002'000,
  // memset 3'005'000, sync 3'007'000.
  trace::Packet gpu;
  trace::EventBatch& gb = *gpu.mutable_events();
  gb.set_tid(0);
  gb.set_base_ts_ns(3'000'000);
  trace::Kernel* kernel = gb.add_kernels();
  kernel->set_start_delta(0);
  kernel->set_duration_ns(500);
  kernel->set_name_id(2);
  kernel->set_device_id(0);
  kernel->set_stream_id(7);
  kernel->set_correlation_id(11);
  kernel->set_grid_x(80);
  kernel->set_grid_y(2);
  kernel->set_grid_z(1);
  kernel->set_block_x(256);
  kernel->set_block_y(1);
  kernel->set_block_z(1);
  kernel->set_graph_id(3);
  kernel = gb.add_kernels();
  kernel->set_start_delta(600);
  kernel->set_duration_ns(400);
  kernel->set_name_id(2);
  kernel->set_stream_id(7);
  kernel->set_correlation_id(13);
  trace::Memcpy* copy = gb.add_memcpys();
  copy->set_start_delta(2000);
  copy->set_duration_ns(250);
  copy->set_stream_id(7);
  copy->set_correlation_id(12);
  copy->set_bytes(1 << 20);
  copy->set_copy_kind(trace::COPY_KIND_HTOD);
  copy->set_src_kind(trace::MEMORY_KIND_PAGEABLE);
  copy->set_dst_kind(trace::MEMORY_KIND_DEVICE);
  copy->set_async(true);
  trace::Memset* set = gb.add_memsets();
  set->set_start_delta(5000);
  set->set_duration_ns(30);
  set->set_stream_id(8);
  set->set_correlation_id(14);
  set->set_bytes(4096);
  set->set_memory_kind(trace::MEMORY_KIND_DEVICE);
  set->set_async(true);
  trace::SyncRecord* sync = gb.add_syncs();
  sync->set_start_delta(7000);
  sync->set_duration_ns(300);
  sync->set_type(trace::SYNC_TYPE_STREAM_SYNCHRONIZE);
  sync->set_stream_id(0xFFFFFFFFu);
  sync->set_correlation_id(15);
  trace::OverheadRecord* overhead = gb.add_overheads();
  overhead->set_start_delta(1);
  overhead->set_duration_ns(2);
  overhead->set_kind(1);
  trace::MemoryRecord* memory = gb.add_memory();
  memory->set_ts_delta(3);
  memory->set_bytes(64);
  trace::ExternalCorrelation* external = gb.add_external_correlations();
  external->set_kind(1);
  external->set_external_id(99);
  external->set_correlation_id(11);
  packets.push_back(gpu);

  // Samples: threads at 4'000'000, 4'000'000, 14'000'000; process at
  // 4'000'005; system at 3'999'995.
  trace::Packet samples;
  trace::HostSampleBatch& sb = *samples.mutable_host_samples();
  sb.set_base_ts_ns(4'000'000);
  trace::ThreadSample* ts = sb.add_threads();
  ts->set_tid(4242);
  ts->set_user_ns(1000);
  ts->set_system_ns(500);
  ts->set_state(trace::THREAD_STATE_RUNNING);
  ts = sb.add_threads();
  ts->set_tid(4243);
  ts->set_user_ns(2000);
  ts->set_system_ns(100);
  ts->set_state(trace::THREAD_STATE_DISK_WAIT);
  ts->set_name_id(9);
  ts->set_io_wait_ns(777);
  ts->set_voluntary_switches(5);
  ts->set_involuntary_switches(6);
  ts = sb.add_threads();
  ts->set_ts_delta(10'000'000);
  ts->set_tid(4242);
  ts->set_user_ns(3000);
  ts->set_system_ns(600);
  ts->set_state(trace::THREAD_STATE_SLEEPING);
  trace::ProcessSample* ps = sb.add_process();
  ps->set_ts_delta(5);
  ps->set_read_bytes(1000);
  ps->set_write_bytes(2000);
  ps->set_rchar(3000);
  ps->set_wchar(4000);
  ps->set_minor_faults(10);
  ps->set_major_faults(2);
  ps->set_rss_bytes(uint64_t{1} << 30);
  ps->set_num_threads(12);
  ps->set_user_ns(5000);
  ps->set_system_ns(6000);
  trace::SystemSample* ss = sb.add_system();
  ss->set_ts_delta(-5);
  ss->set_cpu_user_ns(100);
  ss->set_cpu_nice_ns(1);
  ss->set_cpu_system_ns(200);
  ss->set_cpu_idle_ns(300);
  ss->set_cpu_iowait_ns(40);
  ss->set_cpu_irq_ns(2);
  ss->set_cpu_softirq_ns(3);
  ss->set_cpu_steal_ns(4);
  ss->set_procs_running(3);
  ss->set_procs_blocked(1);
  ss->set_mem_available_bytes(uint64_t{1} << 33);
  ss->set_mem_dirty_bytes(4096);
  ss->set_mem_writeback_bytes(8192);
  ss->set_load_1m(1.5);
  packets.push_back(samples);

  // Counters at 5'000'001 and 5'000'003.
  trace::Packet counters;
  counters.mutable_counters()->set_base_ts_ns(5'000'000);
  trace::CounterSample* cs = counters.mutable_counters()->add_samples();
  cs->set_ts_delta(1);
  cs->set_name_id(6);
  cs->set_value(87.5);
  cs = counters.mutable_counters()->add_samples();
  cs->set_ts_delta(2);
  cs->set_name_id(6);
  cs->set_value(90.0);
  packets.push_back(counters);

  trace::Packet drops;
  drops.mutable_drops()->set_events_dropped(1);
  packets.push_back(drops);
  drops.mutable_drops()->set_events_recorded(100);
  drops.mutable_drops()->set_events_dropped(3);
  drops.mutable_drops()->set_cupti_records_dropped(2);
  drops.mutable_drops()->set_zero_timestamp_records(1);
  drops.mutable_drops()->set_cupti_buffers_dropped(4);
  drops.mutable_drops()->set_strings_dropped(5);
  drops.mutable_drops()->set_samples_dropped(6);
  drops.mutable_drops()->set_packets_dropped(7);
  drops.mutable_drops()->set_bytes_written(999);
  packets.push_back(drops);

  trace::Packet clock;
  clock.mutable_clock()->set_monotonic_ns(15'000'000);
  clock.mutable_clock()->set_realtime_ns(1'700'000'000'014'000'000);
  packets.push_back(clock);

  trace::Packet footer;
  footer.mutable_footer()->set_end_ns(20'000'000);
  footer.mutable_footer()->set_reason("exit");
  packets.push_back(footer);
  return packets;
}

std::vector<trace::Packet> SmallProcessPackets(uint32_t pid, int32_t rank,
                                               const std::string& kernel_name,
                                               uint64_t start_ns,
                                               uint64_t events_dropped) {
  std::vector<trace::Packet> packets;
  trace::Packet header;
  header.mutable_header()->set_format_version(1);
  header.mutable_header()->set_pid(pid);
  header.mutable_header()->set_rank(rank);
  header.mutable_header()->set_hostname("node");
  header.mutable_header()->mutable_clock()->set_monotonic_ns(start_ns - 10);
  packets.push_back(header);
  packets.push_back(StringsPacket({{1, kernel_name}, {2, "cudaLaunchKernel"}}));

  trace::Packet host;
  host.mutable_events()->set_tid(pid);
  host.mutable_events()->set_base_ts_ns(start_ns - 5);
  trace::ApiCall* call = host.mutable_events()->add_api_calls();
  call->set_duration_ns(3);
  call->set_name_id(2);
  call->set_correlation_id(1);
  packets.push_back(host);

  trace::Packet gpu;
  gpu.mutable_events()->set_base_ts_ns(start_ns);
  trace::Kernel* kernel = gpu.mutable_events()->add_kernels();
  kernel->set_duration_ns(100);
  kernel->set_name_id(1);
  kernel->set_correlation_id(1);
  packets.push_back(gpu);

  trace::Packet drops;
  drops.mutable_drops()->set_events_dropped(events_dropped);
  packets.push_back(drops);
  return packets;
}

}  // namespace feedprof::testing
