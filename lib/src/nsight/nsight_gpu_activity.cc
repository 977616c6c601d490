// Kernels, copies, memsets and synchronization records from an Nsight
// Systems export.
//
// The GPU-side tables carry a packed process id (globalPid), the device,
// stream and correlation id of the launching call. Copies use nsys's memory
// kind numbering (one lower than CUPTI's) and are translated here. Sync
// records are classified by the API call they belong to, joined by
// correlation id, because the syncType column has been renumbered between
// nsys versions (one and the same cudaStreamSynchronize is 2 in one release
// and 3 in another); the trace's own enum table is only a fallback.
#include <algorithm>
#include <array>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>

#include "absl/strings/str_cat.h"
#include "common/stable_time_sort.h"
#include "nsight/nsight_enums.h"
#include "nsight/nsight_import_context.h"

namespace feedprof::nsight {
namespace {

// Common leading columns of every GPU activity query.
enum CommonColumn {
  kStart,
  kEnd,
  kDevice,
  kStream,
  kCorrelation,
  kPid,
  kFirstSpecific
};

std::vector<WantedColumn> CommonColumns() {
  return {{{"start"}},    {{"end"}},           {{"deviceId"}},
          {{"streamId"}}, {{"correlationId"}}, {{"globalPid", "globalTid"}}};
}

// Fills the common columns of a GpuOp or a SyncRecord.
template <typename Record>
void ReadCommon(const Statement& stmt, Record& record) {
  record.start = stmt.Int64(kStart);
  record.end = stmt.IsNull(kEnd) ? record.start : stmt.Int64(kEnd);
  record.device = static_cast<int32_t>(stmt.Int64(kDevice));
  record.stream = stmt.IsNull(kStream) ? -1 : stmt.Int64(kStream);
  record.correlation = static_cast<uint64_t>(stmt.Int64(kCorrelation));
  record.pid = DecodeGlobalId(stmt.Int64(kPid)).pid;
}

void ReadKernels(ImportContext& ctx) {
  if (!ctx.db.HasTable(kKernelTable)) return;
  auto columns = CommonColumns();
  for (const char* c :
       {"demangledName", "shortName", "mangledName", "gridX", "gridY", "gridZ",
        "blockX", "blockY", "blockZ", "graphId"}) {
    columns.push_back({{c}});
  }
  const std::string sql = ctx.db.BuildSelect(kKernelTable, columns);
  ctx.ForEachRow(kKernelTable, sql, [&](const Statement& stmt) {
    GpuOp op;
    ReadCommon(stmt, op);
    op.kind = GpuOpKind::kKernel;
    for (int c = kFirstSpecific; c < kFirstSpecific + 3 && op.name == 0; ++c) {
      op.name = ctx.strings.Intern(stmt.OptionalInt64(c));
    }
    LaunchShape shape;
    for (int i = 0; i < 3; ++i) {
      shape.grid[i] = static_cast<uint32_t>(stmt.Int64(kFirstSpecific + 3 + i));
      shape.block[i] =
          static_cast<uint32_t>(stmt.Int64(kFirstSpecific + 6 + i));
    }
    shape.graph_id = static_cast<uint32_t>(stmt.Int64(kFirstSpecific + 9));
    op.launch = ctx.timeline.launch_shapes.Intern(shape);
    ctx.timeline.gpu_ops.push_back(op);
  });
}

void ReadMemcpys(ImportContext& ctx) {
  if (!ctx.db.HasTable(kMemcpyTable)) return;
  auto columns = CommonColumns();
  for (const char* c : {"bytes", "copyKind", "srcKind", "dstKind"}) {
    columns.push_back({{c}});
  }
  std::array<StringId, 11> names{};
  for (size_t i = 0; i < names.size(); ++i) {
    names[i] = ctx.timeline.strings.Intern(
        timeline::CopyOpName(static_cast<CopyKind>(i)));
  }
  const std::string sql = ctx.db.BuildSelect(kMemcpyTable, columns);
  ctx.ForEachRow(kMemcpyTable, sql, [&](const Statement& stmt) {
    GpuOp op;
    ReadCommon(stmt, op);
    op.kind = GpuOpKind::kMemcpy;
    op.bytes = static_cast<uint64_t>(stmt.Int64(kFirstSpecific));
    op.copy_kind = CopyKindFromNsys(stmt.OptionalInt64(kFirstSpecific + 1));
    op.src_kind = MemoryKindFromNsys(stmt.OptionalInt64(kFirstSpecific + 2));
    op.dst_kind = MemoryKindFromNsys(stmt.OptionalInt64(kFirstSpecific + 3));
    op.name = names[static_cast<size_t>(op.copy_kind)];
    ctx.timeline.gpu_ops.push_back(op);
  });
}

void ReadMemsets(ImportContext& ctx) {
  if (!ctx.db.HasTable(kMemsetTable)) return;
  auto columns = CommonColumns();
  columns.push_back({{"bytes"}});
  columns.push_back({{"memKind"}});
  const StringId name = ctx.timeline.strings.Intern("Memset");
  const std::string sql = ctx.db.BuildSelect(kMemsetTable, columns);
  ctx.ForEachRow(kMemsetTable, sql, [&](const Statement& stmt) {
    GpuOp op;
    ReadCommon(stmt, op);
    op.kind = GpuOpKind::kMemset;
    op.bytes = static_cast<uint64_t>(stmt.Int64(kFirstSpecific));
    op.dst_kind = MemoryKindFromNsys(stmt.OptionalInt64(kFirstSpecific + 1));
    op.name = name;
    ctx.timeline.gpu_ops.push_back(op);
  });
}

// The API call that launched the work with (pid, correlation), if any.
ApiCall* FindApiCall(ImportContext& ctx, int32_t pid, uint64_t correlation) {
  if (correlation == 0) return nullptr;
  const uint32_t i =
      ctx.api_by_correlation.Find(CorrelationKey(pid, correlation));
  if (i == common::CorrelationIndex::kNone) return nullptr;
  return &ctx.timeline.api_calls[i];
}

// Marks async copies/memsets and gives their launching calls a byte count.
void JoinOpsToApiCalls(ImportContext& ctx) {
  Timeline& tl = ctx.timeline;
  std::unordered_map<StringId, bool> is_async;
  for (GpuOp& op : tl.gpu_ops) {
    if (op.kind == GpuOpKind::kKernel) {
      op.async = true;
      continue;
    }
    ApiCall* call = FindApiCall(ctx, op.pid, op.correlation);
    if (call == nullptr) continue;
    auto [entry, inserted] = is_async.try_emplace(call->name, false);
    if (inserted) {
      entry->second =
          tl.strings.Get(call->name).find("Async") != std::string_view::npos;
    }
    op.async = entry->second;
    call->bytes = op.bytes < ApiCall::kMaxBytes - call->bytes
                      ? call->bytes + op.bytes
                      : ApiCall::kMaxBytes;
  }
}

}  // namespace

void ReadGpuActivity(ImportContext& ctx) {
  ctx.ReserveForRows(ctx.timeline.gpu_ops,
                     {kKernelTable, kMemcpyTable, kMemsetTable});
  ReadKernels(ctx);
  ReadMemcpys(ctx);
  ReadMemsets(ctx);
  common::StableSortByKey(std::span<GpuOp>(ctx.timeline.gpu_ops),
                          [](const GpuOp& e) { return e.start; });
  JoinOpsToApiCalls(ctx);
}

void ReadSyncRecords(ImportContext& ctx) {
  if (!ctx.db.HasTable(kSyncTable)) return;
  // The trace's own labels for syncType values, used only when a record has
  // no correlated API call.
  std::unordered_map<int64_t, SyncType> enum_types;
  if (ctx.db.HasTable("ENUM_CUPTI_SYNC_TYPE")) {
    auto stmt = ctx.db.Prepare(ctx.db.BuildSelect(
        "ENUM_CUPTI_SYNC_TYPE", {{{"id"}}, {{"label", "name"}}}));
    if (stmt.ok()) {
      while (stmt->Step()) {
        enum_types[stmt->Int64(0)] = SyncTypeFromEnumLabel(stmt->Text(1));
      }
    }
  }
  auto columns = CommonColumns();
  columns.push_back({{"syncType"}});
  size_t by_enum = 0;
  size_t unknown = 0;
  const std::string sql = ctx.db.BuildSelect(kSyncTable, columns);
  ctx.ReserveForRows(ctx.timeline.syncs, {kSyncTable});
  ctx.ForEachRow(kSyncTable, sql, [&](const Statement& stmt) {
    SyncRecord sync;
    ReadCommon(stmt, sync);
    if (const ApiCall* call = FindApiCall(ctx, sync.pid, sync.correlation)) {
      sync.tid = call->tid;
      sync.type = SyncTypeFromApiName(ctx.timeline.strings.Get(call->name));
    }
    if (sync.type == SyncType::kUnknown && !stmt.IsNull(kFirstSpecific)) {
      auto it = enum_types.find(stmt.Int64(kFirstSpecific));
      if (it != enum_types.end() && it->second != SyncType::kUnknown) {
        sync.type = it->second;
        ++by_enum;
      }
    }
    if (sync.type == SyncType::kUnknown) ++unknown;
    ctx.timeline.syncs.push_back(sync);
  });
  common::StableSortByKey(std::span<SyncRecord>(ctx.timeline.syncs),
                          [](const SyncRecord& e) { return e.start; });
  if (by_enum > 0) {
    ctx.timeline.warnings.push_back(absl::StrCat(
        by_enum,
        " sync records have no matching CUDA API call; their kind was taken "
        "from the export's syncType column, which nsys versions number "
        "differently"));
  }
  if (unknown > 0) {
    ctx.timeline.warnings.push_back(
        absl::StrCat(unknown,
                     " sync records could not be classified (no matching CUDA "
                     "API call and no usable syncType)"));
  }
}

}  // namespace feedprof::nsight
