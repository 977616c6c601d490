// CUDA runtime and driver calls from an Nsight Systems export.
//
// Why the de-duplication: when nsys collects CUDA backtraces it records a
// call twice with one correlation id, nested: an outer row (eventClass 67,
// "CUDA backtrace", the unsuffixed name, the callchain id) around the inner
// row CUPTI timed (eventClass 0/1, the version-suffixed name). Counting both
// would double launch counts and time in API calls. One row is kept per
// (thread, correlation id): the inner, CUPTI-timed one, because it is the
// same measurement an export without backtraces carries (so two exports of
// one run agree) and the outer row adds the profiler's own stack-walk time.
// The outer row's callchain is moved onto the kept call as its call site
// (see nsight_call_sites.h).
#include <algorithm>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "nsight/nsight_call_sites.h"
#include "nsight/nsight_enums.h"
#include "nsight/nsight_import_context.h"

namespace feedprof::nsight {
namespace {

constexpr int64_t kNoCallchain = -1;

struct ApiRow {
  ApiCall call;
  int64_t callchain = kNoCallchain;
  uint8_t preference = 0;  // 0: the CUPTI-timed row; 1: a wrapper row
};

// Columns wanted from RUNTIME/DRIVER, in result order.
enum ApiColumn {
  kStart,
  kEnd,
  kEventClass,
  kGlobalTid,
  kCorrelation,
  kNameId,
  kNameText,
  kCallchain
};

void ReadApiTable(ImportContext& ctx, std::string_view table,
                  ApiDomain default_domain, std::vector<ApiRow>& rows) {
  SqliteDatabase& db = ctx.db;
  if (!db.HasTable(table)) return;
  const std::string sql = db.BuildSelect(table, {{{"start"}},
                                                 {{"end"}},
                                                 {{"eventClass"}},
                                                 {{"globalTid"}},
                                                 {{"correlationId"}},
                                                 {{"nameId"}},
                                                 {{"name"}},
                                                 {{"callchainId"}}});
  ctx.ForEachRow(table, sql, [&](const Statement& stmt) {
    ApiRow row;
    ApiCall& call = row.call;
    call.start = stmt.Int64(kStart);
    call.end = stmt.Int64(kEnd);
    const GlobalThreadId id = DecodeGlobalId(stmt.Int64(kGlobalTid));
    call.pid = id.pid;
    call.tid = id.tid;
    call.correlation = static_cast<uint64_t>(stmt.Int64(kCorrelation));
    bool had_suffix = false;
    if (!stmt.IsNull(kNameId)) {
      call.name = ctx.strings.InternApiName(stmt.Int64(kNameId), &had_suffix);
    }
    if (call.name == 0 && !stmt.IsNull(kNameText)) {
      // The non-standard `name` text column some tools add to old exports.
      const std::string_view text = stmt.Text(kNameText);
      const std::string_view stripped = StripVersionSuffix(text);
      had_suffix = stripped.size() != text.size();
      call.name = ctx.timeline.strings.Intern(stripped);
    }
    const std::optional<int64_t> event_class = stmt.OptionalInt64(kEventClass);
    call.domain =
        ApiDomainFor(ctx.timeline.strings.Get(call.name), event_class);
    if (call.domain == ApiDomain::kUnknown) call.domain = default_domain;
    if (!stmt.IsNull(kCallchain)) row.callchain = stmt.Int64(kCallchain);
    const bool cupti_timed = event_class.has_value()
                                 ? (*event_class == kEventClassCudaRuntime ||
                                    *event_class == kEventClassCudaDriver)
                                 : had_suffix;
    row.preference = cupti_timed ? 0 : 1;
    rows.push_back(row);
  });
}

// Keeps one row per (pid, tid, correlation id); see the file comment.
size_t RemoveNestedDuplicates(std::vector<ApiRow>& rows) {
  auto key = [](const ApiRow& r) {
    return std::make_tuple(r.call.pid, r.call.tid, r.call.correlation);
  };
  std::sort(rows.begin(), rows.end(), [&](const ApiRow& a, const ApiRow& b) {
    const auto ka = key(a);
    const auto kb = key(b);
    if (ka != kb) return ka < kb;
    if (a.preference != b.preference) return a.preference < b.preference;
    const TimeNs da = a.call.end - a.call.start;
    const TimeNs db = b.call.end - b.call.start;
    if (da != db) return da < db;  // the inner (shorter) call
    return a.call.start < b.call.start;
  });
  size_t out = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (out > 0 && rows[i].call.correlation != 0 &&
        key(rows[i]) == key(rows[out - 1])) {
      if (rows[out - 1].callchain == kNoCallchain) {
        rows[out - 1].callchain = rows[i].callchain;
      }
      continue;
    }
    rows[out++] = rows[i];
  }
  const size_t removed = rows.size() - out;
  rows.resize(out);
  return removed;
}

}  // namespace

void ReadApiCalls(ImportContext& ctx) {
  std::vector<ApiRow> rows;
  ctx.ReserveForRows(rows, {kRuntimeTable, kDriverTable});
  ReadApiTable(ctx, kRuntimeTable, ApiDomain::kRuntime, rows);
  ReadApiTable(ctx, kDriverTable, ApiDomain::kDriver, rows);
  const size_t removed = RemoveNestedDuplicates(rows);
  if (removed > 0) {
    ctx.timeline.warnings.push_back(absl::StrCat(
        removed,
        " nested duplicate CUDA API rows (nsys backtrace records with the "
        "correlation id of the call they wrap) were merged into their "
        "calls"));
  }
  std::vector<CallchainRef> refs;
  for (const ApiRow& row : rows) {
    if (row.callchain != kNoCallchain) {
      refs.push_back({row.callchain, row.call.name});
    }
  }
  const auto site_of = ReadCudaCallSites(ctx, refs);
  std::sort(rows.begin(), rows.end(), [](const ApiRow& a, const ApiRow& b) {
    return a.call.start < b.call.start;
  });
  Timeline& tl = ctx.timeline;
  tl.api_calls.reserve(tl.api_calls.size() + rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    ApiRow& row = rows[i];
    if (row.callchain != kNoCallchain) {
      auto it = site_of.find(row.callchain);
      if (it != site_of.end()) row.call.call_site = it->second;
    }
    tl.api_calls.push_back(row.call);
    if ((i & 0xFFF) == 0) ctx.FaultInAhead();
  }
  // The first call (in start order) with each (pid, correlation).
  const std::vector<ApiCall>& calls = tl.api_calls;
  ctx.api_by_correlation =
      common::CorrelationIndex::OfFirstCalls(calls.size(), [&calls](size_t i) {
        return calls[i].correlation == 0
                   ? uint64_t{0}
                   : CorrelationKey(calls[i].pid, calls[i].correlation);
      });
  if (tl.call_sites.size() > 1) tl.available.call_sites = true;
}

}  // namespace feedprof::nsight
