#include "fpt/event_batch_decoder.h"

#include "fpt/api_call_correlation.h"

namespace feedprof::fpt {
namespace {

// Streams that do not apply are written as this id.
constexpr uint32_t kNoStream = 0xFFFFFFFFu;

MemoryKind ToMemoryKind(int kind) {
  return kind >= 0 && kind <= static_cast<int>(MemoryKind::kManagedStatic)
             ? static_cast<MemoryKind>(kind)
             : MemoryKind::kUnknown;
}

CopyKind ToCopyKind(int kind) {
  return kind >= 0 && kind <= static_cast<int>(CopyKind::kPtoP)
             ? static_cast<CopyKind>(kind)
             : CopyKind::kUnknown;
}

ApiDomain ToApiDomain(trace::ApiDomain domain) {
  switch (domain) {
    case trace::API_DOMAIN_RUNTIME:
      return ApiDomain::kRuntime;
    case trace::API_DOMAIN_DRIVER:
      return ApiDomain::kDriver;
    default:
      return ApiDomain::kUnknown;
  }
}

SyncType ToSyncType(trace::SyncType type) {
  switch (type) {
    case trace::SYNC_TYPE_EVENT_SYNCHRONIZE:
      return SyncType::kEventSynchronize;
    case trace::SYNC_TYPE_STREAM_WAIT_EVENT:
      return SyncType::kStreamWaitEvent;
    case trace::SYNC_TYPE_STREAM_SYNCHRONIZE:
      return SyncType::kStreamSynchronize;
    case trace::SYNC_TYPE_CONTEXT_SYNCHRONIZE:
      return SyncType::kContextSynchronize;
    default:
      return SyncType::kUnknown;
  }
}

}  // namespace

bool EventTimes::InRange(TimeNs start, uint64_t duration) {
  if (InTimeRange(start) &&
      duration <= static_cast<uint64_t>(timeline::kMaxAbsTimeNs - start)) {
    return true;
  }
  ++out_of_range;
  return false;
}

void EventTimes::Merge(const EventTimes& later) {
  out_of_range += later.out_of_range;
  span.Add(later.span);
}

void DecodeEventBatch(const trace::EventBatch& batch, int32_t pid,
                      const EventVectors& out, EventTimes* times) {
  const auto tid = static_cast<int32_t>(batch.tid());
  const auto base = static_cast<TimeNs>(batch.base_ts_ns());

  // Each repeated field is its own delta chain starting at base_ts_ns.
  TimeNs previous = base;
  ApiCallCorrelationChain correlations(batch);
  for (const trace::ApiCall& call : batch.api_calls()) {
    previous = AddDelta(previous, call.start_delta());
    // Every call advances the correlation chain, a skipped one too.
    const uint64_t correlation = correlations.Next(call);
    if (!times->InRange(previous, call.duration_ns())) continue;
    ApiCall& e = out.api_calls->emplace_back();
    e.start = previous;
    e.end = AddDuration(previous, call.duration_ns());
    e.correlation = correlation;
    e.bytes = ApiCall::ClampBytes(call.bytes());
    e.pid = pid;
    e.tid = tid;
    e.name = call.name_id();
    e.call_site = call.call_site_id();
    e.domain = ToApiDomain(call.domain());
    times->span.Add(e.start, e.end);
  }

  previous = base;
  for (const trace::NvtxRange& range : batch.ranges()) {
    previous = AddDelta(previous, range.start_delta());
    if (!times->InRange(previous, range.duration_ns())) continue;
    Range& e = out.ranges->emplace_back();
    e.start = previous;
    e.end = AddDuration(previous, range.duration_ns());
    e.pid = pid;
    e.tid = tid;
    e.name = range.name_id();
    e.domain = range.domain_id();
    e.depth = range.depth();
    e.source = RangeSource::kNvtx;
    times->span.Add(e.start, e.end);
  }

  previous = base;
  for (const trace::NvtxMark& mark : batch.marks()) {
    previous = AddDelta(previous, mark.ts_delta());
    if (!times->InRange(previous, 0)) continue;
    Mark& e = out.marks->emplace_back();
    e.ts = previous;
    e.pid = pid;
    e.tid = tid;
    e.name = mark.name_id();
    e.domain = mark.domain_id();
    times->span.Add(e.ts, e.ts);
  }

  // Neighbouring kernels mostly share a shape: the last one is kept to
  // spare the table's lookup.
  LaunchShape last_shape;
  uint32_t last_launch = 0;
  auto launch_of = [&](const LaunchShape& shape) {
    if (!(shape == last_shape)) {
      last_shape = shape;
      last_launch = out.launch_shapes->Intern(shape);
    }
    return last_launch;
  };

  previous = base;
  for (const trace::Kernel& kernel : batch.kernels()) {
    previous = AddDelta(previous, kernel.start_delta());
    if (!times->InRange(previous, kernel.duration_ns())) continue;
    GpuOp& e = out.gpu_ops->emplace_back();
    e.start = previous;
    e.end = AddDuration(previous, kernel.duration_ns());
    e.correlation = kernel.correlation_id();
    e.stream = kernel.stream_id();
    e.pid = pid;
    e.device = static_cast<int32_t>(kernel.device_id());
    e.name = kernel.name_id();  // file-local until the section ends
    e.kind = GpuOpKind::kKernel;
    e.async = true;
    e.launch =
        launch_of({{kernel.grid_x(), kernel.grid_y(), kernel.grid_z()},
                   {kernel.block_x(), kernel.block_y(), kernel.block_z()},
                   kernel.graph_id()});
    times->span.Add(e.start, e.end);
  }

  previous = base;
  for (const trace::Memcpy& copy : batch.memcpys()) {
    previous = AddDelta(previous, copy.start_delta());
    if (!times->InRange(previous, copy.duration_ns())) continue;
    GpuOp& e = out.gpu_ops->emplace_back();
    e.start = previous;
    e.end = AddDuration(previous, copy.duration_ns());
    e.correlation = copy.correlation_id();
    e.bytes = copy.bytes();
    e.stream = copy.stream_id();
    e.pid = pid;
    e.device = static_cast<int32_t>(copy.device_id());
    e.kind = GpuOpKind::kMemcpy;
    e.copy_kind = ToCopyKind(copy.copy_kind());
    e.src_kind = ToMemoryKind(copy.src_kind());
    e.dst_kind = ToMemoryKind(copy.dst_kind());
    e.async = copy.async();
    if (copy.graph_id() != 0) e.launch = launch_of({{}, {}, copy.graph_id()});
    times->span.Add(e.start, e.end);
  }

  previous = base;
  for (const trace::Memset& set : batch.memsets()) {
    previous = AddDelta(previous, set.start_delta());
    if (!times->InRange(previous, set.duration_ns())) continue;
    GpuOp& e = out.gpu_ops->emplace_back();
    e.start = previous;
    e.end = AddDuration(previous, set.duration_ns());
    e.correlation = set.correlation_id();
    e.bytes = set.bytes();
    e.stream = set.stream_id();
    e.pid = pid;
    e.device = static_cast<int32_t>(set.device_id());
    e.kind = GpuOpKind::kMemset;
    e.dst_kind = ToMemoryKind(set.memory_kind());
    e.async = set.async();
    if (set.graph_id() != 0) e.launch = launch_of({{}, {}, set.graph_id()});
    times->span.Add(e.start, e.end);
  }

  previous = base;
  for (const trace::SyncRecord& sync : batch.syncs()) {
    previous = AddDelta(previous, sync.start_delta());
    if (!times->InRange(previous, sync.duration_ns())) continue;
    SyncRecord& e = out.syncs->emplace_back();
    e.start = previous;
    e.end = AddDuration(previous, sync.duration_ns());
    e.correlation = sync.correlation_id();
    e.stream = sync.stream_id() == kNoStream
                   ? int64_t{-1}
                   : static_cast<int64_t>(sync.stream_id());
    e.pid = pid;
    e.tid = tid;
    e.device = static_cast<int32_t>(sync.device_id());
    e.type = ToSyncType(sync.type());
    times->span.Add(e.start, e.end);
  }
  // Overhead, memory and external-correlation records have no place in the
  // timeline model yet; `feedprof dump` shows them.
}

void DecodedEvents::Clear() {
  api_calls.clear();
  ranges.clear();
  marks.clear();
  gpu_ops.clear();
  syncs.clear();
  launch_shapes = LaunchShapeTable();
  times = EventTimes();
}

}  // namespace feedprof::fpt
