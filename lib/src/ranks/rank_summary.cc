#include "ranks/rank_summary.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "analysis/analysis_passes.h"
#include "analysis/device_busy.h"
#include "analysis/idle_gap_classifier.h"
#include "analysis/kernel_classifier.h"
#include "ranks/collective_op.h"

namespace feedprof::ranks {
namespace {

// A device's communication kernels, in start order, each with the window
// that led up to it.
struct DeviceCollectives {
  std::vector<size_t> indices;  // into RankSummary::collectives
  std::vector<TimeNs> window_starts;
};

// Adds `device`'s communication kernels to `out`, each with its lead-up:
// the time since the end of the device's previous communication kernel
// (its first op for the first one) and the idle gaps that fall in it.
void AddDeviceCollectives(
    const analysis::PreparedTimeline& prepared,
    const analysis::DeviceView& device, analysis::KernelKinds* kinds,
    std::map<std::pair<int32_t, int64_t>, uint32_t>* stream_ordinals,
    RankSummary* out) {
  const Timeline& tl = prepared.timeline();
  if (device.ops.empty()) return;
  DeviceCollectives mine;
  TimeNs previous_end = device.ops.front().start;
  for (const analysis::OpRef& ref : device.ops) {
    const GpuOp& op = tl.gpu_ops[ref.op];
    if (op.kind != GpuOpKind::kKernel ||
        kinds->Of(op.name) != analysis::KernelKind::kCommunication) {
      continue;
    }
    CollectiveArrival c;
    c.op = CollectiveOpOfKernel(tl.strings.Get(op.name));
    const auto stream = std::make_pair(device.device, op.stream);
    auto [it, added] = stream_ordinals->try_emplace(
        stream, static_cast<uint32_t>(stream_ordinals->size()));
    c.stream_ordinal = it->second;
    c.start = ref.start;
    c.end = ref.end;
    c.lead_up_ns = std::max<TimeNs>(0, ref.start - previous_end);
    mine.indices.push_back(out->collectives.size());
    mine.window_starts.push_back(previous_end);
    previous_end = std::max(previous_end, ref.end);
    out->collectives.push_back(c);
  }
  if (mine.indices.empty()) return;
  const analysis::BusyIntervals busy(device.ops);
  size_t w = 0;
  analysis::ForEachGapOf(prepared, device, busy, [&](const IdleGap& gap) {
    // The first window that ends at or after the gap's end: gaps lie
    // between ops, so one that starts inside it lies wholly inside.
    while (w < mine.indices.size() &&
           out->collectives[mine.indices[w]].start < gap.end) {
      ++w;
    }
    if (w == mine.indices.size()) return;
    if (gap.start < mine.window_starts[w]) return;
    out->collectives[mine.indices[w]].lead_up_idle += gap.by_cause;
  });
}

}  // namespace

RankSummary SummarizeRank(const analysis::AnalysisBeforeReplay& analysed,
                          int32_t rank) {
  const Report& report = analysed.report;
  RankSummary s;
  s.rank = rank;
  s.pids = analysed.prepared.pids();
  s.figures = analysis::RankFigures(report, rank, s.pids);
  s.verdict = report.verdict.primary;
  for (analysis::TaggedNextStep& step :
       analysis::NextStepsFor(report, analysed.signals)) {
    s.next_steps.push_back(std::move(step.text));
  }
  if (report.idle_by_code.available && !report.idle_by_code.top.empty()) {
    s.top_idle_location = report.idle_by_code.top.front().location;
  }
  s.steps = report.steps.steps;
  std::sort(
      s.steps.begin(), s.steps.end(),
      [](const StepInfo& a, const StepInfo& b) { return a.start < b.start; });

  s.step_first_op.assign(s.steps.size(), 0);
  for (const analysis::DeviceView& d : analysed.prepared.devices()) {
    for (size_t i = 0; i < s.steps.size(); ++i) {
      auto first = std::lower_bound(
          d.ops.begin(), d.ops.end(), s.steps[i].start,
          [](const analysis::OpRef& op, TimeNs t) { return op.start < t; });
      if (first == d.ops.end() || first->start >= s.steps[i].end) continue;
      TimeNs& mine = s.step_first_op[i];
      mine = mine == 0 ? first->start : std::min(mine, first->start);
    }
  }

  analysis::KernelKinds kinds(analysed.prepared.timeline().strings);
  std::map<std::pair<int32_t, int64_t>, uint32_t> stream_ordinals;
  for (const analysis::DeviceView& d : analysed.prepared.devices()) {
    AddDeviceCollectives(analysed.prepared, d, &kinds, &stream_ordinals, &s);
  }
  // The ordinals so far follow the devices' order; renumber them by each
  // stream's first kernel.
  std::map<uint32_t, TimeNs> first_start;
  for (const CollectiveArrival& c : s.collectives) {
    auto [it, added] = first_start.try_emplace(c.stream_ordinal, c.start);
    if (!added) it->second = std::min(it->second, c.start);
  }
  std::vector<std::pair<TimeNs, uint32_t>> order;
  for (const auto& [ordinal, start] : first_start) {
    order.emplace_back(start, ordinal);
  }
  std::sort(order.begin(), order.end());
  std::map<uint32_t, uint32_t> renumbered;
  for (size_t i = 0; i < order.size(); ++i) {
    renumbered[order[i].second] = static_cast<uint32_t>(i);
  }
  std::sort(s.collectives.begin(), s.collectives.end(),
            [](const CollectiveArrival& a, const CollectiveArrival& b) {
              return std::tie(a.start, a.end) < std::tie(b.start, b.end);
            });
  std::map<std::pair<CollectiveOp, uint32_t>, uint32_t> sequence;
  size_t step = 0;
  for (CollectiveArrival& c : s.collectives) {
    c.stream_ordinal = renumbered[c.stream_ordinal];
    c.sequence = sequence[{c.op, c.stream_ordinal}]++;
    while (step < s.steps.size() && s.steps[step].end <= c.start) ++step;
    if (step < s.steps.size() && s.steps[step].start <= c.start) {
      c.step = static_cast<int32_t>(step);
    }
  }
  return s;
}

std::string NameOf(const RankSummary& rank) {
  return rank.rank >= 0 || rank.pids.empty()
             ? absl::StrCat("rank ", rank.rank)
             : absl::StrCat("pid ", rank.pids.front());
}

std::vector<ComparedGroup> GroupsToCompare(const Timeline& timeline,
                                           size_t min_groups) {
  std::map<int32_t, int32_t> rank_of_pid;
  for (const Process& p : timeline.processes) rank_of_pid[p.pid] = p.rank;
  std::set<int32_t> gpu_pids;
  int32_t last_pid = 0;
  bool first = true;
  for (const GpuOp& op : timeline.gpu_ops) {
    if (!first && op.pid == last_pid) continue;
    first = false;
    last_pid = op.pid;
    gpu_pids.insert(op.pid);
  }
  std::map<int32_t, std::vector<int32_t>> ranked;  // rank → pids
  std::vector<ComparedGroup> unranked;
  for (int32_t pid : gpu_pids) {
    auto it = rank_of_pid.find(pid);
    if (it != rank_of_pid.end() && it->second >= 0) {
      ranked[it->second].push_back(pid);
    } else {
      unranked.push_back({-1, {pid}});
    }
  }
  // Ranks where the run has them (processes without one beside them are
  // not ranks of the job), else each GPU process.
  std::vector<ComparedGroup> out;
  for (auto& [rank, pids] : ranked) out.push_back({rank, std::move(pids)});
  if (ranked.empty()) out = std::move(unranked);
  if (out.size() < min_groups) out.clear();
  return out;
}

}  // namespace feedprof::ranks
