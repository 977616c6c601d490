// NVTX ranges and marks from an Nsight Systems export (NVTX_EVENTS).
//
// One table holds every NVTX call, told apart by eventType: push/pop ranges,
// start/end ranges, marks, domain creation and thread naming. The numbers
// are taken from the export's ENUM_NSYS_EVENT_TYPE table when it has one
// (newer nsys), else from the values older releases used (the same ones so
// far). A range's text is either inline (`text`) or a registered string
// (`textId` -> StringIds); its domain name comes from the domain-creation
// row with the same domainId. Nesting depth is not stored by nsys and is
// computed per thread from the intervals.
#include <algorithm>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "absl/strings/str_cat.h"
#include "nsight/nsight_enums.h"
#include "nsight/nsight_import_context.h"
#include "timeline/range_nesting.h"

namespace feedprof::nsight {
namespace {

struct NvtxEventTypes {
  std::vector<int64_t> ranges = {59, 60, 70, 71};  // push/pop, start/end
  std::vector<int64_t> marks = {34, 65};
  int64_t domain_create = 75;
};

NvtxEventTypes LoadEventTypes(ImportContext& ctx) {
  NvtxEventTypes types;
  constexpr std::string_view kEnum = "ENUM_NSYS_EVENT_TYPE";
  if (!ctx.db.HasTable(kEnum) || !ctx.db.HasColumn(kEnum, "name")) {
    return types;
  }
  auto stmt = ctx.db.Prepare(ctx.db.BuildSelect(kEnum, {{{"id"}}, {{"name"}}}));
  if (!stmt.ok()) return types;
  NvtxEventTypes found;
  found.ranges.clear();
  found.marks.clear();
  found.domain_create = -1;
  while (stmt->Step()) {
    const int64_t id = stmt->Int64(0);
    const std::string_view name = stmt->Text(1);
    if (name == "NvtxPushPopRange" || name == "NvtxStartEndRange" ||
        name == "NvtxtPushPopRange" || name == "NvtxtStartEndRange") {
      found.ranges.push_back(id);
    } else if (name == "NvtxMark" || name == "NvtxtMark") {
      found.marks.push_back(id);
    } else if (name == "NvtxDomainCreate") {
      found.domain_create = id;
    }
  }
  if (!stmt->status().ok() || found.ranges.empty()) return types;
  return found;
}

bool Contains(const std::vector<int64_t>& values, int64_t v) {
  return std::find(values.begin(), values.end(), v) != values.end();
}

// domainId -> interned domain name, from the domain-creation rows.
std::unordered_map<int64_t, StringId> ReadDomains(ImportContext& ctx,
                                                  const NvtxEventTypes& types) {
  std::unordered_map<int64_t, StringId> domains;
  if (types.domain_create < 0) return domains;
  auto stmt = ctx.db.Prepare(ctx.db.BuildSelect(
      kNvtxTable, {{{"domainId"}}, {{"text"}}, {{"textId"}}},
      absl::StrCat("WHERE eventType = ", types.domain_create)));
  if (!stmt.ok()) return domains;
  while (stmt->Step()) {
    if (stmt->IsNull(0)) continue;
    const StringId name = stmt->IsNull(1)
                              ? ctx.strings.Intern(stmt->OptionalInt64(2))
                              : ctx.timeline.strings.Intern(stmt->Text(1));
    domains[stmt->Int64(0)] = name;
  }
  return domains;
}

enum NvtxColumn {
  kStart,
  kEnd,
  kEventType,
  kText,
  kTextId,
  kGlobalTid,
  kDomainId
};

}  // namespace

void ReadNvtx(ImportContext& ctx) {
  if (!ctx.db.HasTable(kNvtxTable)) return;
  ctx.timeline.available.ranges = true;
  const NvtxEventTypes types = LoadEventTypes(ctx);
  const auto domains = ReadDomains(ctx, types);
  const std::string sql = ctx.db.BuildSelect(kNvtxTable, {{{"start"}},
                                                          {{"end"}},
                                                          {{"eventType"}},
                                                          {{"text"}},
                                                          {{"textId"}},
                                                          {{"globalTid"}},
                                                          {{"domainId"}}});
  Timeline& tl = ctx.timeline;
  ctx.ReserveForRows(tl.ranges, {kNvtxTable});  // marks are few
  const size_t first_range = tl.ranges.size();
  size_t unterminated = 0;
  ctx.ForEachRow(kNvtxTable, sql, [&](const Statement& stmt) {
    const int64_t type = stmt.Int64(kEventType);
    const bool is_range = Contains(types.ranges, type);
    if (!is_range && !Contains(types.marks, type)) return;
    const StringId name = stmt.IsNull(kText)
                              ? ctx.strings.Intern(stmt.OptionalInt64(kTextId))
                              : tl.strings.Intern(stmt.Text(kText));
    StringId domain = 0;
    if (!stmt.IsNull(kDomainId)) {
      auto it = domains.find(stmt.Int64(kDomainId));
      if (it != domains.end()) domain = it->second;
    }
    const GlobalThreadId id = DecodeGlobalId(stmt.Int64(kGlobalTid));
    if (is_range) {
      if (stmt.IsNull(kEnd)) {
        ++unterminated;
        return;
      }
      Range range;
      range.start = stmt.Int64(kStart);
      range.end = stmt.Int64(kEnd);
      range.pid = id.pid;
      range.tid = id.tid;
      range.name = name;
      range.domain = domain;
      range.source = RangeSource::kNvtx;
      tl.ranges.push_back(range);
    } else {
      Mark mark;
      mark.ts = stmt.Int64(kStart);
      mark.pid = id.pid;
      mark.tid = id.tid;
      mark.name = name;
      mark.domain = domain;
      tl.marks.push_back(mark);
    }
  });
  timeline::SortAndNestRanges(std::span(tl.ranges).subspan(first_range));
  if (unterminated > 0) {
    tl.warnings.push_back(absl::StrCat(
        unterminated,
        " NVTX ranges were still open when the capture stopped and were "
        "left out"));
  }
}

}  // namespace feedprof::nsight
