// The ranks table (Report::ranks): each rank's processes' devices, steps
// and host threads summed into one row, and the rank with the longest
// median step marked.
#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include "analysis/analysis_passes.h"
#include "analysis/quantile.h"
#include "analysis/time_sum.h"

namespace feedprof::analysis {
namespace {

bool Holds(const std::vector<int32_t>& pids, int32_t pid) {
  return std::find(pids.begin(), pids.end(), pid) != pids.end();
}

}  // namespace

RankReport RankFigures(const Report& report, int32_t rank,
                       const std::vector<int32_t>& pids) {
  RankReport r;
  r.rank = rank;
  r.pids = pids;
  for (const DeviceReport& d : report.devices) {
    if (d.span_ns <= 0 || !Holds(pids, d.pid)) continue;
    AddTime(&r.span_ns, d.span_ns);
    AddTime(&r.busy_ns, d.busy_ns);
    AddTime(&r.communication_ns, d.communication_ns);
    AddTime(&r.exposed_communication_ns, d.exposed_communication_ns);
  }
  r.idle_share = r.span_ns > 0 ? 1.0 - static_cast<double>(r.busy_ns) /
                                           static_cast<double>(r.span_ns)
                               : 0.0;
  std::vector<TimeNs> steps;
  for (const StepInfo& s : report.steps.steps) {
    if (Holds(pids, s.pid)) steps.push_back(s.end - s.start);
  }
  r.median_step_ns = Quantile(steps, 0.5);
  for (const ThreadReport& t : report.host.threads) {
    if (Holds(pids, t.pid)) {
      AddTime(&r.sync_blocked_ns, t.sync_blocked_ns);
    }
  }
  return r;
}

std::vector<RankReport> ComputeRanks(const Timeline& tl, const Report& report) {
  std::map<int32_t, int32_t> rank_of_pid;  // pid → rank
  for (const Process& p : tl.processes) rank_of_pid[p.pid] = p.rank;
  // Ranked processes group by rank; others stand alone by pid.
  std::map<std::pair<bool, int32_t>, std::pair<int32_t, std::vector<int32_t>>>
      groups;  // key → (rank, pids)
  for (const DeviceReport& d : report.devices) {
    if (d.span_ns <= 0) continue;
    auto it = rank_of_pid.find(d.pid);
    const int32_t rank = it != rank_of_pid.end() ? it->second : -1;
    const auto key =
        rank >= 0 ? std::make_pair(true, rank) : std::make_pair(false, d.pid);
    auto& [group_rank, pids] = groups[key];
    group_rank = rank;
    if (!Holds(pids, d.pid)) pids.push_back(d.pid);
  }
  if (groups.size() < 2) return {};
  std::vector<RankReport> out;
  for (const auto& [key, group] : groups) {
    out.push_back(RankFigures(report, group.first, group.second));
  }
  MarkSlowest(&out);
  return out;
}

void MarkSlowest(std::vector<RankReport>* ranks) {
  if (ranks->empty()) return;
  std::vector<RankReport>& out = *ranks;
  bool all_steps = true;
  for (const RankReport& r : out) all_steps &= r.median_step_ns > 0;
  // Longest median step when every rank has steps, else the most GPU busy
  // time.
  size_t slowest = 0;
  for (size_t i = 1; i < out.size(); ++i) {
    const TimeNs a = all_steps ? out[i].median_step_ns : out[i].busy_ns;
    const TimeNs b =
        all_steps ? out[slowest].median_step_ns : out[slowest].busy_ns;
    if (a > b) slowest = i;
  }
  for (RankReport& r : out) r.slowest = false;
  out[slowest].slowest = true;
}

}  // namespace feedprof::analysis
