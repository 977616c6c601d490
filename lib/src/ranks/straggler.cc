#include "ranks/straggler.h"

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "analysis/quantile.h"
#include "common/units.h"

namespace feedprof::ranks {
namespace {

// The share of all waiting the named ranks must cause together.
constexpr double kStragglerWaitShare = 0.6;
// At most this many ranks are named, and fewer than half of them.
constexpr size_t kMaxStragglers = 3;
// A cause must explain this share of the lateness to be named over the
// late rank's own verdict.
constexpr double kCauseMinShare = 0.25;

// The verdict class an idle cause before a late arrival points to (the
// verdict rules' grouping, docs/verdict-rules.md).
VerdictClass ClassOfIdle(IdleCause c) {
  switch (c) {
    case IdleCause::kHostWaitSync:
      return VerdictClass::kSyncBound;
    case IdleCause::kHostWaitCudaApi:
    case IdleCause::kLaunchOverhead:
      return VerdictClass::kLaunchBound;
    case IdleCause::kHostWaitOnCpu:
    case IdleCause::kHostWaitOffCpuWait:
    case IdleCause::kHostWaitUnknown:
      return VerdictClass::kPreprocessingBound;
    case IdleCause::kHostWaitOffCpuIo:
      return VerdictClass::kIoBound;
    case IdleCause::kQueueLatency:
      return VerdictClass::kLatencyBound;
    case IdleCause::kUnattributed:
      return VerdictClass::kInconclusive;
  }
  return VerdictClass::kInconclusive;
}

// What the idle of a cause means, for the explanation.
const char* IdleMeaning(IdleCause c) {
  switch (c) {
    case IdleCause::kHostWaitSync:
      return "its host was blocked in a synchronizing CUDA call";
    case IdleCause::kHostWaitCudaApi:
      return "its host was in other CUDA calls";
    case IdleCause::kHostWaitOnCpu:
      return "its host thread was running its own code (input "
             "preparation, Python)";
    case IdleCause::kHostWaitOffCpuIo:
      return "its host thread was off-CPU in I/O";
    case IdleCause::kHostWaitOffCpuWait:
      return "its host thread was off-CPU waiting on other threads or "
             "processes (a DataLoader, a lock)";
    case IdleCause::kHostWaitUnknown:
      return "its host had not issued the next work (the trace has no CPU "
             "samples to say what it did)";
    case IdleCause::kLaunchOverhead:
      return "its kernels' launches were in flight";
    case IdleCause::kQueueLatency:
      return "work was queued but had not started";
    case IdleCause::kUnattributed:
      return "the trace does not say why";
  }
  return "the trace does not say why";
}

// "0–6", "0, 2, 5–7".
std::string RankRanges(std::vector<int32_t> ranks) {
  std::sort(ranks.begin(), ranks.end());
  std::vector<std::string> parts;
  for (size_t i = 0; i < ranks.size();) {
    size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    if (j == i) {
      parts.push_back(absl::StrCat(ranks[i]));
    } else if (j == i + 1) {
      parts.push_back(absl::StrCat(ranks[i], ", ", ranks[j]));
    } else {
      parts.push_back(absl::StrCat(ranks[i], "–", ranks[j]));
    }
    i = j + 1;
  }
  return absl::StrJoin(parts, ", ");
}

// "rank 3", "ranks 0–2", "pid 145", "pids 144, 146": the summaries at
// `indices`, by rank where they have ranks.
std::string Named(const std::vector<RankSummary>& ranks,
                  const std::vector<size_t>& indices) {
  std::vector<int32_t> numbers;
  const bool by_rank = !indices.empty() && ranks[indices.front()].rank >= 0;
  for (size_t i : indices) {
    numbers.push_back(by_rank ? ranks[i].rank : ranks[i].pids.front());
  }
  if (by_rank) {
    return absl::StrCat(numbers.size() == 1 ? "rank " : "ranks ",
                        RankRanges(numbers));
  }
  std::sort(numbers.begin(), numbers.end());
  return absl::StrCat(numbers.size() == 1 ? "pid " : "pids ",
                      absl::StrJoin(numbers, ", "));
}

bool Contains(const std::vector<size_t>& v, size_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// The late ranks' lead-ups beside the others' at the collectives they
// were last at: summed differences, and the lateness.
struct LatenessSplit {
  TimeNs extra_busy_ns = 0;
  IdleByCause extra_idle;
  std::vector<TimeNs> late_by;
  std::map<CollectiveOp, TimeNs> caused_by_op;
};

LatenessSplit SplitLateness(const std::vector<RankSummary>& ranks,
                            const MatchedRun& run,
                            const std::vector<size_t>& late) {
  LatenessSplit split;
  std::vector<TimeNs> arrivals, busy;
  std::array<std::vector<TimeNs>, kIdleCauses> idle;
  for (const MatchedCollective& m : run.collectives) {
    if (!m.aligned) continue;
    const Participant& last = m.participants[m.last];
    if (!Contains(late, last.rank_index)) continue;
    arrivals.clear();
    busy.clear();
    for (auto& v : idle) v.clear();
    TimeNs caused = 0;
    for (size_t i = 0; i < m.participants.size(); ++i) {
      if (i == m.last) continue;
      const Participant& p = m.participants[i];
      caused += p.wait_ns;
      arrivals.push_back(p.arrival);
      const CollectiveArrival& c =
          ranks[p.rank_index].collectives[p.collective_index];
      busy.push_back(c.lead_up_ns - c.lead_up_idle.Total());
      for (int k = 0; k < kIdleCauses; ++k)
        idle[k].push_back(c.lead_up_idle.ns[k]);
    }
    split.caused_by_op[m.op] += caused;
    split.late_by.push_back(last.arrival - analysis::Quantile(arrivals, 0.5));
    const CollectiveArrival& mine =
        ranks[last.rank_index].collectives[last.collective_index];
    split.extra_busy_ns += (mine.lead_up_ns - mine.lead_up_idle.Total()) -
                           analysis::Quantile(busy, 0.5);
    for (int k = 0; k < kIdleCauses; ++k) {
      split.extra_idle.ns[k] +=
          mine.lead_up_idle.ns[k] - analysis::Quantile(idle[k], 0.5);
    }
  }
  return split;
}

// The class that explains most of the lateness, and the idle cause behind
// it (unset when it is more GPU work); kInconclusive when nothing explains
// kCauseMinShare of it.
std::pair<VerdictClass, std::optional<IdleCause>> CauseOf(
    const LatenessSplit& split) {
  TimeNs lateness = 0;
  for (TimeNs t : split.late_by) lateness += std::max<TimeNs>(0, t);
  std::map<VerdictClass, TimeNs> by_class;
  by_class[VerdictClass::kGpuBound] = split.extra_busy_ns;
  for (int k = 0; k < kIdleCauses; ++k) {
    by_class[ClassOfIdle(static_cast<IdleCause>(k))] += split.extra_idle.ns[k];
  }
  by_class.erase(VerdictClass::kInconclusive);
  auto best = std::max_element(
      by_class.begin(), by_class.end(),
      [](const auto& a, const auto& b) { return a.second < b.second; });
  if (best->second <= 0 || static_cast<double>(best->second) <
                               kCauseMinShare * static_cast<double>(lateness)) {
    return {VerdictClass::kInconclusive, std::nullopt};
  }
  if (best->first == VerdictClass::kGpuBound)
    return {best->first, std::nullopt};
  // The idle cause of that class with the most extra time.
  std::optional<IdleCause> cause;
  for (int k = 0; k < kIdleCauses; ++k) {
    const auto c = static_cast<IdleCause>(k);
    if (ClassOfIdle(c) != best->first) continue;
    if (!cause || split.extra_idle[c] > split.extra_idle[*cause]) cause = c;
  }
  return {best->first, cause};
}

// Per step: the rank that caused the most waiting in it.
std::vector<StepStraggler> StepStragglers(const std::vector<RankSummary>& ranks,
                                          const MatchedRun& run,
                                          size_t waiting_ranks) {
  std::map<int32_t, std::map<uint32_t, TimeNs>> caused;  // step → rank → ns
  for (const MatchedCollective& m : run.collectives) {
    if (!m.aligned) continue;
    const Participant& last = m.participants[m.last];
    const int32_t step =
        ranks[last.rank_index].collectives[last.collective_index].step;
    if (step < 0) continue;
    TimeNs sum = 0;
    for (const Participant& p : m.participants) sum += p.wait_ns;
    caused[step][last.rank_index] += sum;
  }
  std::vector<StepStraggler> out;
  for (const auto& [step, per_rank] : caused) {
    auto top = std::max_element(
        per_rank.begin(), per_rank.end(),
        [](const auto& a, const auto& b) { return a.second < b.second; });
    if (top->second <= 0) continue;
    StepStraggler s;
    s.step = static_cast<uint64_t>(step) + 1;
    s.rank = ranks[top->first].rank;
    s.pid = ranks[top->first].pids.front();
    s.wait_ns = top->second /
                static_cast<TimeNs>(std::max<size_t>(1, waiting_ranks - 1));
    // Its step's first GPU work against the others' (on the first rank's
    // clock).
    std::vector<TimeNs> starts;
    TimeNs mine = 0;
    bool have_mine = false;
    for (size_t r = 0; r < ranks.size(); ++r) {
      const std::vector<TimeNs>& first_ops = ranks[r].step_first_op;
      if (static_cast<size_t>(step) >= first_ops.size() ||
          first_ops[static_cast<size_t>(step)] == 0) {
        continue;
      }
      const TimeNs start =
          first_ops[static_cast<size_t>(step)] - run.clock_offsets[r];
      if (r == top->first) {
        mine = start;
        have_mine = true;
      } else {
        starts.push_back(start);
      }
    }
    if (have_mine && !starts.empty()) {
      s.late_start_ns =
          std::max<TimeNs>(0, mine - analysis::Quantile(starts, 0.5));
    }
    out.push_back(s);
  }
  return out;
}

std::string Explain(const Straggler& s, const std::vector<RankSummary>& ranks,
                    const std::vector<size_t>& named,
                    std::optional<IdleCause> idle_cause, size_t waiting) {
  std::vector<size_t> others;
  for (size_t r = 0; r < ranks.size(); ++r) {
    if (!ranks[r].collectives.empty() && !Contains(named, r)) {
      others.push_back(r);
    }
  }
  std::string others_named = Named(ranks, others);
  if (!others_named.empty()) {
    others_named[0] =
        absl::ascii_toupper(static_cast<unsigned char>(others_named[0]));
  }
  const char* unit =
      !ranks.empty() && ranks.front().rank < 0 ? "process" : "rank";
  std::string text;
  if (s.kind == StragglerKind::kRotating) {
    absl::StrAppend(
        &text,
        "No few ranks keep the others waiting: the last rank to arrive "
        "at collectives changes from step to step. The ranks wait ",
        common::FormatDuration(
            s.caused_wait_ns /
            static_cast<TimeNs>(std::max<size_t>(1, waiting))),
        " each inside collectives over the run.");
  } else {
    absl::StrAppend(
        &text, others.empty() ? std::string("The other ranks") : others_named,
        others.size() == 1 ? " waits " : " wait ",
        s.wait_per_step_ns > 0
            ? common::FormatDuration(s.wait_per_step_ns) + " per step"
            : common::FormatDuration(
                  s.caused_wait_ns /
                  static_cast<TimeNs>(std::max<size_t>(1, waiting - 1))) +
                  (others.size() == 1 ? "" : " each"),
        " inside collectives (", CollectiveOpName(s.main_op), " most) for ",
        Named(ranks, named), ", last at ", s.arrived_last, " of ",
        s.collectives, " collectives, ", common::FormatDuration(s.late_by_ns),
        " after the others (median).");
  }
  if (s.late_start_ns > 0) {
    absl::StrAppend(
        &text, " ",
        s.kind == StragglerKind::kRotating
            ? "The late rank starts its step's GPU work "
            : (named.size() == 1 ? "It starts each step's GPU work "
                                 : "They start each step's GPU work "),
        common::FormatDuration(s.late_start_ns), " after the others (median).");
  }
  const std::string who =
      s.kind == StragglerKind::kRotating
          ? "the late rank's"
          : (named.size() == 1 ? NameOf(ranks[named.front()]) + "'s"
                               : std::string("their"));
  if (s.cause == VerdictClass::kGpuBound) {
    absl::StrAppend(&text, " Before its late arrivals ", who, " GPU ran ",
                    common::FormatDuration(s.extra_busy_ns),
                    " more kernel time than the others' (more work, or a "
                    "slower GPU): gpu_bound on that ",
                    unit, ".");
  } else if (idle_cause.has_value()) {
    TimeNs extra_idle = 0;
    for (TimeNs t : s.extra_idle.ns) extra_idle += std::max<TimeNs>(0, t);
    absl::StrAppend(&text, " Before its late arrivals ", who, " GPU sat idle ",
                    common::FormatDuration(extra_idle),
                    " more than the others', ",
                    common::FormatDuration(s.extra_idle[*idle_cause]),
                    " of it while ", IdleMeaning(*idle_cause), ": ",
                    VerdictClassName(s.cause), " on that ", unit, ".");
  } else if (s.kind != StragglerKind::kRotating) {
    absl::StrAppend(&text,
                    " What it did before arriving does not single out "
                    "a cause; its own verdict is ",
                    VerdictClassName(s.cause), ".");
  }
  if (!s.location.empty()) {
    absl::StrAppend(&text, " While its GPU waited, its code was at ",
                    s.location, ".");
  }
  return text;
}

}  // namespace

std::vector<RankWaits> WaitsOf(const std::vector<RankSummary>& ranks,
                               const MatchedRun& run) {
  std::vector<RankWaits> waits(ranks.size());
  for (const MatchedCollective& m : run.collectives) {
    if (!m.aligned) continue;
    TimeNs caused = 0;
    for (const Participant& p : m.participants) {
      RankWaits& w = waits[p.rank_index];
      ++w.collectives;
      w.wait_ns += p.wait_ns;
      caused += p.wait_ns;
    }
    RankWaits& last = waits[m.participants[m.last].rank_index];
    ++last.arrived_last;
    last.caused_wait_ns += caused;
  }
  return waits;
}

Straggler FindStraggler(const std::vector<RankSummary>& ranks,
                        const MatchedRun& run,
                        const std::vector<RankWaits>& waits) {
  Straggler s;
  if (!run.report.clocks_aligned) return s;
  TimeNs total_wait = 0, total_span = 0;
  size_t waiting = 0;  // ranks with matched collectives
  std::vector<size_t> order;
  for (size_t r = 0; r < ranks.size(); ++r) {
    if (waits[r].collectives == 0) continue;
    ++waiting;
    total_wait += waits[r].wait_ns;
    total_span += ranks[r].figures.span_ns;
    order.push_back(r);
  }
  if (waiting < 2 || total_span <= 0 || total_wait <= 0) return s;
  if (static_cast<double>(total_wait) / static_cast<double>(total_span) <
      kStragglerMinWaitShare) {
    return s;
  }
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return waits[a].caused_wait_ns > waits[b].caused_wait_ns;
  });
  TimeNs covered = 0;
  std::vector<size_t> named;  // summary indices
  for (size_t r : order) {
    if (static_cast<double>(covered) >=
        kStragglerWaitShare * static_cast<double>(total_wait)) {
      break;
    }
    covered += waits[r].caused_wait_ns;
    named.push_back(r);
  }
  if (named.size() == 1) {
    s.kind = StragglerKind::kSingle;
  } else if (named.size() <= kMaxStragglers && named.size() * 2 < waiting) {
    s.kind = StragglerKind::kFew;
  } else {
    s.kind = StragglerKind::kRotating;
  }
  // The ranks whose late arrivals are explained: the named ones, or all
  // when the last rank rotates.
  std::vector<size_t> late = named;
  if (s.kind == StragglerKind::kRotating) {
    late = order;
    named.clear();
  }
  for (size_t r : named) {
    if (ranks[r].rank >= 0) s.ranks.push_back(ranks[r].rank);
    s.pids.push_back(ranks[r].pids.front());
  }
  for (const MatchedCollective& m : run.collectives) {
    if (!m.aligned) continue;
    ++s.collectives;
    if (Contains(late, m.participants[m.last].rank_index)) {
      ++s.arrived_last;
    }
  }
  for (size_t r = 0; r < ranks.size(); ++r) {
    if (Contains(late, r)) s.caused_wait_ns += waits[r].caused_wait_ns;
  }
  LatenessSplit split = SplitLateness(ranks, run, late);
  s.late_by_ns = analysis::Quantile(split.late_by, 0.5);
  s.extra_busy_ns = split.extra_busy_ns;
  s.extra_idle = split.extra_idle;
  if (!split.caused_by_op.empty()) {
    s.main_op =
        std::max_element(
            split.caused_by_op.begin(), split.caused_by_op.end(),
            [](const auto& a, const auto& b) { return a.second < b.second; })
            ->first;
  }
  auto [cause, idle_cause] = CauseOf(split);
  s.steps = StepStragglers(ranks, run, waiting);
  std::vector<TimeNs> late_starts;
  for (const StepStraggler& st : s.steps) {
    for (size_t r : late) {
      if (ranks[r].pids.front() == st.pid) {
        late_starts.push_back(st.late_start_ns);
      }
    }
  }
  s.late_start_ns = analysis::Quantile(late_starts, 0.5);
  // Each waiting rank's wait per step, over the steps with collectives.
  std::set<int32_t> steps;
  for (const MatchedCollective& m : run.collectives) {
    const Participant& last = m.participants[m.last];
    const int32_t step =
        ranks[last.rank_index].collectives[last.collective_index].step;
    if (m.aligned && step >= 0) steps.insert(step);
  }
  if (!steps.empty() && s.kind != StragglerKind::kRotating) {
    s.wait_per_step_ns =
        s.caused_wait_ns / static_cast<TimeNs>((waiting - 1) * steps.size());
  }
  const RankSummary* first = named.empty() ? nullptr : &ranks[named.front()];
  if (cause == VerdictClass::kInconclusive && first != nullptr) {
    cause = first->verdict;
  }
  s.cause = cause;
  if (first != nullptr) {
    s.location = first->top_idle_location;
    s.next_steps = first->next_steps;
  }
  s.explanation = Explain(s, ranks, named, idle_cause, waiting);
  return s;
}

}  // namespace feedprof::ranks
