// Names and small helpers of the report model (feedprof/analysis_report.h).
#include "feedprof/analysis_report.h"

namespace feedprof {

const char* GapBucketLabel(int bucket) {
  static constexpr const char* kLabels[kGapBuckets] = {
      "le_10us", "le_100us", "le_1ms", "le_10ms", "gt_10ms"};
  return bucket >= 0 && bucket < kGapBuckets ? kLabels[bucket] : "";
}

int GapBucketOf(TimeNs gap_ns) {
  for (int i = 0; i < kGapBuckets - 1; ++i) {
    if (gap_ns <= kGapBucketUpperNs[static_cast<size_t>(i)]) return i;
  }
  return kGapBuckets - 1;
}

const char* CodeFrameKindName(CodeFrameKind kind) {
  switch (kind) {
    case CodeFrameKind::kUserCode:
      return "user_code";
    case CodeFrameKind::kPython:
      return "python";
    case CodeFrameKind::kOperator:
      return "operator";
    case CodeFrameKind::kCudaCall:
      return "cuda_call";
    case CodeFrameKind::kNative:
      return "native";
  }
  return "native";
}

const char* ThreadRoleName(ThreadRole role) {
  switch (role) {
    case ThreadRole::kLaunching:
      return "launching";
    case ThreadRole::kDataLoader:
      return "dataloader";
    case ThreadRole::kOther:
      return "other";
  }
  return "other";
}

const char* IoRoleName(IoRole role) {
  switch (role) {
    case IoRole::kMain:
      return "main";
    case IoRole::kWorkers:
      return "workers";
  }
  return "main";
}

const char* IoPatternName(IoPattern pattern) {
  switch (pattern) {
    case IoPattern::kUnknown:
      return "unknown";
    case IoPattern::kNetworkFs:
      return "network_fs";
    case IoPattern::kSmallReads:
      return "small_reads";
    case IoPattern::kLargeReads:
      return "large_reads";
    case IoPattern::kPageCache:
      return "page_cache";
  }
  return "unknown";
}

const RoleIo* IoReport::Role(IoRole role) const {
  for (const RoleIo& r : roles) {
    if (r.role == role) return &r;
  }
  return nullptr;
}

const char* CodeProfileBasisName(CodeProfileBasis basis) {
  switch (basis) {
    case CodeProfileBasis::kStackTimeline:
      return "stack_timeline";
    case CodeProfileBasis::kStackSamples:
      return "stack_samples";
  }
  return "stack_timeline";
}

const char* VerdictClassName(VerdictClass verdict) {
  switch (verdict) {
    case VerdictClass::kInconclusive:
      return "inconclusive";
    case VerdictClass::kLaunchBound:
      return "launch_bound";
    case VerdictClass::kPreprocessingBound:
      return "preprocessing_bound";
    case VerdictClass::kIoBound:
      return "io_bound";
    case VerdictClass::kSyncBound:
      return "sync_bound";
    case VerdictClass::kTransferBound:
      return "transfer_bound";
    case VerdictClass::kLatencyBound:
      return "latency_bound";
    case VerdictClass::kGpuBound:
      return "gpu_bound";
  }
  return "inconclusive";
}

const char* VerdictClassName(const std::optional<VerdictClass>& verdict) {
  return verdict ? VerdictClassName(*verdict) : "";
}

const char* VerdictBasisName(VerdictBasis basis) {
  switch (basis) {
    case VerdictBasis::kRun:
      return "run";
    case VerdictBasis::kLateRank:
      return "late_rank";
  }
  return "run";
}

const char* WhatIfScenarioName(WhatIfScenarioId id) {
  switch (id) {
    case WhatIfScenarioId::kInputReady:
      return "input_ready";
    case WhatIfScenarioId::kCheaperLaunches:
      return "cheaper_launches";
    case WhatIfScenarioId::kRemoveSync:
      return "remove_sync";
    case WhatIfScenarioId::kRemoveAllSyncs:
      return "remove_all_syncs";
    case WhatIfScenarioId::kPinCopies:
      return "pin_copies";
    case WhatIfScenarioId::kFasterGpu:
      return "faster_gpu";
  }
  return "input_ready";
}

const char* WhatIfBasisName(WhatIfBasis basis) {
  return basis == WhatIfBasis::kSteps ? "steps" : "span";
}

const char* CollectiveOpName(CollectiveOp op) {
  switch (op) {
    case CollectiveOp::kOther:
      return "collective";
    case CollectiveOp::kAllReduce:
      return "all_reduce";
    case CollectiveOp::kAllGather:
      return "all_gather";
    case CollectiveOp::kReduceScatter:
      return "reduce_scatter";
    case CollectiveOp::kAllToAll:
      return "all_to_all";
    case CollectiveOp::kSendRecv:
      return "send_recv";
    case CollectiveOp::kBroadcast:
      return "broadcast";
    case CollectiveOp::kReduce:
      return "reduce";
  }
  return "collective";
}

const char* StragglerKindName(StragglerKind kind) {
  switch (kind) {
    case StragglerKind::kNone:
      return "none";
    case StragglerKind::kSingle:
      return "single";
    case StragglerKind::kFew:
      return "few";
    case StragglerKind::kRotating:
      return "rotating";
  }
  return "none";
}

const char* NoGpuCauseName(NoGpuCause cause) {
  switch (cause) {
    case NoGpuCause::kUnknown:
      break;
    case NoGpuCause::kNoGpuOnMachine:
      return "no_gpu_on_machine";
    case NoGpuCause::kNoDriver:
      return "no_driver";
    case NoGpuCause::kCollectionOff:
      return "collection_off";
    case NoGpuCause::kCudaNotUsed:
      return "cuda_not_used";
    case NoGpuCause::kNoGpuWork:
      return "no_gpu_work";
    case NoGpuCause::kOutsideWindow:
      return "outside_window";
    case NoGpuCause::kPreWindowOnly:
      return "pre_window_only";
  }
  return "unknown";
}

const char* CopyDirectionName(CopyDirection direction) {
  switch (direction) {
    case CopyDirection::kHtoD:
      return "HtoD";
    case CopyDirection::kDtoH:
      return "DtoH";
    case CopyDirection::kDtoD:
      return "DtoD";
    case CopyDirection::kPtoP:
      return "PtoP";
    case CopyDirection::kOther:
      break;
  }
  return "other";
}

const char* IdleCauseName(IdleCause cause) {
  switch (cause) {
    case IdleCause::kHostWaitSync:
      return "host_wait_sync";
    case IdleCause::kHostWaitCudaApi:
      return "host_wait_cuda_api";
    case IdleCause::kHostWaitOnCpu:
      return "host_wait_on_cpu";
    case IdleCause::kHostWaitOffCpuIo:
      return "host_wait_off_cpu_io";
    case IdleCause::kHostWaitOffCpuWait:
      return "host_wait_off_cpu_wait";
    case IdleCause::kHostWaitUnknown:
      return "host_wait_unknown";
    case IdleCause::kLaunchOverhead:
      return "launch_overhead";
    case IdleCause::kQueueLatency:
      return "queue_latency";
    case IdleCause::kUnattributed:
      return "unattributed";
  }
  return "";
}

TimeNs IdleByCause::HostWait() const {
  TimeNs sum = 0;
  for (int c = 0; c <= static_cast<int>(IdleCause::kHostWaitUnknown); ++c) {
    sum += ns[static_cast<size_t>(c)];
  }
  return sum;
}

TimeNs IdleByCause::Total() const {
  TimeNs sum = 0;
  for (TimeNs v : ns) sum += v;
  return sum;
}

const char* SyncKindName(SyncKind kind) {
  return kind == SyncKind::kExplicit ? "explicit" : "hidden";
}

const SyncPoint* TopHostSyncPoint(const std::vector<SyncPoint>& points) {
  for (const SyncPoint& p : points) {
    if (p.blocks_host) return &p;
  }
  return nullptr;
}

}  // namespace feedprof
