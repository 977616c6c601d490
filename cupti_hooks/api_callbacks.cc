#include "cupti_hooks/api_callbacks.h"

#include "cupti_hooks/reentrancy_guard.h"

namespace feedprof::cupti {
namespace {

// Calls of this thread that entered and have not exited yet.
struct OpenCall {
  uint64_t correlation_id;
  uint64_t start_ns;
  uint64_t bytes;
  uint32_t call_site_id;
};
struct OpenCalls {
  OpenCall calls[ApiCallbackHandler::kMaxDepth];
  uint32_t depth;
};
thread_local OpenCalls t_open = {};

template <typename Params>
uint64_t Field(const void* params, size_t Params::*member) {
  return static_cast<const Params*>(params)->*member;
}

}  // namespace

uint64_t ApiCallbackHandler::BytesOf(ApiDomain domain, CUpti_CallbackId cbid,
                                     const void* params) {
  if (params == nullptr) return 0;
  if (domain == ApiDomain::kRuntime) {
    switch (cbid) {
      case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020:
      case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_ptds_v7000:
        return Field(params, &cudaMemcpy_v3020_params::count);
      case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020:
      case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_ptsz_v7000:
        return Field(params, &cudaMemcpyAsync_v3020_params::count);
      case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyPeer_v4000:
        return Field(params, &cudaMemcpyPeer_v4000_params::count);
      case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyPeerAsync_v4000:
        return Field(params, &cudaMemcpyPeerAsync_v4000_params::count);
      case CUPTI_RUNTIME_TRACE_CBID_cudaMemset_v3020:
      case CUPTI_RUNTIME_TRACE_CBID_cudaMemset_ptds_v7000:
        return Field(params, &cudaMemset_v3020_params::count);
      case CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020:
        return Field(params, &cudaMalloc_v3020_params::size);
      case CUPTI_RUNTIME_TRACE_CBID_cudaMallocHost_v3020:
        return Field(params, &cudaMallocHost_v3020_params::size);
      case CUPTI_RUNTIME_TRACE_CBID_cudaHostAlloc_v3020:
        return Field(params, &cudaHostAlloc_v3020_params::size);
      case CUPTI_RUNTIME_TRACE_CBID_cudaMallocManaged_v6000:
        return Field(params, &cudaMallocManaged_v6000_params::size);
      default:
        return 0;
    }
  }
  switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2:
      return Field(params, &cuMemcpyHtoD_v2_params::ByteCount);
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2:
      return Field(params, &cuMemcpyDtoH_v2_params::ByteCount);
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoD_v2:
      return Field(params, &cuMemcpyDtoD_v2_params::ByteCount);
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2:
      return Field(params, &cuMemcpyHtoDAsync_v2_params::ByteCount);
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2:
      return Field(params, &cuMemcpyDtoHAsync_v2_params::ByteCount);
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoDAsync_v2:
      return Field(params, &cuMemcpyDtoDAsync_v2_params::ByteCount);
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpy:
      return Field(params, &cuMemcpy_params::ByteCount);
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync:
      return Field(params, &cuMemcpyAsync_params::ByteCount);
    case CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2:
      return Field(params, &cuMemAlloc_v2_params::bytesize);
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocHost_v2:
      return Field(params, &cuMemAllocHost_v2_params::bytesize);
    case CUPTI_DRIVER_TRACE_CBID_cuMemHostAlloc:
      return Field(params, &cuMemHostAlloc_params::bytesize);
    default:
      return 0;
  }
}

void ApiCallbackHandler::OnCallback(CUpti_CallbackDomain domain,
                                    CUpti_CallbackId cbid, const void* data) {
  bool flush = false;
  {
    ReentrancyGuard guard;
    if (!guard.entered()) {
      reentrant_.fetch_add(1, std::memory_order_relaxed);
      return;
    }
    if (data == nullptr) return;
    switch (domain) {
      case CUPTI_CB_DOMAIN_RUNTIME_API:
      case CUPTI_CB_DOMAIN_DRIVER_API:
        flush =
            OnApi(domain == CUPTI_CB_DOMAIN_RUNTIME_API ? ApiDomain::kRuntime
                                                        : ApiDomain::kDriver,
                  cbid, *static_cast<const CUpti_CallbackData*>(data));
        break;
      case CUPTI_CB_DOMAIN_RESOURCE: {
        const auto& resource = *static_cast<const CUpti_ResourceData*>(data);
        if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING) {
          flush = true;
        } else if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_CREATED &&
                   context_created_ != nullptr) {
          context_created_(resource.context);
        }
        break;
      }
      default:
        break;
    }
  }
  if (flush && flush_ != nullptr) {
    flushes_.fetch_add(1, std::memory_order_relaxed);
    flush_();
  }
}

bool ApiCallbackHandler::OnApi(ApiDomain domain, CUpti_CallbackId cbid,
                               const CUpti_CallbackData& data) {
  const ApiClass api_class = table_.Class(domain, cbid);
  if (!IsCallbackOwned(api_class)) return false;
  OpenCalls& open = t_open;
  if (data.callbackSite == CUPTI_API_ENTER) {
    if (open.depth >= kMaxDepth) return api_class == ApiClass::kFlushBefore;
    // A call inside a recorded call shares the outer call's site.
    uint32_t site = 0;
    if (open.depth > 0) {
      site = open.calls[open.depth - 1].call_site_id;
    } else if (call_sites_ != nullptr) {
      site = call_sites_->CaptureAndIntern();
    }
    // The start is taken after the capture: the blocked time is the call's.
    open.calls[open.depth++] =
        OpenCall{data.correlationId, sink_.now_ns(),
                 BytesOf(domain, cbid, data.functionParams), site};
    return api_class == ApiClass::kFlushBefore;
  }
  const uint64_t end = sink_.now_ns();
  if (open.depth == 0 ||
      open.calls[open.depth - 1].correlation_id != data.correlationId) {
    unmatched_exits_.fetch_add(1, std::memory_order_relaxed);
    // Drop a stale entry so one lost exit cannot wedge the stack.
    if (open.depth > 0) --open.depth;
    return false;
  }
  const OpenCall call = open.calls[--open.depth];
  preload::ApiCallRecord record{};
  record.start_ns = call.start_ns;
  record.end_ns = end;
  record.correlation_id = call.correlation_id;
  record.bytes = call.bytes;
  record.name_id = table_.NameId(domain, cbid, sink_);
  record.call_site_id = call.call_site_id;
  record.callback_id = cbid;
  record.return_code =
      data.functionReturnValue != nullptr
          ? *static_cast<const int32_t*>(data.functionReturnValue)
          : 0;
  record.domain = static_cast<uint8_t>(domain);
  sink_.record_api_call(record);
  recorded_.fetch_add(1, std::memory_order_relaxed);
  if (call.call_site_id != 0) {
    with_call_site_.fetch_add(1, std::memory_order_relaxed);
  }
  return false;
}

CallbackStats ApiCallbackHandler::stats() const {
  CallbackStats s;
  s.recorded = recorded_.load(std::memory_order_relaxed);
  s.with_call_site = with_call_site_.load(std::memory_order_relaxed);
  s.reentrant = reentrant_.load(std::memory_order_relaxed);
  s.unmatched_exits = unmatched_exits_.load(std::memory_order_relaxed);
  s.flushes = flushes_.load(std::memory_order_relaxed);
  return s;
}

}  // namespace feedprof::cupti
