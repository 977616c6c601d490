// CUPTI activity records, built here as the real CUDA 13 structs, go
// through libcupti's own record iterator and the collector's conversion;
// the packets that come out are parsed with libprotobuf and checked field
// by field. Runs without a GPU: only cuptiActivityGetNextRecord is used.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <vector>

#include "cupti_hooks/activity_converter.h"
#include "tests/cupti_hooks/capture_sink.h"
#include "tests/cupti_hooks/loaded_cupti_test.h"

namespace feedprof::cupti {
namespace {

using test::captured;
using test::CaptureSink;

// Appends records back to back, as CUPTI lays them out.
class RecordBuffer {
 public:
  template <typename Record>
  void Append(const Record& record) {
    static_assert(sizeof(Record) % 8 == 0);
    const size_t at = bytes_.size();
    bytes_.resize(at + sizeof(Record));
    std::memcpy(bytes_.data() + at, &record, sizeof(Record));
  }
  uint8_t* data() { return bytes_.data(); }
  size_t size() const { return bytes_.size(); }

 private:
  std::vector<uint8_t> bytes_;
};

class ActivityConversionTest : public test::LoadedCuptiTest {
 protected:
  void SetUp() override {
    LoadedCuptiTest::SetUp();
    if (HasFatalFailure()) return;
    captured().Clear();
    converter_ =
        std::make_unique<ActivityConverter>(api_, *table_, CaptureSink());
  }
  void TearDown() override {
    converter_.reset();
    LoadedCuptiTest::TearDown();
  }

  std::unique_ptr<ActivityConverter> converter_;
};

CUpti_ActivityKernel10 MakeKernel(uint64_t start, uint64_t end,
                                  const char* name) {
  CUpti_ActivityKernel10 k{};
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.start = start;
  k.end = end;
  k.name = name;
  k.deviceId = 1;
  k.contextId = 3;
  k.streamId = 7;
  k.correlationId = 501;
  k.gridX = 128;
  k.gridY = 2;
  k.gridZ = 1;
  k.blockX = 256;
  k.blockY = 1;
  k.blockZ = 1;
  k.registersPerThread = 32;
  k.staticSharedMemory = 4096;
  k.dynamicSharedMemory = 1024;
  k.graphId = 9;
  k.graphNodeId = 12345678901ULL;
  return k;
}

// A mangled name: the trace keeps the demangled one.
constexpr const char* kKernelName = "_Z6vecAddPfS_S_i";

TEST_F(ActivityConversionTest, KernelFieldsSurviveTheRoundTrip) {
  RecordBuffer buffer;
  buffer.Append(MakeKernel(5'000'000, 5'012'500, kKernelName));
  EXPECT_EQ(converter_->ConvertBuffer(buffer.data(), buffer.size()), 0u);

  auto batches = captured().Batches();
  ASSERT_EQ(batches.size(), 1u);
  const trace::EventBatch& b = batches[0];
  EXPECT_EQ(b.tid(), 0u);  // GPU activity
  EXPECT_EQ(b.base_ts_ns(), 5'000'000u);
  ASSERT_EQ(b.kernels_size(), 1);
  const trace::Kernel& k = b.kernels(0);
  EXPECT_EQ(k.start_delta(), 0);
  EXPECT_EQ(k.duration_ns(), 12'500u);
  EXPECT_EQ(captured().Text(k.name_id()),
            "vecAdd(float*, float*, float*, int)");
  EXPECT_EQ(k.device_id(), 1u);
  EXPECT_EQ(k.context_id(), 3u);
  EXPECT_EQ(k.stream_id(), 7u);
  EXPECT_EQ(k.correlation_id(), 501u);
  EXPECT_EQ(k.grid_x(), 128u);
  EXPECT_EQ(k.grid_y(), 2u);
  EXPECT_EQ(k.grid_z(), 1u);
  EXPECT_EQ(k.block_x(), 256u);
  EXPECT_EQ(k.block_y(), 1u);
  EXPECT_EQ(k.block_z(), 1u);
  EXPECT_EQ(k.registers_per_thread(), 32u);
  EXPECT_EQ(k.static_shared_bytes(), 4096u);
  EXPECT_EQ(k.dynamic_shared_bytes(), 1024u);
  EXPECT_EQ(k.graph_id(), 9u);
  EXPECT_EQ(k.graph_node_id(), 12345678901u);
  EXPECT_EQ(k.queued_ns(), 0u);
  EXPECT_EQ(converter_->stats().kernels, 1u);
}

TEST_F(ActivityConversionTest, StartTimesAreDeltaEncodedPerField) {
  RecordBuffer buffer;
  buffer.Append(MakeKernel(1'000, 1'500, kKernelName));
  CUpti_ActivityMemcpy6 m{};
  m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  m.start = 1'200;
  m.end = 1'300;
  m.bytes = 64;
  buffer.Append(m);
  buffer.Append(MakeKernel(2'000, 2'100, kKernelName));
  buffer.Append(MakeKernel(1'800, 1'900, kKernelName));  // out of order
  converter_->ConvertBuffer(buffer.data(), buffer.size());

  auto batches = captured().Batches();
  ASSERT_EQ(batches.size(), 1u);
  const auto& b = batches[0];
  ASSERT_EQ(b.kernels_size(), 3);
  ASSERT_EQ(b.memcpys_size(), 1);
  EXPECT_EQ(b.base_ts_ns(), 1'000u);
  EXPECT_EQ(b.kernels(0).start_delta(), 0);
  EXPECT_EQ(b.kernels(1).start_delta(), 1'000);
  EXPECT_EQ(b.kernels(2).start_delta(), -200);
  EXPECT_EQ(b.memcpys(0).start_delta(), 200);  // against the base
  // The same name pointer interns once.
  EXPECT_EQ(b.kernels(0).name_id(), b.kernels(2).name_id());
}

TEST_F(ActivityConversionTest, CopiesMemsetsAndPeerCopies) {
  RecordBuffer buffer;
  CUpti_ActivityMemcpy6 m{};
  m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
  m.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE;
  m.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  m.flags = CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC;
  m.bytes = 1 << 20;
  m.start = 10'000;
  m.end = 110'000;
  m.deviceId = 0;
  m.contextId = 1;
  m.streamId = 13;
  m.correlationId = 77;
  m.graphId = 4;
  buffer.Append(m);
  CUpti_ActivityMemcpyPtoP4 p{};
  p.kind = CUPTI_ACTIVITY_KIND_MEMCPY2;
  p.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_PTOP;
  p.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  p.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  p.bytes = 4096;
  p.start = 20'000;
  p.end = 20'800;
  p.deviceId = 1;
  p.srcDeviceId = 0;
  p.dstDeviceId = 1;
  p.correlationId = 78;
  buffer.Append(p);
  CUpti_ActivityMemset4 s{};
  s.kind = CUPTI_ACTIVITY_KIND_MEMSET;
  s.value = 0xAB;
  s.bytes = 512;
  s.start = 30'000;
  s.end = 30'050;
  s.deviceId = 2;
  s.contextId = 5;
  s.streamId = 6;
  s.correlationId = 79;
  s.flags = 0;  // synchronous
  s.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_MANAGED;
  buffer.Append(s);
  converter_->ConvertBuffer(buffer.data(), buffer.size());

  auto batches = captured().Batches();
  ASSERT_EQ(batches.size(), 1u);
  const auto& b = batches[0];
  ASSERT_EQ(b.memcpys_size(), 2);
  const trace::Memcpy& c = b.memcpys(0);
  EXPECT_EQ(c.duration_ns(), 100'000u);
  EXPECT_EQ(c.bytes(), 1u << 20);
  EXPECT_EQ(c.copy_kind(), trace::COPY_KIND_HTOD);
  EXPECT_EQ(c.src_kind(), trace::MEMORY_KIND_PAGEABLE);
  EXPECT_EQ(c.dst_kind(), trace::MEMORY_KIND_DEVICE);
  EXPECT_TRUE(c.async());
  EXPECT_EQ(c.device_id(), 0u);
  EXPECT_EQ(c.context_id(), 1u);
  EXPECT_EQ(c.stream_id(), 13u);
  EXPECT_EQ(c.correlation_id(), 77u);
  EXPECT_EQ(c.graph_id(), 4u);
  const trace::Memcpy& peer = b.memcpys(1);
  EXPECT_EQ(peer.start_delta(), 10'000);
  EXPECT_EQ(peer.copy_kind(), trace::COPY_KIND_PTOP);
  EXPECT_EQ(peer.bytes(), 4096u);
  EXPECT_EQ(peer.src_device_id(), 0u);
  EXPECT_EQ(peer.dst_device_id(), 1u);
  EXPECT_FALSE(peer.async());
  ASSERT_EQ(b.memsets_size(), 1);
  const trace::Memset& set = b.memsets(0);
  EXPECT_EQ(set.duration_ns(), 50u);
  EXPECT_EQ(set.value(), 0xABu);
  EXPECT_EQ(set.bytes(), 512u);
  EXPECT_EQ(set.device_id(), 2u);
  EXPECT_EQ(set.context_id(), 5u);
  EXPECT_EQ(set.stream_id(), 6u);
  EXPECT_EQ(set.correlation_id(), 79u);
  EXPECT_EQ(set.memory_kind(), trace::MEMORY_KIND_MANAGED);
  EXPECT_FALSE(set.async());
}

TEST_F(ActivityConversionTest, ApiRecordsGoToTheirThreadsBatchWithoutNoise) {
  RecordBuffer buffer;
  CUpti_ActivityAPI launch{};
  launch.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
  launch.cbid = CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000;
  launch.start = 40'000;
  launch.end = 44'000;
  launch.threadId = 4242;
  launch.correlationId = 501;
  buffer.Append(launch);
  CUpti_ActivityAPI noise = launch;
  noise.cbid = CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020;
  noise.correlationId = 502;
  buffer.Append(noise);
  CUpti_ActivityAPI sync = launch;
  sync.cbid = CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020;
  sync.start = 45'000;
  sync.end = 90'000;
  sync.correlationId = 503;
  sync.returnValue = 700;
  buffer.Append(sync);
  CUpti_ActivityAPI driver{};
  driver.kind = CUPTI_ACTIVITY_KIND_DRIVER;
  driver.cbid = CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel;
  driver.start = 41'000;
  driver.end = 43'000;
  driver.threadId = 777;
  driver.correlationId = 600;
  buffer.Append(driver);
  converter_->ConvertBuffer(buffer.data(), buffer.size());

  auto batches = captured().Batches();
  ASSERT_EQ(batches.size(), 2u);
  const trace::EventBatch* t4242 = nullptr;
  const trace::EventBatch* t777 = nullptr;
  for (const auto& b : batches) {
    if (b.tid() == 4242) t4242 = &b;
    if (b.tid() == 777) t777 = &b;
  }
  ASSERT_NE(t4242, nullptr);
  ASSERT_NE(t777, nullptr);
  ASSERT_EQ(t4242->api_calls_size(), 2);  // cudaGetDevice filtered
  const trace::ApiCall& a = t4242->api_calls(0);
  EXPECT_EQ(captured().Text(a.name_id()), "cudaLaunchKernel");
  EXPECT_EQ(a.duration_ns(), 4'000u);
  EXPECT_EQ(a.correlation_id(), 501u);
  EXPECT_EQ(a.domain(), trace::API_DOMAIN_RUNTIME);
  EXPECT_EQ(
      a.callback_id(),
      static_cast<uint32_t>(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000));
  EXPECT_EQ(a.call_site_id(), 0u);
  const trace::ApiCall& s = t4242->api_calls(1);
  EXPECT_EQ(captured().Text(s.name_id()), "cudaStreamSynchronize");
  EXPECT_EQ(s.start_delta(), 5'000);
  EXPECT_EQ(s.duration_ns(), 45'000u);
  EXPECT_EQ(s.return_code(), 700);
  ASSERT_EQ(t777->api_calls_size(), 1);
  EXPECT_EQ(captured().Text(t777->api_calls(0).name_id()), "cuLaunchKernel");
  EXPECT_EQ(t777->api_calls(0).domain(), trace::API_DOMAIN_DRIVER);
  EXPECT_EQ(converter_->stats().noise_skipped, 1u);
}

TEST_F(ActivityConversionTest,
       BlockingCallsAreLeftToTheCallbacksWhenTheyOwnThem) {
  converter_->set_callbacks_own_blocking_calls(true);
  RecordBuffer buffer;
  CUpti_ActivityAPI sync{};
  sync.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
  sync.cbid = CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020;
  sync.start = 1'000;
  sync.end = 2'000;
  sync.threadId = 5;
  buffer.Append(sync);
  CUpti_ActivityAPI launch = sync;
  launch.cbid = CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000;
  buffer.Append(launch);
  converter_->ConvertBuffer(buffer.data(), buffer.size());
  auto batches = captured().Batches();
  ASSERT_EQ(batches.size(), 1u);
  ASSERT_EQ(batches[0].api_calls_size(), 1);
  EXPECT_EQ(captured().Text(batches[0].api_calls(0).name_id()),
            "cudaLaunchKernel");
  EXPECT_EQ(converter_->stats().callback_owned, 1u);
}

TEST_F(ActivityConversionTest, SyncOverheadMemoryAndExternalCorrelation) {
  RecordBuffer buffer;
  CUpti_ActivityContext3 ctx{};
  ctx.kind = CUPTI_ACTIVITY_KIND_CONTEXT;
  ctx.contextId = 8;
  ctx.deviceId = 3;
  buffer.Append(ctx);
  CUpti_ActivitySynchronization2 s{};
  s.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
  s.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE;
  s.start = 100'000;
  s.end = 150'000;
  s.correlationId = 31;
  s.contextId = 8;
  s.streamId = 14;
  s.cudaEventId = CUPTI_SYNCHRONIZATION_INVALID_VALUE;
  buffer.Append(s);
  CUpti_ActivityOverhead3 o{};
  o.kind = CUPTI_ACTIVITY_KIND_OVERHEAD;
  o.overheadKind = CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH;
  o.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
  o.objectId.pt.processId = 10;
  o.objectId.pt.threadId = 4321;
  o.start = 160'000;
  o.end = 161'000;
  buffer.Append(o);
  CUpti_ActivityMemory4 alloc{};
  alloc.kind = CUPTI_ACTIVITY_KIND_MEMORY2;
  alloc.memoryOperationType = CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION;
  alloc.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  alloc.correlationId = 32;
  alloc.address = 0x7f0000001000ULL;
  alloc.bytes = 1 << 24;
  alloc.timestamp = 170'000;
  alloc.deviceId = 3;
  alloc.streamId = 14;
  buffer.Append(alloc);
  CUpti_ActivityMemory4 release = alloc;
  release.memoryOperationType = CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE;
  release.timestamp = 180'000;
  release.correlationId = 33;
  buffer.Append(release);
  CUpti_ActivityExternalCorrelation e{};
  e.kind = CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION;
  e.externalKind = CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0;
  e.externalId = 0xBEEF;
  e.correlationId = 31;
  buffer.Append(e);
  converter_->ConvertBuffer(buffer.data(), buffer.size());

  auto batches = captured().Batches();
  ASSERT_EQ(batches.size(), 1u);
  const auto& b = batches[0];
  ASSERT_EQ(b.syncs_size(), 1);
  EXPECT_EQ(b.syncs(0).type(), trace::SYNC_TYPE_STREAM_SYNCHRONIZE);
  EXPECT_EQ(b.syncs(0).duration_ns(), 50'000u);
  EXPECT_EQ(b.syncs(0).stream_id(), 14u);
  EXPECT_EQ(b.syncs(0).context_id(), 8u);
  EXPECT_EQ(b.syncs(0).device_id(), 3u);  // from the context record
  EXPECT_EQ(b.syncs(0).correlation_id(), 31u);
  EXPECT_EQ(b.syncs(0).event_id(), 0u);
  ASSERT_EQ(b.overheads_size(), 1);
  EXPECT_EQ(b.overheads(0).kind(),
            static_cast<uint32_t>(CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH));
  EXPECT_EQ(b.overheads(0).object_kind(),
            static_cast<uint32_t>(CUPTI_ACTIVITY_OBJECT_THREAD));
  EXPECT_EQ(b.overheads(0).object_id(), 4321u);
  EXPECT_EQ(b.overheads(0).duration_ns(), 1'000u);
  ASSERT_EQ(b.memory_size(), 2);
  EXPECT_FALSE(b.memory(0).is_free());
  EXPECT_TRUE(b.memory(1).is_free());
  EXPECT_EQ(b.memory(1).ts_delta(), 10'000);
  EXPECT_EQ(b.memory(0).bytes(), 1u << 24);
  EXPECT_EQ(b.memory(0).address(), 0x7f0000001000u);
  EXPECT_EQ(b.memory(0).device_id(), 3u);
  EXPECT_EQ(b.memory(0).stream_id(), 14u);
  EXPECT_EQ(b.memory(0).memory_kind(), trace::MEMORY_KIND_DEVICE);
  EXPECT_EQ(b.memory(0).correlation_id(), 32u);
  ASSERT_EQ(b.external_correlations_size(), 1);
  EXPECT_EQ(b.external_correlations(0).kind(),
            static_cast<uint32_t>(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0));
  EXPECT_EQ(b.external_correlations(0).external_id(), 0xBEEFu);
  EXPECT_EQ(b.external_correlations(0).correlation_id(), 31u);
}

TEST_F(ActivityConversionTest, DeviceRecordsBecomeDeviceInfoPackets) {
  converter_->NotePciBusId(0, "0000:3b:00.0");
  RecordBuffer buffer;
  CUpti_ActivityDevice5 d{};
  d.kind = CUPTI_ACTIVITY_KIND_DEVICE;
  d.id = 0;
  d.name = "NVIDIA H100 80GB HBM3";
  d.numMultiprocessors = 132;
  d.globalMemorySize = 85'000'000'000ULL;
  d.globalMemoryBandwidth = 3'352'000'000ULL;  // kB/s
  d.coreClockRate = 1'980'000;                 // kHz
  d.computeCapabilityMajor = 9;
  d.computeCapabilityMinor = 0;
  for (int i = 0; i < 16; ++i) d.uuid.bytes[i] = static_cast<char>(i);
  buffer.Append(d);
  CUpti_ActivityContext3 ctx{};
  ctx.kind = CUPTI_ACTIVITY_KIND_CONTEXT;
  ctx.contextId = 1;
  ctx.deviceId = 0;
  buffer.Append(ctx);
  converter_->ConvertBuffer(buffer.data(), buffer.size());

  std::vector<trace::DeviceInfo> devices;
  for (const auto& p : captured().packets) {
    if (p.has_device()) devices.push_back(p.device());
  }
  ASSERT_EQ(devices.size(), 2u);  // the device, then the device of context 1
  const trace::DeviceInfo& info = devices[0];
  EXPECT_EQ(info.device_id(), 0u);
  EXPECT_EQ(info.name(), "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(info.sm_count(), 132u);
  EXPECT_EQ(info.pci_bus_id(), "0000:3b:00.0");
  EXPECT_EQ(info.global_memory_bytes(), 85'000'000'000u);
  EXPECT_EQ(info.memory_bandwidth_bytes_per_s(), 3'352'000'000'000u);
  EXPECT_EQ(info.core_clock_khz(), 1'980'000u);
  EXPECT_EQ(info.compute_capability_major(), 9u);
  EXPECT_EQ(info.compute_capability_minor(), 0u);
  EXPECT_EQ(info.uuid(), "GPU-00010203-0405-0607-0809-0a0b0c0d0e0f");
  EXPECT_EQ(info.context_id(), 0u);
  EXPECT_EQ(devices[1].context_id(), 1u);
  EXPECT_EQ(devices[1].name(), info.name());
}

CUpti_ActivityStream MakeStream(uint32_t stream, uint32_t priority,
                                CUpti_ActivityStreamFlag flag) {
  CUpti_ActivityStream s{};
  s.kind = CUPTI_ACTIVITY_KIND_STREAM;
  s.contextId = 1;
  s.streamId = stream;
  s.priority = priority;
  s.flag = flag;
  s.correlationId = 40 + stream;
  return s;
}

TEST_F(ActivityConversionTest, StreamRecordsBecomeStreamInfoPackets) {
  RecordBuffer buffer;
  // As nsys exports show them for one context: the legacy NULL stream 7,
  // a blocking stream created with priority -5 (CUPTI stores it unsigned),
  // a non-blocking one, and one with a flag this build does not know.
  buffer.Append(MakeStream(7, 0, CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NULL));
  buffer.Append(MakeStream(12, static_cast<uint32_t>(-5),
                           CUPTI_ACTIVITY_STREAM_CREATE_FLAG_DEFAULT));
  buffer.Append(
      MakeStream(13, 0, CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NON_BLOCKING));
  buffer.Append(MakeStream(14, 0, static_cast<CUpti_ActivityStreamFlag>(0x7)));
  EXPECT_EQ(converter_->ConvertBuffer(buffer.data(), buffer.size()), 0u);

  std::vector<trace::StreamInfo> streams;
  for (const auto& p : captured().packets) {
    if (p.has_stream()) streams.push_back(p.stream());
  }
  ASSERT_EQ(streams.size(), 4u);
  EXPECT_EQ(streams[0].context_id(), 1u);
  EXPECT_EQ(streams[0].stream_id(), 7u);
  EXPECT_EQ(streams[0].priority(), 0);
  EXPECT_EQ(streams[0].kind(), trace::STREAM_KIND_LEGACY_NULL);
  EXPECT_EQ(streams[0].correlation_id(), 47u);
  EXPECT_EQ(streams[1].stream_id(), 12u);
  EXPECT_EQ(streams[1].priority(), -5);
  EXPECT_EQ(streams[1].kind(), trace::STREAM_KIND_DEFAULT_BLOCKING);
  EXPECT_EQ(streams[2].stream_id(), 13u);
  EXPECT_EQ(streams[2].kind(), trace::STREAM_KIND_NON_BLOCKING);
  EXPECT_EQ(streams[3].stream_id(), 14u);
  EXPECT_EQ(streams[3].kind(), trace::STREAM_KIND_UNKNOWN);
  const ConversionStats stats = converter_->stats();
  EXPECT_EQ(stats.streams, 4u);
  EXPECT_EQ(stats.other_kinds, 0u);
  EXPECT_EQ(stats.packets, 4u);
}

TEST_F(ActivityConversionTest, ZeroTimestampsAreCountedNotWritten) {
  RecordBuffer buffer;
  buffer.Append(MakeKernel(0, 100, kKernelName));
  buffer.Append(MakeKernel(100, 0, kKernelName));
  buffer.Append(MakeKernel(100, 200, kKernelName));
  CUpti_ActivityMemcpy6 m{};
  m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  m.start = 0;
  m.end = 0;
  buffer.Append(m);
  CUpti_ActivityAPI a{};
  a.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
  a.cbid = CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000;
  a.start = 0;
  a.end = 5;
  buffer.Append(a);
  CUpti_ActivityMemory4 mem{};
  mem.kind = CUPTI_ACTIVITY_KIND_MEMORY2;
  mem.timestamp = 0;
  buffer.Append(mem);
  EXPECT_EQ(converter_->ConvertBuffer(buffer.data(), buffer.size()), 5u);
  auto batches = captured().Batches();
  ASSERT_EQ(batches.size(), 1u);
  EXPECT_EQ(batches[0].kernels_size(), 1);
  EXPECT_EQ(batches[0].memcpys_size(), 0);
  EXPECT_EQ(batches[0].api_calls_size(), 0);
  EXPECT_EQ(converter_->stats().zero_timestamps, 5u);
  EXPECT_EQ(converter_->stats().records, 6u);
}

TEST_F(ActivityConversionTest, LargeBuffersSplitIntoSeveralParsablePackets) {
  RecordBuffer buffer;
  constexpr int kKernels = 20'000;  // > one 256 KiB batch
  for (int i = 0; i < kKernels; ++i) {
    buffer.Append(
        MakeKernel(1'000'000 + 10 * i, 1'000'005 + 10 * i, kKernelName));
  }
  converter_->ConvertBuffer(buffer.data(), buffer.size());
  auto batches = captured().Batches();
  EXPECT_GT(batches.size(), 1u);
  EXPECT_EQ(captured().unparsable, 0u);
  int total = 0;
  uint64_t last_start = 0;
  for (const auto& b : batches) {
    uint64_t ts = b.base_ts_ns();
    for (const auto& k : b.kernels()) {
      ts += k.start_delta();
      EXPECT_EQ(ts, 1'000'000u + 10u * total);
      last_start = ts;
      ++total;
    }
  }
  EXPECT_EQ(total, kKernels);
  EXPECT_EQ(last_start, 1'000'000u + 10u * (kKernels - 1));
}

}  // namespace
}  // namespace feedprof::cupti
