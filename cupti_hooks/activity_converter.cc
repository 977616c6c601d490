#include "cupti_hooks/activity_converter.h"

#include <cxxabi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "cupti_hooks/nvml_sampler.h"
#include "preload/trace_framing.h"

namespace feedprof::cupti {
namespace {

// Field numbers of the event messages (proto/feedprof.proto). Every timed
// event (Kernel, Memcpy, Memset, SyncRecord, OverheadRecord, ApiCall)
// starts with start_delta = 1 and duration_ns = 2, written by
// AppendTimedEvent; the enums below number the fields after them.
namespace timed_field {
enum : uint32_t { kStartDelta = 1, kDuration };
}  // namespace timed_field
namespace kernel {
enum : uint32_t {
  kNameId = 3,
  kDeviceId,
  kStreamId,
  kCorrelationId,
  kContextId,
  kGridX,
  kGridY,
  kGridZ,
  kBlockX,
  kBlockY,
  kBlockZ,
  kRegisters,
  kStaticShared,
  kDynamicShared,
  kGraphId,
  kGraphNodeId,
  kQueued,
  kSubmitted
};
}  // namespace kernel
namespace memcpy_field {
enum : uint32_t {
  kDeviceId = 3,
  kStreamId,
  kCorrelationId,
  kContextId,
  kBytes,
  kCopyKind,
  kSrcKind,
  kDstKind,
  kAsync,
  kSrcDevice,
  kDstDevice,
  kGraphId
};
}  // namespace memcpy_field
namespace memset_field {
enum : uint32_t {
  kDeviceId = 3,
  kStreamId,
  kCorrelationId,
  kContextId,
  kBytes,
  kValue,
  kMemoryKind,
  kAsync,
  kGraphId
};
}  // namespace memset_field
namespace sync_field {
enum : uint32_t {
  kType = 3,
  kStreamId,
  kContextId,
  kCorrelationId,
  kEventId,
  kDeviceId
};
}  // namespace sync_field
namespace api_field {
enum : uint32_t {
  kNameId = 3,
  kCorrelationId,
  kCallSiteId,
  kDomain,
  kCallbackId,
  kBytes,
  kReturnCode
};
}  // namespace api_field
namespace overhead_field {
enum : uint32_t { kKind = 3, kObjectKind, kObjectId };
}  // namespace overhead_field
namespace memory_field {
enum : uint32_t {
  kTsDelta = 1,
  kIsFree,
  kBytes,
  kAddress,
  kDeviceId,
  kStreamId,
  kMemoryKind,
  kCorrelationId
};
}  // namespace memory_field
namespace device_field {
enum : uint32_t {
  kDeviceId = 1,
  kName,
  kSmCount,
  kPciBusId,
  kGlobalMemory,
  kCcMajor,
  kCcMinor,
  kUuid,
  kCoreClock,
  kBandwidth,
  kContextId
};
}  // namespace device_field
namespace stream_field {
enum : uint32_t { kContextId = 1, kStreamId, kPriority, kKind, kCorrelationId };
}  // namespace stream_field

// CUPTI's stream flag -> trace StreamKind. The flag values 0-3 are the
// trace's numbers; anything else (a newer CUPTI) reads as unknown.
uint32_t StreamKindOf(uint32_t cupti_flag) {
  const uint32_t flag = cupti_flag & CUPTI_ACTIVITY_STREAM_CREATE_MASK;
  return flag <= CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NULL ? flag : 0;
}

uint64_t Duration(uint64_t start, uint64_t end) {
  return end > start ? end - start : 0;
}

// Memory kinds past the trace enum's range read as unknown.
uint32_t MemoryKind(uint32_t cupti_kind) {
  return cupti_kind <= CUPTI_ACTIVITY_MEMORY_KIND_MANAGED_STATIC ? cupti_kind
                                                                 : 0;
}

uint32_t PointerHash(const void* p) {
  uint64_t x = reinterpret_cast<uintptr_t>(p);
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  return static_cast<uint32_t>(x);
}

}  // namespace

ActivityConverter::ActivityConverter(const CuptiApi& api, const ApiTable& table,
                                     const RecorderSink& sink)
    : api_(api), table_(table), sink_(sink) {
  const size_t total = kGpuBatchBytes + kApiBatchSlots * kApiBatchBytes;
  storage_ = static_cast<uint8_t*>(std::malloc(total));
  if (storage_ == nullptr) return;  // every conversion then does nothing
  gpu_batch_ = new EventBatchEncoder(storage_, kGpuBatchBytes);
  for (size_t i = 0; i < kApiBatchSlots; ++i) {
    api_batches_[i] = new EventBatchEncoder(
        storage_ + kGpuBatchBytes + i * kApiBatchBytes, kApiBatchBytes);
  }
}

ActivityConverter::~ActivityConverter() {
  delete gpu_batch_;
  for (EventBatchEncoder* batch : api_batches_) delete batch;
  std::free(storage_);
}

void ActivityConverter::NotePciBusId(uint32_t device_id, const char* bus_id) {
  pthread_mutex_lock(&mutex_);
  if (device_id < kMaxDevices && bus_id != nullptr) {
    std::snprintf(devices_[device_id].pci_bus_id,
                  sizeof devices_[device_id].pci_bus_id, "%s", bus_id);
  }
  pthread_mutex_unlock(&mutex_);
}

int ActivityConverter::CudaOrdinalForPciBus(const char* bus_id) {
  pthread_mutex_lock(&mutex_);
  int found = -1;
  for (uint32_t i = 0; i < kMaxDevices && found < 0; ++i) {
    if (devices_[i].pci_bus_id[0] != '\0' &&
        SamePciBusId(devices_[i].pci_bus_id, bus_id)) {
      found = static_cast<int>(i);
    }
  }
  pthread_mutex_unlock(&mutex_);
  return found;
}

ConversionStats ActivityConverter::stats() {
  pthread_mutex_lock(&mutex_);
  const ConversionStats copy = stats_;
  pthread_mutex_unlock(&mutex_);
  return copy;
}

uint64_t ActivityConverter::ConvertBuffer(uint8_t* buffer, size_t valid_size) {
  if (buffer == nullptr || valid_size == 0 || storage_ == nullptr) return 0;
  pthread_mutex_lock(&mutex_);
  uint64_t zero = 0;
  CUpti_Activity* record = nullptr;
  while (api_.ActivityGetNextRecord(buffer, valid_size, &record) ==
         CUPTI_SUCCESS) {
    if (!ConvertRecord(record)) ++zero;
  }
  SubmitBatches();
  pthread_mutex_unlock(&mutex_);
  return zero;
}

EventBatchEncoder& ActivityConverter::GpuBatch() {
  EventBatchEncoder& batch = *gpu_batch_;
  if (batch.open() && batch.nearly_full()) Submit(batch);
  if (!batch.open()) batch.Begin(0);
  return batch;
}

EventBatchEncoder& ActivityConverter::ApiBatch(uint32_t tid) {
  EventBatchEncoder* free_slot = nullptr;
  for (EventBatchEncoder* batch : api_batches_) {
    if (batch->open() && batch->tid() == tid) {
      if (batch->nearly_full()) {
        Submit(*batch);
        batch->Begin(tid);
      }
      return *batch;
    }
    if (!batch->open() && free_slot == nullptr) free_slot = batch;
  }
  if (free_slot == nullptr) {
    free_slot = api_batches_[next_api_slot_];
    next_api_slot_ = (next_api_slot_ + 1) % kApiBatchSlots;
    Submit(*free_slot);
  }
  free_slot->Begin(tid);
  return *free_slot;
}

void ActivityConverter::Submit(EventBatchEncoder& batch) {
  if (!batch.open()) return;
  const bool empty = batch.event_count() == 0;
  size_t size = 0;
  const uint8_t* bytes = batch.Finish(&size);
  if (empty) return;
  if (bytes != nullptr && sink_.submit_packet(bytes, size)) {
    ++stats_.packets;
  } else {
    ++stats_.packets_dropped;
  }
}

void ActivityConverter::SubmitBatches() {
  if (storage_ == nullptr) return;
  Submit(*gpu_batch_);
  for (EventBatchEncoder* batch : api_batches_) Submit(*batch);
}

template <typename Activity>
bool ActivityConverter::ConvertTimed(
    const CUpti_Activity* record,
    void (ActivityConverter::*convert)(const Activity&)) {
  const auto& a = *reinterpret_cast<const Activity*>(record);
  if (a.start == 0 || a.end == 0) {
    ++stats_.zero_timestamps;
    return false;
  }
  (this->*convert)(a);
  return true;
}

bool ActivityConverter::ConvertRecord(const CUpti_Activity* record) {
  ++stats_.records;
  // Each typed view reads the record in place; CUPTI wrote exactly these
  // structs (the CUDA 13 versions) into the buffer.
  switch (record->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
      return ConvertTimed(record, &ActivityConverter::ConvertKernel);
    case CUPTI_ACTIVITY_KIND_MEMCPY:
      return ConvertTimed(record, &ActivityConverter::ConvertMemcpy);
    case CUPTI_ACTIVITY_KIND_MEMCPY2:
      return ConvertTimed(record, &ActivityConverter::ConvertPeerCopy);
    case CUPTI_ACTIVITY_KIND_MEMSET:
      return ConvertTimed(record, &ActivityConverter::ConvertMemset);
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
      return ConvertTimed(record, &ActivityConverter::ConvertSync);
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER: {
      const auto& a = *reinterpret_cast<const CUpti_ActivityAPI*>(record);
      const ApiDomain domain = record->kind == CUPTI_ACTIVITY_KIND_RUNTIME
                                   ? ApiDomain::kRuntime
                                   : ApiDomain::kDriver;
      return ConvertApi(a, domain);
    }
    case CUPTI_ACTIVITY_KIND_OVERHEAD:
      return ConvertTimed(record, &ActivityConverter::ConvertOverhead);
    case CUPTI_ACTIVITY_KIND_MEMORY2: {
      const auto& m = *reinterpret_cast<const CUpti_ActivityMemory4*>(record);
      if (m.timestamp == 0) break;
      ConvertMemory(m);
      return true;
    }
    case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION:
      ConvertExternalCorrelation(
          *reinterpret_cast<const CUpti_ActivityExternalCorrelation*>(record));
      return true;
    case CUPTI_ACTIVITY_KIND_DEVICE:
      ConvertDevice(*reinterpret_cast<const CUpti_ActivityDevice5*>(record));
      return true;
    case CUPTI_ACTIVITY_KIND_CONTEXT:
      ConvertContext(*reinterpret_cast<const CUpti_ActivityContext3*>(record));
      return true;
    case CUPTI_ACTIVITY_KIND_STREAM:
      ConvertStream(*reinterpret_cast<const CUpti_ActivityStream*>(record));
      return true;
    default:
      ++stats_.other_kinds;
      return true;
  }
  ++stats_.zero_timestamps;
  return false;
}

// The frame every timed event shares; the caller's `write_fields` adds the
// fields after start_delta and duration_ns.
template <typename Activity, typename WriteFields>
void ActivityConverter::AppendTimedEvent(EventBatchEncoder& batch,
                                         uint32_t batch_field,
                                         const Activity& a,
                                         uint64_t& kind_count,
                                         WriteFields write_fields) {
  wire::WireWriter& w = batch.writer();
  const int64_t delta = batch.Delta(batch_field, Ts(a.start));
  const auto nested = w.BeginNested(batch_field);
  w.Sint(timed_field::kStartDelta, delta);
  w.Uint(timed_field::kDuration, Duration(a.start, a.end));
  write_fields(w);
  w.EndNested(nested);
  batch.CountEvent();
  ++kind_count;
}

void ActivityConverter::ConvertKernel(const CUpti_ActivityKernel10& k) {
  using namespace kernel;
  const uint32_t name_id = KernelNameId(k.name);
  AppendTimedEvent(
      GpuBatch(), kBatchKernels, k, stats_.kernels, [&](wire::WireWriter& w) {
        w.Uint(kNameId, name_id);
        w.Uint(kDeviceId, k.deviceId);
        w.Uint(kStreamId, k.streamId);
        w.Uint(kCorrelationId, k.correlationId);
        w.Uint(kContextId, k.contextId);
        w.Uint(kGridX, static_cast<uint32_t>(k.gridX));
        w.Uint(kGridY, static_cast<uint32_t>(k.gridY));
        w.Uint(kGridZ, static_cast<uint32_t>(k.gridZ));
        w.Uint(kBlockX, static_cast<uint32_t>(k.blockX));
        w.Uint(kBlockY, static_cast<uint32_t>(k.blockY));
        w.Uint(kBlockZ, static_cast<uint32_t>(k.blockZ));
        w.Uint(kRegisters, k.registersPerThread);
        w.Uint(kStaticShared, static_cast<uint32_t>(k.staticSharedMemory));
        w.Uint(kDynamicShared, static_cast<uint32_t>(k.dynamicSharedMemory));
        w.Uint(kGraphId, k.graphId);
        w.Uint(kGraphNodeId, k.graphNodeId);
        if (k.queued != CUPTI_TIMESTAMP_UNKNOWN && k.queued != ~uint64_t{0}) {
          w.Uint(kQueued, Ts(k.queued));
        }
        if (k.submitted != CUPTI_TIMESTAMP_UNKNOWN &&
            k.submitted != ~uint64_t{0}) {
          w.Uint(kSubmitted, Ts(k.submitted));
        }
      });
}

// Plain and peer copies share every field but the peer device ids.
template <typename Copy>
void ActivityConverter::WriteCopy(const Copy& m, uint32_t copy_kind) {
  using namespace memcpy_field;
  AppendTimedEvent(
      GpuBatch(), kBatchMemcpys, m, stats_.memcpys, [&](wire::WireWriter& w) {
        w.Uint(kDeviceId, m.deviceId);
        w.Uint(kStreamId, m.streamId);
        w.Uint(kCorrelationId, m.correlationId);
        w.Uint(kContextId, m.contextId);
        w.Uint(kBytes, m.bytes);
        w.Uint(kCopyKind, copy_kind);
        w.Uint(kSrcKind, MemoryKind(m.srcKind));
        w.Uint(kDstKind, MemoryKind(m.dstKind));
        w.Bool(kAsync, (m.flags & CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC) != 0);
        if constexpr (requires { m.srcDeviceId; }) {
          // Device 0 is a valid peer: written even when zero.
          w.UintAlways(kSrcDevice, m.srcDeviceId);
          w.UintAlways(kDstDevice, m.dstDeviceId);
        }
        w.Uint(kGraphId, m.graphId);
      });
}

void ActivityConverter::ConvertMemcpy(const CUpti_ActivityMemcpy6& m) {
  WriteCopy(m, m.copyKind <= CUPTI_ACTIVITY_MEMCPY_KIND_PTOP ? m.copyKind : 0);
}

void ActivityConverter::ConvertPeerCopy(const CUpti_ActivityMemcpyPtoP4& m) {
  WriteCopy(m, m.copyKind <= CUPTI_ACTIVITY_MEMCPY_KIND_PTOP
                   ? uint32_t{m.copyKind}
                   : uint32_t{CUPTI_ACTIVITY_MEMCPY_KIND_PTOP});
}

void ActivityConverter::ConvertMemset(const CUpti_ActivityMemset4& m) {
  using namespace memset_field;
  AppendTimedEvent(
      GpuBatch(), kBatchMemsets, m, stats_.memsets, [&](wire::WireWriter& w) {
        w.Uint(kDeviceId, m.deviceId);
        w.Uint(kStreamId, m.streamId);
        w.Uint(kCorrelationId, m.correlationId);
        w.Uint(kContextId, m.contextId);
        w.Uint(kBytes, m.bytes);
        w.Uint(kValue, m.value);
        w.Uint(kMemoryKind, MemoryKind(m.memoryKind));
        w.Bool(kAsync, (m.flags & CUPTI_ACTIVITY_FLAG_MEMSET_ASYNC) != 0);
        w.Uint(kGraphId, m.graphId);
      });
}

void ActivityConverter::ConvertSync(const CUpti_ActivitySynchronization2& s) {
  using namespace sync_field;
  AppendTimedEvent(
      GpuBatch(), kBatchSyncs, s, stats_.syncs, [&](wire::WireWriter& w) {
        const auto type = static_cast<uint32_t>(s.type);
        w.Uint(kType,
               type <= CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE
                   ? type
                   : 0);
        w.Uint(kStreamId, s.streamId);
        w.Uint(kContextId, s.contextId);
        w.Uint(kCorrelationId, s.correlationId);
        if (s.cudaEventId != CUPTI_SYNCHRONIZATION_INVALID_VALUE) {
          w.Uint(kEventId, s.cudaEventId);
        }
        w.Uint(kDeviceId, CudaOrdinalForContext(s.contextId));
      });
}

bool ActivityConverter::ConvertApi(const CUpti_ActivityAPI& a,
                                   ApiDomain domain) {
  const ApiClass api_class = table_.Class(domain, a.cbid);
  if (api_class == ApiClass::kNoise) {
    ++stats_.noise_skipped;
    return true;
  }
  if (callbacks_own_blocking_calls_ && IsCallbackOwned(api_class)) {
    ++stats_.callback_owned;
    return true;
  }
  if (a.start == 0 || a.end == 0) {
    ++stats_.zero_timestamps;
    return false;
  }
  using namespace api_field;
  const uint32_t name_id = table_.NameId(domain, a.cbid, sink_);
  AppendTimedEvent(ApiBatch(a.threadId), kBatchApiCalls, a, stats_.api_calls,
                   [&](wire::WireWriter& w) {
                     w.Uint(kNameId, name_id);
                     w.Uint(kCorrelationId, a.correlationId);
                     w.Uint(kDomain, static_cast<uint32_t>(domain));
                     w.Uint(kCallbackId, a.cbid);
                     w.Int(kReturnCode, static_cast<int32_t>(a.returnValue));
                   });
  return true;
}

void ActivityConverter::ConvertOverhead(const CUpti_ActivityOverhead3& o) {
  using namespace overhead_field;
  uint64_t object_id = 0;
  switch (o.objectKind) {
    case CUPTI_ACTIVITY_OBJECT_PROCESS:
      object_id = o.objectId.pt.processId;
      break;
    case CUPTI_ACTIVITY_OBJECT_THREAD:
      object_id = o.objectId.pt.threadId;
      break;
    case CUPTI_ACTIVITY_OBJECT_DEVICE:
      object_id = o.objectId.dcs.deviceId;
      break;
    case CUPTI_ACTIVITY_OBJECT_CONTEXT:
      object_id = o.objectId.dcs.contextId;
      break;
    case CUPTI_ACTIVITY_OBJECT_STREAM:
      object_id = o.objectId.dcs.streamId;
      break;
    default:
      break;
  }
  AppendTimedEvent(GpuBatch(), kBatchOverheads, o, stats_.overheads,
                   [&](wire::WireWriter& w) {
                     w.Uint(kKind, static_cast<uint32_t>(o.overheadKind));
                     w.Uint(kObjectKind, static_cast<uint32_t>(o.objectKind));
                     w.Uint(kObjectId, object_id);
                   });
}

void ActivityConverter::ConvertMemory(const CUpti_ActivityMemory4& m) {
  using namespace memory_field;
  EventBatchEncoder& batch = GpuBatch();
  wire::WireWriter& w = batch.writer();
  const int64_t delta = batch.Delta(kBatchMemory, Ts(m.timestamp));
  const auto nested = w.BeginNested(kBatchMemory);
  w.Sint(kTsDelta, delta);
  w.Bool(kIsFree,
         m.memoryOperationType == CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE);
  w.Uint(kBytes, m.bytes);
  w.Uint(kAddress, m.address);
  w.Uint(kDeviceId, m.deviceId);
  w.Uint(kStreamId, m.streamId);
  w.Uint(kMemoryKind, MemoryKind(m.memoryKind));
  w.Uint(kCorrelationId, m.correlationId);
  w.EndNested(nested);
  batch.CountEvent();
  ++stats_.memory;
}

void ActivityConverter::ConvertExternalCorrelation(
    const CUpti_ActivityExternalCorrelation& e) {
  EventBatchEncoder& batch = GpuBatch();
  wire::WireWriter& w = batch.writer();
  const auto nested = w.BeginNested(kBatchExternalCorrelations);
  w.Uint(1, static_cast<uint32_t>(e.externalKind));
  w.Uint(2, e.externalId);
  w.Uint(3, e.correlationId);
  w.EndNested(nested);
  batch.CountEvent();
  ++stats_.external_correlations;
}

ActivityConverter::DeviceFacts* ActivityConverter::FindDevice(
    uint32_t device_id) {
  if (device_id >= kMaxDevices || !devices_[device_id].known) return nullptr;
  return &devices_[device_id];
}

uint32_t ActivityConverter::CudaOrdinalForContext(uint32_t context_id) const {
  for (size_t i = 0; i < context_count_; ++i) {
    if (contexts_[i].context_id == context_id) return contexts_[i].device_id;
  }
  return 0;
}

void ActivityConverter::ConvertDevice(const CUpti_ActivityDevice5& d) {
  ++stats_.devices;
  if (d.id >= kMaxDevices) return;
  DeviceFacts& f = devices_[d.id];
  f.known = true;
  f.device_id = d.id;
  f.sm_count = d.numMultiprocessors;
  f.cc_major = d.computeCapabilityMajor;
  f.cc_minor = d.computeCapabilityMinor;
  f.global_memory = d.globalMemorySize;
  f.core_clock_khz = d.coreClockRate;
  // CUPTI reports the bandwidth in kB/s (1000 bytes).
  f.bandwidth_bytes_per_s = d.globalMemoryBandwidth * 1000;
  std::snprintf(f.name, sizeof f.name, "%s", d.name != nullptr ? d.name : "");
  const auto* u = reinterpret_cast<const unsigned char*>(d.uuid.bytes);
  std::snprintf(f.uuid, sizeof f.uuid,
                "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
                "%02x%02x%02x%02x%02x%02x",
                u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9],
                u[10], u[11], u[12], u[13], u[14], u[15]);
  SubmitDeviceInfo(f, 0);
  // Contexts seen before their device get their packet now.
  for (size_t i = 0; i < context_count_; ++i) {
    if (contexts_[i].device_id == d.id) {
      SubmitDeviceInfo(f, contexts_[i].context_id);
    }
  }
}

void ActivityConverter::ConvertContext(const CUpti_ActivityContext3& c) {
  ++stats_.contexts;
  bool seen = false;
  for (size_t i = 0; i < context_count_; ++i) {
    if (contexts_[i].context_id == c.contextId) {
      contexts_[i].device_id = c.deviceId;
      seen = true;
    }
  }
  if (!seen && context_count_ < kMaxContexts) {
    contexts_[context_count_++] = ContextFacts{c.contextId, c.deviceId};
  }
  if (const DeviceFacts* f = FindDevice(c.deviceId)) {
    SubmitDeviceInfo(*f, c.contextId);
  }
}

void ActivityConverter::ConvertStream(const CUpti_ActivityStream& s) {
  using namespace stream_field;
  ++stats_.streams;
  // The message (at most 26 bytes) is written first, then framed as the
  // packet's field: its length is known, nothing is moved.
  uint8_t body_bytes[48];
  wire::WireWriter body(body_bytes, sizeof body_bytes);
  body.Uint(kContextId, s.contextId);
  body.UintAlways(kStreamId, s.streamId);
  // CUPTI stores the signed CUDA priority (-5 .. 0) in an unsigned field.
  body.Sint(kPriority, static_cast<int32_t>(s.priority));
  body.Uint(kKind, StreamKindOf(static_cast<uint32_t>(s.flag)));
  body.Uint(kCorrelationId, s.correlationId);
  uint8_t bytes[64];
  wire::WireWriter w(bytes, sizeof bytes);
  w.String(preload::kPacketStream,
           std::string_view(reinterpret_cast<const char*>(body.data()),
                            body.size()));
  if (!body.overflowed() && !w.overflowed() &&
      sink_.submit_packet(w.data(), w.size())) {
    ++stats_.packets;
  } else {
    ++stats_.packets_dropped;
  }
}

void ActivityConverter::SubmitDeviceInfo(const DeviceFacts& f,
                                         uint32_t context_id) {
  using namespace device_field;
  uint8_t bytes[512];
  wire::WireWriter w(bytes, sizeof bytes);
  const auto nested = w.BeginNested(preload::kPacketDevice, 2);
  // Device 0 is the common case and must read back as set.
  w.UintAlways(kDeviceId, f.device_id);
  w.String(kName, f.name);
  w.Uint(kSmCount, f.sm_count);
  w.String(kPciBusId, f.pci_bus_id);
  w.Uint(kGlobalMemory, f.global_memory);
  w.Uint(kCcMajor, f.cc_major);
  w.Uint(kCcMinor, f.cc_minor);
  w.String(kUuid, f.uuid);
  w.Uint(kCoreClock, f.core_clock_khz);
  w.Uint(kBandwidth, f.bandwidth_bytes_per_s);
  w.Uint(kContextId, context_id);
  w.EndNested(nested);
  if (!w.overflowed() && sink_.submit_packet(w.data(), w.size())) {
    ++stats_.packets;
  } else {
    ++stats_.packets_dropped;
  }
}

uint32_t ActivityConverter::KernelNameId(const char* name) {
  if (name == nullptr) return 0;
  const uint32_t mask = kNameCacheSlots - 1;
  uint32_t slot = PointerHash(name) & mask;
  for (uint32_t probe = 0; probe < 16; ++probe) {
    NameSlot& s = name_cache_[(slot + probe) & mask];
    if (s.key == name) return s.id;
    if (s.key == nullptr) {
      // First sight of this function: demangle once (out of the hot path).
      int status = 0;
      char* demangled = abi::__cxa_demangle(name, nullptr, nullptr, &status);
      const uint32_t id = sink_.intern_string(
          status == 0 && demangled != nullptr ? std::string_view(demangled)
                                              : std::string_view(name));
      std::free(demangled);
      if (id != 0) {  // 0: not interned (table full); try again next time
        s.key = name;
        s.id = id;
      }
      return id;
    }
  }
  // Cache neighbourhood full: intern without caching.
  return sink_.intern_string(name);
}

}  // namespace feedprof::cupti
