#include "nsight/nsight_stack_samples.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "nsight/nsight_enums.h"
#include "timeline/time_limits.h"

namespace feedprof::nsight {
namespace {

// Deeper stacks keep their innermost frames: a damaged chain of millions
// of rows must not become a call site of millions of frames.
constexpr size_t kMaxFrames = 256;

struct RawSample {
  int64_t global_tid = 0;
  TimeNs ts = 0;
  std::optional<int64_t> chain;  // COMPOSITE_EVENTS.id
  uint32_t stack = 0;            // call-site index, once the chains are read
};

struct ChainSite {
  int64_t chain = 0;
  uint32_t site = 0;
};

// Rows that were not as the schema says, one warning per kind.
struct Irregular {
  size_t null_frame_rows = 0;    // NULL sample id, depth, symbol or module
  size_t chains_with_gaps = 0;   // a depth skipped or repeated
  size_t samples_no_chain = 0;   // no SAMPLING_CALLCHAINS rows of their id
  size_t samples_no_thread = 0;  // NULL or zero globalTid
  size_t samples_bad_time = 0;   // NULL start, or beyond ±2^62 ns
};

// Interns the stacks of `wanted` chains (sorted, distinct) as call sites,
// identical stacks once, and returns (chain id, call-site index) by id.
std::vector<ChainSite> ReadChains(ImportContext& ctx,
                                  const std::vector<int64_t>& wanted,
                                  Irregular& irregular) {
  std::vector<ChainSite> sites;
  if (wanted.empty() || !ctx.db.HasTable(kSamplingCallchainsTable)) {
    return sites;
  }
  Timeline& tl = ctx.timeline;
  // Key: the frames' (function, module) string ids, 8 bytes a frame.
  std::unordered_map<std::string, uint32_t> site_of_stack;
  std::string key;
  CallSite site;
  int64_t chain = 0;
  bool open = false;
  bool gap = false;
  int64_t next_depth = 0;

  auto close = [&] {
    if (!open) return;
    open = false;
    if (gap) ++irregular.chains_with_gaps;
    auto [it, inserted] = site_of_stack.try_emplace(
        key, static_cast<uint32_t>(tl.call_sites.size()));
    if (inserted) tl.call_sites.push_back(std::move(site));
    sites.push_back({chain, it->second});
    site = CallSite();
    key.clear();
  };

  const std::string sql = ctx.db.BuildSelect(
      kSamplingCallchainsTable,
      {{{"id"}}, {{"stackDepth"}}, {{"symbol"}}, {{"module"}}},
      "ORDER BY 1, 2");
  ctx.ForEachRow(kSamplingCallchainsTable, sql, [&](const Statement& stmt) {
    if (stmt.IsNull(0) || stmt.IsNull(1)) {
      ++irregular.null_frame_rows;
      return;
    }
    const int64_t id = stmt.Int64(0);
    const int64_t depth = stmt.Int64(1);
    if (!open || id != chain) {
      close();
      if (!std::binary_search(wanted.begin(), wanted.end(), id)) return;
      open = true;
      chain = id;
      gap = depth != 0;
    } else if (depth < next_depth) {
      gap = true;  // a depth given twice: the first row stands
      return;
    } else if (depth > next_depth) {
      gap = true;
    }
    next_depth =
        depth < std::numeric_limits<int64_t>::max() ? depth + 1 : depth;
    if (site.frames.size() >= kMaxFrames) return;
    if (stmt.IsNull(2) || stmt.IsNull(3)) ++irregular.null_frame_rows;
    Frame& frame = site.frames.emplace_back();
    frame.kind = FrameKind::kNative;
    frame.function = ctx.strings.Intern(stmt.OptionalInt64(2));
    frame.module = ctx.strings.Intern(stmt.OptionalInt64(3));
    char bytes[2 * sizeof(StringId)];
    std::memcpy(bytes, &frame.function, sizeof(StringId));
    std::memcpy(bytes + sizeof(StringId), &frame.module, sizeof(StringId));
    key.append(bytes, sizeof(bytes));
  });
  close();
  return sites;
}

// The sampling period: the median of the positive gaps between consecutive
// samples of a thread, over all threads; 0 when no thread has two samples.
// `samples` are sorted by thread, then time.
TimeNs MedianSampleGap(const std::vector<RawSample>& samples) {
  std::vector<TimeNs> gaps;
  for (size_t i = 1; i < samples.size(); ++i) {
    if (samples[i].global_tid != samples[i - 1].global_tid) continue;
    const TimeNs gap = samples[i].ts - samples[i - 1].ts;
    if (gap > 0) gaps.push_back(gap);
  }
  if (gaps.empty()) return 0;
  auto middle = gaps.begin() + static_cast<std::ptrdiff_t>(gaps.size() / 2);
  std::nth_element(gaps.begin(), middle, gaps.end());
  return *middle;
}

void Warn(ImportContext& ctx, size_t count, const std::string& what) {
  if (count == 0) return;
  ctx.timeline.warnings.push_back(
      absl::StrCat(ctx.db.path(), ": ", count, " ", what));
}

}  // namespace

void ReadStackSamples(ImportContext& ctx) {
  if (!ctx.db.HasTable(kCompositeEventsTable)) return;
  Timeline& tl = ctx.timeline;
  std::set<int32_t> traced_pids;
  for (const Process& p : tl.processes) traced_pids.insert(p.pid);
  if (traced_pids.empty()) return;

  // The samples of the traced processes. Those of other processes (a
  // system-wide capture, the launcher of a process tree) are left out, as
  // their scheduling events are.
  Irregular irregular;
  std::vector<RawSample> samples;
  ctx.ReserveForRows(samples, {kCompositeEventsTable});
  const std::string sql = ctx.db.BuildSelect(
      kCompositeEventsTable, {{{"id"}}, {{"start"}}, {{"globalTid"}}});
  ctx.ForEachRow(kCompositeEventsTable, sql, [&](const Statement& stmt) {
    if (stmt.IsNull(1) || !timeline::TimeInRange(stmt.Int64(1))) {
      ++irregular.samples_bad_time;
      return;
    }
    const std::optional<int64_t> global_tid = stmt.OptionalInt64(2);
    const GlobalThreadId id =
        global_tid.has_value() ? DecodeGlobalId(*global_tid) : GlobalThreadId{};
    if (id.pid == 0 || id.tid == 0) {
      ++irregular.samples_no_thread;
      return;
    }
    if (traced_pids.count(id.pid) == 0) return;
    samples.push_back({*global_tid, stmt.Int64(1), stmt.OptionalInt64(0), 0});
  });

  std::vector<int64_t> wanted;
  wanted.reserve(samples.size());
  for (const RawSample& s : samples) {
    if (s.chain.has_value()) wanted.push_back(*s.chain);
  }
  std::sort(wanted.begin(), wanted.end());
  wanted.erase(std::unique(wanted.begin(), wanted.end()), wanted.end());
  const std::vector<ChainSite> sites = ReadChains(ctx, wanted, irregular);
  for (RawSample& s : samples) {
    auto it = s.chain.has_value()
                  ? std::lower_bound(sites.begin(), sites.end(), *s.chain,
                                     [](const ChainSite& c, int64_t chain) {
                                       return c.chain < chain;
                                     })
                  : sites.end();
    if (it != sites.end() && it->chain == *s.chain) {
      s.stack = it->site;
    } else {
      ++irregular.samples_no_chain;
    }
  }

  std::sort(samples.begin(), samples.end(),
            [](const RawSample& a, const RawSample& b) {
              return a.global_tid != b.global_tid ? a.global_tid < b.global_tid
                                                  : a.ts < b.ts;
            });
  const TimeNs weight = MedianSampleGap(samples);

  std::set<std::pair<int32_t, int32_t>> known;
  for (const Thread& t : tl.threads) known.emplace(t.pid, t.tid);
  const size_t first_new = tl.stack_samples.size();
  tl.stack_samples.reserve(first_new + samples.size());
  for (const RawSample& s : samples) {
    const GlobalThreadId id = DecodeGlobalId(s.global_tid);
    tl.stack_samples.push_back({s.ts, id.pid, id.tid, s.stack, weight});
    if (known.emplace(id.pid, id.tid).second) {
      Thread& t = tl.threads.emplace_back();
      t.pid = id.pid;
      t.tid = id.tid;
      t.is_main = id.pid == id.tid;
    }
  }
  auto by_time = [](const StackSample& a, const StackSample& b) {
    if (a.ts != b.ts) return a.ts < b.ts;
    return a.pid != b.pid ? a.pid < b.pid : a.tid < b.tid;
  };
  const auto added =
      tl.stack_samples.begin() + static_cast<std::ptrdiff_t>(first_new);
  std::sort(added, tl.stack_samples.end(), by_time);
  std::inplace_merge(tl.stack_samples.begin(), added, tl.stack_samples.end(),
                     by_time);

  Warn(ctx, irregular.samples_bad_time,
       "CPU samples in COMPOSITE_EVENTS have no time or one beyond ±2^62 ns; "
       "they were skipped");
  Warn(ctx, irregular.samples_no_thread,
       "CPU samples in COMPOSITE_EVENTS name no thread (globalTid NULL or "
       "without a process or thread id); they were skipped");
  Warn(ctx, irregular.samples_no_chain,
       "CPU samples in COMPOSITE_EVENTS have no call chain in "
       "SAMPLING_CALLCHAINS; they were kept with an unknown stack");
  Warn(ctx, irregular.null_frame_rows,
       "rows of SAMPLING_CALLCHAINS have a NULL sample id, depth, symbol or "
       "module; frames without a symbol or module were kept as unknown, rows "
       "without a sample id or depth were skipped");
  Warn(ctx, irregular.chains_with_gaps,
       "sampled stacks in SAMPLING_CALLCHAINS skip or repeat a stack depth; "
       "their frames were kept in depth order");
}

}  // namespace feedprof::nsight
