#include "nsight/nsight_call_sites.h"

#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>

#include "nsight/nsight_enums.h"

namespace feedprof::nsight {
namespace {

constexpr size_t kMaxFrames = 16;

struct RawFrame {
  int64_t symbol = -1;  // StringIds id; -1 when NULL
  int64_t module = -1;
};

bool Contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

bool IsCudaLibrary(std::string_view module) {
  return Contains(module, "libcupti") || Contains(module, "libcuda.so") ||
         Contains(module, "libcudart") || Contains(module, "libnvToolsExt");
}

// The runtime's inline wrappers compiled into the application:
// "cudaError cudaMalloc<double>(double**, unsigned long)".
bool IsRuntimeWrapper(std::string_view symbol) {
  for (std::string_view prefix : {"cudaError_t ", "cudaError "}) {
    if (symbol.starts_with(prefix)) symbol.remove_prefix(prefix.size());
  }
  return symbol.starts_with("cuda");
}

// The function name of a frame symbol: "cudaMalloc" for "cudaMalloc",
// "cudaLaunchKernel" for "cudaLaunchKernel_v7000".
bool NamesFunction(std::string_view symbol, std::string_view api) {
  return !api.empty() && StripVersionSuffix(symbol) == api;
}

}  // namespace

std::unordered_map<int64_t, uint32_t> ReadCudaCallSites(
    ImportContext& ctx, const std::vector<CallchainRef>& refs) {
  std::unordered_map<int64_t, uint32_t> site_of;
  if (refs.empty() || !ctx.db.HasTable(kCallChainsTable)) return site_of;
  std::unordered_set<int64_t> wanted;
  for (const CallchainRef& r : refs) {
    wanted.insert(r.callchain);
    wanted.insert(r.callchain + 1);
  }
  std::unordered_map<int64_t, std::vector<RawFrame>> chains;
  const std::string sql = ctx.db.BuildSelect(
      kCallChainsTable,
      {{{"id"}}, {{"stackDepth"}}, {{"symbol"}}, {{"module"}}},
      "ORDER BY 1, 2");
  ctx.ForEachRow(kCallChainsTable, sql, [&](const Statement& stmt) {
    const int64_t id = stmt.Int64(0);
    if (wanted.count(id) == 0) return;
    RawFrame frame;
    if (!stmt.IsNull(2)) frame.symbol = stmt.Int64(2);
    if (!stmt.IsNull(3)) frame.module = stmt.Int64(3);
    chains[id].push_back(frame);
  });

  // Which numbering: does chain c or chain c + 1 contain the call itself?
  auto names_call = [&](int64_t chain, StringId api) {
    auto it = chains.find(chain);
    if (it == chains.end()) return false;
    const std::string_view api_name = ctx.timeline.strings.Get(api);
    for (const RawFrame& f : it->second) {
      if (f.symbol >= 0 && NamesFunction(ctx.strings.Text(f.symbol), api_name))
        return true;
    }
    return false;
  };
  size_t same = 0;
  size_t shifted = 0;
  for (const CallchainRef& r : refs) {
    same += names_call(r.callchain, r.api_name) ? 1 : 0;
    shifted += names_call(r.callchain + 1, r.api_name) ? 1 : 0;
  }
  const int64_t offset = shifted > same ? 1 : 0;

  for (const CallchainRef& r : refs) {
    if (site_of.count(r.callchain) != 0) continue;
    auto it = chains.find(r.callchain + offset);
    if (it == chains.end()) continue;
    CallSite site;
    for (const RawFrame& f : it->second) {
      if (site.frames.size() >= kMaxFrames) break;
      const std::string_view symbol =
          f.symbol >= 0 ? ctx.strings.Text(f.symbol) : std::string_view();
      const bool leading = site.frames.empty();
      if (leading && f.symbol >= 0 && IsRuntimeWrapper(symbol)) continue;
      if (leading && f.module >= 0 &&
          IsCudaLibrary(ctx.strings.Text(f.module))) {
        continue;
      }
      Frame frame;
      frame.kind = FrameKind::kNative;
      frame.function = ctx.strings.Intern(
          f.symbol >= 0 ? std::optional<int64_t>(f.symbol) : std::nullopt);
      frame.module = ctx.strings.Intern(
          f.module >= 0 ? std::optional<int64_t>(f.module) : std::nullopt);
      site.frames.push_back(frame);
    }
    site_of[r.callchain] =
        static_cast<uint32_t>(ctx.timeline.call_sites.size());
    ctx.timeline.call_sites.push_back(std::move(site));
  }
  return site_of;
}

}  // namespace feedprof::nsight
