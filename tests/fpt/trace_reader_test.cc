// ReadFeedprofTrace: every packet kind mapped field by field, delta
// decoding, id remapping, session directories and concatenated files.
#include "feedprof/trace_reader.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "google/protobuf/stubs/logging.h"
#include "tests/testing/trace_test_files.h"

namespace feedprof {
namespace {

using testing::FramePacket;
using testing::FramePackets;
using testing::TempDir;
using testing::WriteFile;

bool HasWarningContaining(const Timeline& t, std::string_view text) {
  return std::any_of(
      t.warnings.begin(), t.warnings.end(),
      [&](const std::string& w) { return w.find(text) != std::string::npos; });
}

std::string Name(const Timeline& t, StringId id) {
  return std::string(t.strings.Get(id));
}

class FullTraceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = dir_.File("proc.fpt");
    WriteFile(path_, FramePackets(testing::FullTracePackets()));
    absl::StatusOr<Timeline> read = ReadFeedprofTrace(path_);
    ASSERT_TRUE(read.ok()) << read.status();
    t_ = std::move(*read);
  }

  TempDir dir_;
  std::string path_;
  Timeline t_;
};

TEST_F(FullTraceTest, ReadsCleanFileWithoutWarnings) {
  EXPECT_EQ(t_.format, SourceFormat::kFeedprof);
  EXPECT_EQ(t_.source_path, path_);
  EXPECT_TRUE(t_.warnings.empty()) << t_.warnings.front();
}

TEST_F(FullTraceTest, MapsHeaderToProcessAndPlatform) {
  ASSERT_EQ(t_.processes.size(), 1u);
  const Process& p = t_.processes[0];
  EXPECT_EQ(p.pid, 4242);
  EXPECT_EQ(p.ppid, 1);
  EXPECT_EQ(p.rank, 3);
  EXPECT_EQ(p.local_rank, 1);
  EXPECT_EQ(p.world_size, 8);
  EXPECT_EQ(p.hostname, "gpu-node-7");
  EXPECT_EQ(p.command, "python3 train.py --epochs 1");
  EXPECT_EQ(p.origin, "start");
  EXPECT_EQ(p.start, 1'000'000);
  EXPECT_EQ(p.end, 20'000'000);  // the footer
  EXPECT_EQ(p.trace_path, path_);

  EXPECT_EQ(t_.platform.cpu_model, "Test Xeon 8480");
  EXPECT_EQ(t_.platform.logical_cpus, 64u);
  EXPECT_EQ(t_.platform.frequency_governor, "performance");
  EXPECT_DOUBLE_EQ(t_.platform.cgroup_cpu_limit, 12.5);
  EXPECT_EQ(t_.platform.memory_total_bytes, uint64_t{512} << 30);
  EXPECT_EQ(t_.platform.numa_nodes, 2u);
}

TEST_F(FullTraceTest, MatchesDeviceToItsPcieLinkByBusId) {
  ASSERT_EQ(t_.devices.size(), 1u);
  const Device& d = t_.devices[0];
  EXPECT_EQ(d.id, 0);
  EXPECT_EQ(d.pid, 4242);
  EXPECT_EQ(d.name, "NVIDIA H100");
  EXPECT_EQ(d.sm_count, 132u);
  EXPECT_EQ(d.memory_bytes, uint64_t{80} << 30);
  // "00000000:3B:00.0" from CUDA is sysfs' "0000:3b:00.0".
  EXPECT_DOUBLE_EQ(d.pcie_current_gts, 16.0);
  EXPECT_DOUBLE_EQ(d.pcie_max_gts, 32.0);
  EXPECT_EQ(d.pcie_current_width, 8u);
  EXPECT_EQ(d.pcie_max_width, 16u);
}

TEST_F(FullTraceTest, MapsThreads) {
  ASSERT_EQ(t_.threads.size(), 2u);
  const auto find = [&](int32_t tid) {
    return *std::find_if(t_.threads.begin(), t_.threads.end(),
                         [&](const Thread& th) { return th.tid == tid; });
  };
  EXPECT_EQ(find(4243).name, "pt_data_worker");  // ThreadInfo beats samples
  EXPECT_FALSE(find(4243).is_main);
  EXPECT_EQ(find(4242).name, "python3");
  EXPECT_TRUE(find(4242).is_main);
  EXPECT_EQ(find(4242).pid, 4242);
}

TEST_F(FullTraceTest, DecodesApiCallsSortedByStart) {
  ASSERT_EQ(t_.api_calls.size(), 3u);
  const ApiCall& a = t_.api_calls[0];
  EXPECT_EQ(a.start, 2'000'100);
  EXPECT_EQ(a.end, 2'000'150);
  EXPECT_EQ(Name(t_, a.name), "cudaLaunchKernel");
  EXPECT_EQ(a.correlation, 11u);
  EXPECT_EQ(a.domain, ApiDomain::kRuntime);
  EXPECT_EQ(a.pid, 4242);
  EXPECT_EQ(a.tid, 4242);
  // Third in the batch, relative to the second: 2'000'400 - 50.
  const ApiCall& b = t_.api_calls[1];
  EXPECT_EQ(b.start, 2'000'350);
  EXPECT_EQ(b.end, 2'000'355);
  EXPECT_EQ(b.correlation, 13u);
  EXPECT_EQ(b.domain, ApiDomain::kDriver);
  EXPECT_EQ(b.call_site, 0u);
  const ApiCall& c = t_.api_calls[2];
  EXPECT_EQ(c.start, 2'000'400);
  EXPECT_EQ(c.end, 2'000'420);
  EXPECT_EQ(Name(t_, c.name), "cudaMemcpyAsync");
  EXPECT_EQ(c.bytes, uint64_t{1} << 20);
  // Base 11 plus a delta of 1.
  EXPECT_EQ(c.correlation, 12u);
}

// A call's size is kept in 56 bits: any real size as it is, a larger
// (damaged) one at ApiCall::kMaxBytes, never wrapped to a small one.
TEST(ApiCallBytesTest, SizesBeyond56BitsStopAtTheMaximum) {
  for (const uint64_t written :
       {uint64_t{1} << 40, ApiCall::kMaxBytes, ApiCall::kMaxBytes + 1,
        uint64_t{1} << 60, UINT64_MAX}) {
    std::vector<trace::Packet> packets = testing::FullTracePackets();
    bool changed = false;
    for (trace::Packet& packet : packets) {
      if (!packet.has_events()) continue;
      for (trace::ApiCall& call :
           *packet.mutable_events()->mutable_api_calls()) {
        if (call.bytes() == (1u << 20)) {
          call.set_bytes(written);
          changed = true;
        }
      }
    }
    ASSERT_TRUE(changed);
    TempDir dir;
    const std::string path = dir.File("proc.fpt");
    WriteFile(path, FramePackets(packets));
    absl::StatusOr<Timeline> read = ReadFeedprofTrace(path);
    ASSERT_TRUE(read.ok()) << read.status();
    ASSERT_EQ(read->api_calls.size(), 3u);
    const ApiCall& c = read->api_calls[2];
    EXPECT_EQ(c.bytes, std::min(written, ApiCall::kMaxBytes)) << written;
    // The word it shares is the domain's, which keeps its value.
    EXPECT_EQ(c.domain, ApiDomain::kRuntime) << written;
  }
  EXPECT_EQ(ApiCall::kMaxBytes, (uint64_t{1} << 56) - 1);
  EXPECT_EQ(sizeof(ApiCall), 48u);
}

TEST_F(FullTraceTest, RemapsCallSitesAndTheirFrames) {
  const ApiCall& a = t_.api_calls[0];
  ASSERT_NE(a.call_site, 0u);
  ASSERT_LT(a.call_site, t_.call_sites.size());
  const CallSite& site = t_.call_sites[a.call_site];
  EXPECT_TRUE(site.python);
  ASSERT_EQ(site.frames.size(), 2u);
  EXPECT_EQ(Name(t_, site.frames[0].file), "train.py");
  EXPECT_EQ(site.frames[0].line, 42u);
  EXPECT_EQ(Name(t_, site.frames[0].function), "step");
  EXPECT_EQ(site.frames[1].line, 7u);
  EXPECT_EQ(site.frames[1].function, 0u);
  EXPECT_EQ(site.frames[1].pc, 0xdeadbeefu);
}

TEST_F(FullTraceTest, DecodesRangesAndMarks) {
  ASSERT_EQ(t_.ranges.size(), 2u);
  EXPECT_EQ(t_.ranges[0].start, 1'999'000);  // negative delta from the base
  EXPECT_EQ(t_.ranges[0].end, 2'004'000);
  EXPECT_EQ(Name(t_, t_.ranges[0].name), "forward");
  EXPECT_EQ(Name(t_, t_.ranges[0].domain), "my.domain");
  EXPECT_EQ(t_.ranges[0].depth, 0u);
  EXPECT_EQ(t_.ranges[0].source, RangeSource::kNvtx);
  EXPECT_EQ(t_.ranges[0].tid, 4242);
  EXPECT_EQ(t_.ranges[1].start, 1'999'010);
  EXPECT_EQ(t_.ranges[1].end, 1'999'110);
  EXPECT_EQ(Name(t_, t_.ranges[1].name), "step");
  EXPECT_EQ(t_.ranges[1].domain, 0u);
  EXPECT_EQ(t_.ranges[1].depth, 1u);

  ASSERT_EQ(t_.marks.size(), 1u);
  EXPECT_EQ(t_.marks[0].ts, 2'000'007);
  EXPECT_EQ(Name(t_, t_.marks[0].name), "checkpoint");
  EXPECT_EQ(Name(t_, t_.marks[0].domain), "my.domain");
  EXPECT_EQ(t_.marks[0].pid, 4242);
}

TEST_F(FullTraceTest, DecodesGpuOps) {
  ASSERT_EQ(t_.gpu_ops.size(), 4u);
  const GpuOp& k0 = t_.gpu_ops[0];
  EXPECT_EQ(k0.kind, GpuOpKind::kKernel);
  EXPECT_EQ(k0.start, 3'000'000);
  EXPECT_EQ(k0.end, 3'000'500);
  EXPECT_EQ(Name(t_, k0.name), "volta_sgemm");
  EXPECT_EQ(k0.stream, 7);
  EXPECT_EQ(k0.device, 0);
  EXPECT_EQ(k0.pid, 4242);
  EXPECT_EQ(k0.correlation, 11u);
  const LaunchShape& shape = t_.LaunchOf(k0);
  EXPECT_EQ(shape.grid[0], 80u);
  EXPECT_EQ(shape.grid[1], 2u);
  EXPECT_EQ(shape.grid[2], 1u);
  EXPECT_EQ(shape.block[0], 256u);
  EXPECT_EQ(shape.graph_id, 3u);
  const GpuOp& k1 = t_.gpu_ops[1];
  EXPECT_EQ(k1.start, 3'000'600);
  EXPECT_EQ(k1.end, 3'001'000);
  EXPECT_EQ(k1.correlation, 13u);

  const GpuOp& copy = t_.gpu_ops[2];
  EXPECT_EQ(copy.kind, GpuOpKind::kMemcpy);
  EXPECT_EQ(copy.start, 3'002'000);
  EXPECT_EQ(copy.end, 3'002'250);
  EXPECT_EQ(Name(t_, copy.name), "Memcpy HtoD");
  EXPECT_EQ(copy.bytes, uint64_t{1} << 20);
  EXPECT_EQ(copy.copy_kind, CopyKind::kHtoD);
  EXPECT_EQ(copy.src_kind, MemoryKind::kPageable);
  EXPECT_EQ(copy.dst_kind, MemoryKind::kDevice);
  EXPECT_TRUE(copy.async);
  EXPECT_EQ(copy.correlation, 12u);

  const GpuOp& set = t_.gpu_ops[3];
  EXPECT_EQ(set.kind, GpuOpKind::kMemset);
  EXPECT_EQ(set.start, 3'005'000);
  EXPECT_EQ(set.end, 3'005'030);
  EXPECT_EQ(Name(t_, set.name), "Memset");
  EXPECT_EQ(set.bytes, 4096u);
  EXPECT_EQ(set.stream, 8);
  EXPECT_EQ(set.dst_kind, MemoryKind::kDevice);
}

TEST_F(FullTraceTest, DecodesSyncRecords) {
  ASSERT_EQ(t_.syncs.size(), 1u);
  const SyncRecord& s = t_.syncs[0];
  EXPECT_EQ(s.start, 3'007'000);
  EXPECT_EQ(s.end, 3'007'300);
  EXPECT_EQ(s.type, SyncType::kStreamSynchronize);
  EXPECT_EQ(s.stream, -1);  // 0xFFFFFFFF: not applicable
  EXPECT_EQ(s.correlation, 15u);
  EXPECT_EQ(s.pid, 4242);
}

TEST_F(FullTraceTest, DecodesHostSamples) {
  ASSERT_EQ(t_.thread_samples.size(), 3u);
  const ThreadSample& worker = t_.thread_samples[1];
  EXPECT_EQ(worker.ts, 4'000'000);  // delta 0 from the previous sample
  EXPECT_EQ(worker.tid, 4243);
  EXPECT_EQ(worker.user_ns, 2000);
  EXPECT_EQ(worker.system_ns, 100);
  EXPECT_EQ(worker.state, ThreadState::kDiskWait);
  EXPECT_EQ(worker.io_wait_ns, 777);
  EXPECT_EQ(worker.voluntary_switches, 5u);
  EXPECT_EQ(worker.involuntary_switches, 6u);
  const ThreadSample& last = t_.thread_samples[2];
  EXPECT_EQ(last.ts, 14'000'000);
  EXPECT_EQ(last.tid, 4242);
  EXPECT_EQ(last.user_ns, 3000);
  EXPECT_EQ(last.state, ThreadState::kSleeping);

  ASSERT_EQ(t_.process_samples.size(), 1u);
  const ProcessSample& p = t_.process_samples[0];
  EXPECT_EQ(p.ts, 4'000'005);
  EXPECT_EQ(p.pid, 4242);
  EXPECT_EQ(p.read_bytes, 1000u);
  EXPECT_EQ(p.write_bytes, 2000u);
  EXPECT_EQ(p.rchar, 3000u);
  EXPECT_EQ(p.wchar, 4000u);
  EXPECT_EQ(p.syscr, 0u);  // not written: absent reads as 0
  EXPECT_EQ(p.minor_faults, 10u);
  EXPECT_EQ(p.major_faults, 2u);
  EXPECT_EQ(p.rss_bytes, uint64_t{1} << 30);
  EXPECT_EQ(p.num_threads, 12u);
  EXPECT_EQ(p.user_ns, 5000);
  EXPECT_EQ(p.system_ns, 6000);

  ASSERT_EQ(t_.system_samples.size(), 1u);
  const SystemSample& s = t_.system_samples[0];
  EXPECT_EQ(s.ts, 3'999'995);
  EXPECT_EQ(s.cpu_user_ns, 100);
  EXPECT_EQ(s.cpu_system_ns, 200);
  EXPECT_EQ(s.cpu_idle_ns, 300);
  EXPECT_EQ(s.cpu_iowait_ns, 40);
  EXPECT_EQ(s.cpu_other_ns, 1 + 2 + 3 + 4);  // nice, irq, softirq, steal
  EXPECT_EQ(s.procs_running, 3u);
  EXPECT_EQ(s.procs_blocked, 1u);
  EXPECT_EQ(s.mem_available_bytes, uint64_t{1} << 33);
  EXPECT_EQ(s.mem_dirty_bytes, 4096u);
  EXPECT_EQ(s.mem_writeback_bytes, 8192u);
  EXPECT_DOUBLE_EQ(s.load_1m, 1.5);
}

TEST(TraceReader, NvmlStaticFactsReachThePlatform) {
  TempDir dir;
  std::vector<trace::Packet> packets = testing::FullTracePackets();
  trace::Packet facts;
  facts.mutable_nvml_facts()->set_ts_ns(4'000'000);
  trace::NvmlDevice* d = facts.mutable_nvml_facts()->add_devices();
  d->set_device_id(2);
  d->set_pci_bus_id("00000000:3B:00.0");
  d->set_name("NVIDIA A100-SXM4-80GB");
  d->set_power_limit_mw(300000);
  d->set_power_default_limit_mw(400000);
  d->set_power_enforced_limit_mw(250000);
  d->set_max_sm_clock_mhz(1410);
  d->set_max_mem_clock_mhz(1593);
  d->set_slowdown_temperature_c(0);  // reported as 0: still a reading
  d->set_persistence_mode(trace::NVML_STATE_DISABLED);
  d->set_ecc_mode(trace::NVML_STATE_ENABLED);
  d->set_ecc_volatile_uncorrected(2);
  d->set_ecc_aggregate_corrected(17);
  d->set_row_remap_pending(trace::NVML_STATE_ENABLED);
  // A second device of which NVML said nothing but its bus id.
  facts.mutable_nvml_facts()->add_devices()->set_pci_bus_id("00000000:AF:00.0");
  packets.insert(packets.end() - 1, facts);
  // The same device again (a later packet): the first facts stay.
  d->set_power_limit_mw(1);
  packets.insert(packets.end() - 1, facts);
  WriteFile(dir.File("a.fpt"), FramePackets(packets));
  absl::StatusOr<Timeline> t = ReadFeedprofTrace(dir.File("a.fpt"));
  ASSERT_TRUE(t.ok()) << t.status();

  ASSERT_EQ(t->platform.nvml_devices.size(), 2u);
  const Platform::NvmlDevice& a = t->platform.nvml_devices[0];
  EXPECT_EQ(a.pid, 4242);
  EXPECT_EQ(a.device, 2);
  EXPECT_EQ(a.pci_bus_id, "00000000:3B:00.0");
  EXPECT_EQ(a.name, "NVIDIA A100-SXM4-80GB");
  EXPECT_EQ(a.power_limit_mw, 300000u);
  EXPECT_EQ(a.default_power_limit_mw, 400000u);
  EXPECT_EQ(a.enforced_power_limit_mw, 250000u);
  EXPECT_EQ(a.max_sm_clock_mhz, 1410u);
  EXPECT_EQ(a.max_mem_clock_mhz, 1593u);
  EXPECT_EQ(a.slowdown_temperature_c, 0u);
  EXPECT_EQ(a.persistence_mode, false);
  EXPECT_EQ(a.ecc_enabled, true);
  EXPECT_EQ(a.ecc_volatile_uncorrected, 2u);
  EXPECT_FALSE(a.ecc_volatile_corrected.has_value());
  EXPECT_EQ(a.ecc_aggregate_corrected, 17u);
  EXPECT_EQ(a.row_remap_pending, true);
  EXPECT_FALSE(a.row_remap_failure.has_value());
  const Platform::NvmlDevice& b = t->platform.nvml_devices[1];
  EXPECT_EQ(b.device, 0);
  EXPECT_FALSE(b.power_limit_mw.has_value());
  EXPECT_FALSE(b.persistence_mode.has_value());
  EXPECT_FALSE(b.ecc_enabled.has_value());
}

TEST_F(FullTraceTest, DecodesCounters) {
  ASSERT_EQ(t_.counters.size(), 2u);
  EXPECT_EQ(t_.counters[0].ts, 5'000'001);
  EXPECT_EQ(t_.counters[1].ts, 5'000'003);
  EXPECT_EQ(Name(t_, t_.counters[0].name), "sm_util_pct");
  EXPECT_DOUBLE_EQ(t_.counters[0].value, 87.5);
  EXPECT_DOUBLE_EQ(t_.counters[1].value, 90.0);
  EXPECT_EQ(t_.counters[1].pid, 4242);
}

TEST_F(FullTraceTest, KeepsTheLastDropCounts) {
  EXPECT_EQ(t_.drops.events_recorded, 100u);
  EXPECT_EQ(t_.drops.events_dropped, 3u);  // not 1 + 3: cumulative counts
  EXPECT_EQ(t_.drops.cupti_records_dropped, 2u);
  EXPECT_EQ(t_.drops.zero_timestamp_records, 1u);
  EXPECT_EQ(t_.drops.cupti_buffers_dropped, 4u);
  EXPECT_EQ(t_.drops.strings_dropped, 5u);
  EXPECT_EQ(t_.drops.samples_dropped, 6u);
  EXPECT_EQ(t_.drops.packets_dropped, 7u);
}

TEST_F(FullTraceTest, NamesNvtxCategories) {
  ASSERT_EQ(t_.nvtx_categories.size(), 2u);
  const NvtxCategoryName& a = t_.nvtx_categories[0];
  EXPECT_EQ(a.pid, 4242);
  EXPECT_EQ(Name(t_, a.domain), "my.domain");
  EXPECT_EQ(a.category, 2u);
  EXPECT_EQ(Name(t_, a.name), "data-loading");
  const NvtxCategoryName& b = t_.nvtx_categories[1];
  EXPECT_EQ(b.domain, 0u);  // the default domain
  EXPECT_EQ(b.category, 7u);
  EXPECT_EQ(Name(t_, b.name), "forward");
}

TEST_F(FullTraceTest, SetsAvailability) {
  EXPECT_TRUE(t_.available.api_calls);
  EXPECT_TRUE(t_.available.correlation);
  EXPECT_TRUE(t_.available.sync_records);
  EXPECT_TRUE(t_.available.host_samples);
  EXPECT_TRUE(t_.available.system_samples);
  EXPECT_TRUE(t_.available.call_sites);
  EXPECT_TRUE(t_.available.gpu_counters);
  EXPECT_TRUE(t_.available.ranges);
  EXPECT_TRUE(t_.available.process_io);  // rchar 3000
}

TEST(TraceReader, HeaderOnlyTraceSaysWhatIsNotAvailable) {
  TempDir dir;
  std::vector<trace::Packet> packets = testing::FullTracePackets();
  packets.resize(1);  // the header alone
  WriteFile(dir.File("a.fpt"), FramePackets(packets));
  absl::StatusOr<Timeline> t = ReadFeedprofTrace(dir.File("a.fpt"));
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_FALSE(t->available.api_calls);
  EXPECT_FALSE(t->available.host_samples);
  EXPECT_FALSE(t->available.gpu_counters);
  EXPECT_FALSE(t->available.call_sites);
  EXPECT_FALSE(t->available.process_io);
  EXPECT_EQ(t->processes.size(), 1u);
  EXPECT_EQ(t->processes[0].end, 0);  // no footer and no events
  EXPECT_EQ(t->processes[0].world_size, 8);
}

TEST(TraceReader, ProcessEndFallsBackToLastEventWithoutFooter) {
  TempDir dir;
  std::vector<trace::Packet> packets = testing::FullTracePackets();
  packets.pop_back();  // the footer
  WriteFile(dir.File("a.fpt"), FramePackets(packets));
  absl::StatusOr<Timeline> t = ReadFeedprofTrace(dir.File("a.fpt"));
  ASSERT_TRUE(t.ok()) << t.status();
  // The latest event is the thread sample at 14'000'000.
  EXPECT_EQ(t->processes[0].end, 14'000'000);
}

TEST(TraceReader, WorldSizeNotSetIsZero) {
  TempDir dir;
  std::vector<trace::Packet> packets =
      testing::SmallProcessPackets(7, -1, "k", 1000, 0);
  packets[0].mutable_header()->set_world_size(-1);  // the recorder's "unset"
  WriteFile(dir.File("a.fpt"), FramePackets(packets));
  absl::StatusOr<Timeline> t = ReadFeedprofTrace(dir.File("a.fpt"));
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->processes.at(0).world_size, 0);
  EXPECT_EQ(t->processes.at(0).rank, -1);
}

TEST(TraceReader, ResolvesStringsDefinedAfterTheirFirstUse) {
  TempDir dir;
  std::vector<trace::Packet> packets =
      testing::SmallProcessPackets(7, -1, "late_kernel", 1000, 0);
  std::swap(packets[1], packets[3]);  // strings after the kernel batch
  WriteFile(dir.File("a.fpt"), FramePackets(packets));
  absl::StatusOr<Timeline> t = ReadFeedprofTrace(dir.File("a.fpt"));
  ASSERT_TRUE(t.ok()) << t.status();
  ASSERT_EQ(t->gpu_ops.size(), 1u);
  EXPECT_EQ(t->strings.Get(t->gpu_ops[0].name), "late_kernel");
  EXPECT_TRUE(t->warnings.empty());
}

TEST(TraceReader, NamesUndefinedStringIdsAndWarns) {
  TempDir dir;
  std::vector<trace::Packet> packets =
      testing::SmallProcessPackets(7, -1, "k", 1000, 0);
  packets[3].mutable_events()->mutable_kernels(0)->set_name_id(77);
  WriteFile(dir.File("a.fpt"), FramePackets(packets));
  absl::StatusOr<Timeline> t = ReadFeedprofTrace(dir.File("a.fpt"));
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->strings.Get(t->gpu_ops[0].name), "<unknown string #77>");
  EXPECT_TRUE(HasWarningContaining(*t, "1 names refer to string ids"));
}

TEST(TraceReader, MergesASessionDirectory) {
  TempDir dir;
  // The same string and correlation ids in both files mean different
  // things: they are per process.
  WriteFile(dir.File("rank0.fpt"), FramePackets(testing::SmallProcessPackets(
                                       100, 0, "kernelA", 2000, 2)));
  WriteFile(dir.File("rank1.fpt"), FramePackets(testing::SmallProcessPackets(
                                       200, 1, "kernelB", 1000, 3)));
  WriteFile(dir.File("notes.txt"), "not a trace");
  absl::StatusOr<Timeline> t = ReadFeedprofTrace(dir.path());
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_TRUE(t->warnings.empty());
  ASSERT_EQ(t->processes.size(), 2u);
  EXPECT_EQ(t->processes[0].pid, 100);
  EXPECT_EQ(t->processes[0].rank, 0);
  EXPECT_EQ(t->processes[1].pid, 200);
  EXPECT_EQ(t->processes[1].rank, 1);
  EXPECT_EQ(t->processes[1].trace_path, dir.File("rank1.fpt"));

  ASSERT_EQ(t->gpu_ops.size(), 2u);
  EXPECT_EQ(t->gpu_ops[0].start, 1000);  // sorted across files
  EXPECT_EQ(t->gpu_ops[0].pid, 200);
  EXPECT_EQ(t->strings.Get(t->gpu_ops[0].name), "kernelB");
  EXPECT_EQ(t->gpu_ops[1].pid, 100);
  EXPECT_EQ(t->strings.Get(t->gpu_ops[1].name), "kernelA");
  EXPECT_EQ(t->gpu_ops[0].correlation, t->gpu_ops[1].correlation);
  ASSERT_EQ(t->api_calls.size(), 2u);
  EXPECT_EQ(t->api_calls[0].pid, 200);
  EXPECT_EQ(t->api_calls[0].tid, 200);
  EXPECT_EQ(t->strings.Get(t->api_calls[1].name), "cudaLaunchKernel");
  EXPECT_EQ(t->drops.events_dropped, 5u);  // summed over files
}

TEST(TraceReader, SplitsAConcatenatedFileIntoItsProcesses) {
  TempDir dir;
  WriteFile(
      dir.File("both.fpt"),
      FramePackets(testing::SmallProcessPackets(1, -1, "first", 500, 1)) +
          FramePackets(testing::SmallProcessPackets(2, -1, "second", 700, 1)));
  absl::StatusOr<Timeline> t = ReadFeedprofTrace(dir.File("both.fpt"));
  ASSERT_TRUE(t.ok()) << t.status();
  ASSERT_EQ(t->processes.size(), 2u);
  ASSERT_EQ(t->gpu_ops.size(), 2u);
  EXPECT_EQ(t->gpu_ops[0].pid, 1);
  EXPECT_EQ(t->strings.Get(t->gpu_ops[0].name), "first");
  EXPECT_EQ(t->gpu_ops[1].pid, 2);
  EXPECT_EQ(t->strings.Get(t->gpu_ops[1].name), "second");
  EXPECT_EQ(t->drops.events_dropped, 2u);
}

TEST(TraceReader, RepairsInvalidUtf8Names) {
  TempDir dir;
  std::vector<trace::Packet> packets =
      testing::SmallProcessPackets(7, -1, "bad\xC3", 1000, 0);
  packets[0].mutable_header()->set_hostname("gpu\xFFnode");
  {
    google::protobuf::LogSilencer quiet;  // libprotobuf complains on write
    WriteFile(dir.File("a.fpt"), FramePackets(packets));
  }
  absl::StatusOr<Timeline> t = ReadFeedprofTrace(dir.File("a.fpt"));
  ASSERT_TRUE(t.ok()) << t.status();
  ASSERT_EQ(t->processes.size(), 1u);
  EXPECT_EQ(t->processes[0].hostname, "gpu\xEF\xBF\xBDnode");
  ASSERT_EQ(t->gpu_ops.size(), 1u);
  EXPECT_EQ(t->strings.Get(t->gpu_ops[0].name), "bad\xEF\xBF\xBD");
  EXPECT_TRUE(HasWarningContaining(*t, "2 packets held names that are not"));
}

TEST(TraceReader, WarnsAboutANewerFormatVersion) {
  TempDir dir;
  std::vector<trace::Packet> packets =
      testing::SmallProcessPackets(7, -1, "k", 1000, 0);
  packets[0].mutable_header()->set_format_version(2);
  WriteFile(dir.File("a.fpt"), FramePackets(packets));
  absl::StatusOr<Timeline> t = ReadFeedprofTrace(dir.File("a.fpt"));
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_TRUE(HasWarningContaining(*t, "format version 2"));
  EXPECT_EQ(t->gpu_ops.size(), 1u);
}

TEST(TraceReader, IgnoresPacketKindsItDoesNotKnow) {
  TempDir dir;
  std::string bytes =
      FramePackets(testing::SmallProcessPackets(7, -1, "k", 1000, 0));
  // A packet with only field 99 set, as a newer writer might add.
  const std::string unknown = std::string("\x9A\x06\x02hi", 5);
  bytes += "\x0A";
  bytes.push_back(static_cast<char>(unknown.size()));
  bytes += unknown;
  WriteFile(dir.File("a.fpt"), bytes);
  absl::StatusOr<Timeline> t = ReadFeedprofTrace(dir.File("a.fpt"));
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_TRUE(t->warnings.empty());
  EXPECT_EQ(t->gpu_ops.size(), 1u);
}

// A process whose data lies on two NVMe disks and an NFS mount: one
// HostSampleBatch as the sampler writes it, two slow rounds 100 ms apart,
// with the names defined by a strings packet after the batch (the writer
// may define a string after the batch that first used it).
std::vector<trace::Packet> StoragePackets() {
  std::vector<trace::Packet> packets;
  trace::Packet header;
  header.mutable_header()->set_pid(4242);
  header.mutable_header()->mutable_clock()->set_monotonic_ns(1'000'000);
  packets.push_back(header);
  trace::Packet batch;
  trace::HostSampleBatch& b = *batch.mutable_host_samples();
  b.set_base_ts_ns(5'000'000);
  trace::ProcessSample* p = b.add_process();
  p->set_ts_delta(10);
  p->set_read_bytes(4096);
  p->set_rchar(123456);
  p->set_wchar(7890);
  p->set_syscr(321);
  p->set_syscw(45);
  trace::DiskSample* d = b.add_disks();
  d->set_ts_delta(20);
  d->set_device_id(11);
  d->set_reads(2893551);
  d->set_reads_merged(1015);
  d->set_read_bytes(169257505792);
  d->set_read_ms(541219);
  d->set_writes(6148214);
  d->set_writes_merged(3920483);
  d->set_write_bytes(109945951232);
  d->set_write_ms(4302765);
  d->set_in_flight(3);
  d->set_busy_ms(2123064);
  d->set_weighted_ms(5006498);
  d = b.add_disks();  // the same read of diskstats: delta 0
  d->set_device_id(12);
  d->set_reads(10512);
  d->set_read_bytes(1377697792);
  d = b.add_disks();
  d->set_ts_delta(100'000'000);
  d->set_device_id(11);
  d->set_reads(2893651);
  trace::NfsSample* n = b.add_nfs();
  n->set_ts_delta(30);
  n->set_mount_point_id(13);
  n->set_ops(10097);
  n->set_transmissions(10100);
  n->set_major_timeouts(3);
  n->set_rtt_ms(25590);
  n->set_execute_ms(26287);
  n->set_read_ops(4096);
  n->set_read_bytes(4295491584);
  n->set_read_rtt_ms(20480);
  n = b.add_nfs();
  n->set_ts_delta(100'000'000);
  n->set_mount_point_id(13);
  n->set_ops(10200);
  packets.push_back(batch);
  packets.push_back(testing::StringsPacket(
      {{11, "nvme0n1"}, {12, "nvme1n1"}, {13, "/mnt/my data"}}));
  return packets;
}

TEST(TraceReader, DiskAndNfsSamplesWithTheirNamesAndProcessIo) {
  TempDir dir;
  WriteFile(dir.File("a.fpt"), FramePackets(StoragePackets()));
  absl::StatusOr<Timeline> read = ReadFeedprofTrace(dir.File("a.fpt"));
  ASSERT_TRUE(read.ok()) << read.status();
  const Timeline& t = *read;
  EXPECT_TRUE(t.warnings.empty()) << t.warnings.front();

  ASSERT_EQ(t.process_samples.size(), 1u);
  const ProcessSample& p = t.process_samples[0];
  EXPECT_EQ(p.ts, 5'000'010);
  EXPECT_EQ(p.read_bytes, 4096u);
  EXPECT_EQ(p.rchar, 123456u);
  EXPECT_EQ(p.wchar, 7890u);
  EXPECT_EQ(p.syscr, 321u);
  EXPECT_EQ(p.syscw, 45u);
  EXPECT_TRUE(t.available.process_io);

  ASSERT_EQ(t.disk_samples.size(), 3u);
  const DiskSample& d0 = t.disk_samples[0];
  EXPECT_EQ(d0.ts, 5'000'020);
  EXPECT_EQ(d0.pid, 4242);
  EXPECT_EQ(Name(t, d0.device), "nvme0n1");
  EXPECT_EQ(d0.reads, 2893551u);
  EXPECT_EQ(d0.read_bytes, 169257505792u);
  EXPECT_EQ(d0.read_ms, 541219u);
  EXPECT_EQ(d0.writes, 6148214u);
  EXPECT_EQ(d0.write_bytes, 109945951232u);
  EXPECT_EQ(d0.write_ms, 4302765u);
  EXPECT_EQ(d0.busy_ms, 2123064u);
  EXPECT_EQ(d0.in_flight, 3u);
  const DiskSample& d1 = t.disk_samples[1];
  EXPECT_EQ(d1.ts, 5'000'020);
  EXPECT_EQ(Name(t, d1.device), "nvme1n1");
  EXPECT_EQ(d1.reads, 10512u);
  EXPECT_EQ(d1.read_bytes, 1377697792u);
  EXPECT_EQ(d1.in_flight, 0u);
  const DiskSample& d2 = t.disk_samples[2];
  EXPECT_EQ(d2.ts, 105'000'020);
  EXPECT_EQ(d2.device, d0.device);
  EXPECT_EQ(d2.reads, 2893651u);

  ASSERT_EQ(t.nfs_samples.size(), 2u);
  const NfsSample& n0 = t.nfs_samples[0];
  EXPECT_EQ(n0.ts, 5'000'030);
  EXPECT_EQ(n0.pid, 4242);
  EXPECT_EQ(Name(t, n0.mount_point), "/mnt/my data");
  EXPECT_EQ(n0.ops, 10097u);
  EXPECT_EQ(n0.transmissions, 10100u);
  EXPECT_EQ(n0.major_timeouts, 3u);
  EXPECT_EQ(n0.rtt_ms, 25590u);
  EXPECT_EQ(n0.execute_ms, 26287u);
  EXPECT_EQ(n0.read_ops, 4096u);
  EXPECT_EQ(n0.read_bytes, 4295491584u);
  EXPECT_EQ(n0.read_rtt_ms, 20480u);
  EXPECT_EQ(t.nfs_samples[1].ts, 105'000'030);
  EXPECT_EQ(t.nfs_samples[1].mount_point, n0.mount_point);
  EXPECT_EQ(t.nfs_samples[1].ops, 10200u);
  // The processes' time span covers the samples.
  ASSERT_EQ(t.processes.size(), 1u);
  EXPECT_EQ(t.processes[0].end, 105'000'030);
}

// rchar 0 in every sample: /proc/PID/io was unreadable (or the writer had
// no I/O counters), which is "not available", not "no I/O".
TEST(TraceReader, ProcessIoIsUnavailableWithoutReadCounters) {
  TempDir dir;
  std::vector<trace::Packet> packets = StoragePackets();
  for (trace::Packet& packet : packets) {
    if (!packet.has_host_samples()) continue;
    trace::ProcessSample* p = packet.mutable_host_samples()->mutable_process(0);
    p->clear_rchar();
    p->clear_wchar();
    p->clear_syscr();
    p->clear_syscw();
    p->clear_read_bytes();
  }
  WriteFile(dir.File("a.fpt"), FramePackets(packets));
  absl::StatusOr<Timeline> t = ReadFeedprofTrace(dir.File("a.fpt"));
  ASSERT_TRUE(t.ok()) << t.status();
  ASSERT_EQ(t->process_samples.size(), 1u);
  EXPECT_FALSE(t->available.process_io);
  EXPECT_EQ(t->disk_samples.size(), 3u);  // the disks are there all the same
}

// Ids the file never defines name the samples "<unknown string #N>", as
// they do other events, with the warning that says so; a sample whose
// time is out of range is skipped and counted.
TEST(TraceReader, StorageSamplesWithUndefinedNamesOrDamagedTimes) {
  TempDir dir;
  std::vector<trace::Packet> packets = StoragePackets();
  packets.pop_back();  // the strings
  trace::Packet damaged;
  damaged.mutable_host_samples()->set_base_ts_ns(1'000'000);
  damaged.mutable_host_samples()->add_disks()->set_ts_delta(-2'000'000);
  damaged.mutable_host_samples()->add_nfs()->set_ts_delta(-2'000'000);
  packets.push_back(damaged);
  WriteFile(dir.File("a.fpt"), FramePackets(packets));
  absl::StatusOr<Timeline> t = ReadFeedprofTrace(dir.File("a.fpt"));
  ASSERT_TRUE(t.ok()) << t.status();
  ASSERT_EQ(t->disk_samples.size(), 3u);
  EXPECT_EQ(Name(*t, t->disk_samples[0].device), "<unknown string #11>");
  ASSERT_EQ(t->nfs_samples.size(), 2u);
  EXPECT_EQ(Name(*t, t->nfs_samples[0].mount_point), "<unknown string #13>");
  EXPECT_TRUE(HasWarningContaining(*t, "3 names refer to string ids"));
  EXPECT_TRUE(HasWarningContaining(*t, "skipped 2 events whose times"));
}

}  // namespace
}  // namespace feedprof
