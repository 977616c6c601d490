#include "ranks/collective_matching.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "analysis/quantile.h"
#include "common/units.h"

namespace feedprof::ranks {
namespace {

// A clock offset below this is left alone: ends line up that closely
// anyway.
constexpr TimeNs kSmallestClockOffsetNs = 50'000;
// At most this many warnings about collective counts; the rest are counted.
constexpr size_t kCountWarnings = 4;

struct Entry {
  CollectiveOp op;
  uint32_t stream_ordinal;
  uint32_t sequence;
  uint32_t rank_index;
  uint32_t collective_index;
  auto Key() const { return std::tie(op, stream_ordinal, sequence); }
};

std::string RankName(const RankSummary& s) {
  return absl::StrCat("rank ", s.rank);
}

// Median of end(r) - end(reference) over the groups both are in; applied
// only when it is large and steady (the ends keep that distance).
std::vector<TimeNs> ClockOffsets(const std::vector<RankSummary>& ranks,
                                 const std::vector<std::vector<Entry>>& groups,
                                 size_t reference,
                                 std::vector<std::string>* warnings) {
  std::vector<std::vector<TimeNs>> diffs(ranks.size());
  for (const std::vector<Entry>& g : groups) {
    const Entry* ref = nullptr;
    for (const Entry& e : g) {
      if (e.rank_index == reference) ref = &e;
    }
    if (ref == nullptr) continue;
    const TimeNs ref_end =
        ranks[reference].collectives[ref->collective_index].end;
    for (const Entry& e : g) {
      if (e.rank_index == reference) continue;
      diffs[e.rank_index].push_back(
          ranks[e.rank_index].collectives[e.collective_index].end - ref_end);
    }
  }
  std::vector<TimeNs> offsets(ranks.size(), 0);
  for (size_t r = 0; r < ranks.size(); ++r) {
    std::vector<TimeNs>& d = diffs[r];
    if (d.empty()) continue;
    const TimeNs offset = analysis::Quantile(d, 0.5);
    const TimeNs magnitude = offset < 0 ? -offset : offset;
    if (magnitude < kSmallestClockOffsetNs) continue;
    std::vector<TimeNs> deviation;
    deviation.reserve(d.size());
    for (TimeNs x : d)
      deviation.push_back(x > offset ? x - offset : offset - x);
    if (analysis::Quantile(deviation, 0.5) > magnitude / 4) continue;
    offsets[r] = offset;
    warnings->push_back(absl::StrCat(
        RankName(ranks[r]), "'s collectives end ",
        common::FormatDuration(magnitude), offset > 0 ? " after " : " before ",
        RankName(ranks[reference]), "'s (median over ", d.size(),
        " collectives): its clock differs by that much (ranks on other "
        "hosts?); its times were moved by it to compare arrivals"));
  }
  return offsets;
}

void CountWarnings(const std::vector<RankSummary>& ranks,
                   const std::vector<Entry>& entries,
                   std::vector<std::string>* warnings) {
  // (op, stream) → rank index → count.
  std::map<std::pair<CollectiveOp, uint32_t>, std::map<uint32_t, uint64_t>>
      counts;
  for (const Entry& e : entries) {
    ++counts[{e.op, e.stream_ordinal}][e.rank_index];
  }
  size_t shown = 0, more = 0;
  for (const auto& [key, per_rank] : counts) {
    std::map<uint64_t, std::vector<uint32_t>> by_count;
    for (const auto& [rank, n] : per_rank) by_count[n].push_back(rank);
    if (by_count.size() < 2) continue;
    if (shown == kCountWarnings) {
      ++more;
      continue;
    }
    ++shown;
    // The most common count is the norm; the others are named.
    auto norm = std::max_element(by_count.begin(), by_count.end(),
                                 [](const auto& a, const auto& b) {
                                   return a.second.size() < b.second.size();
                                 });
    std::vector<std::string> odd;
    for (const auto& [n, rank_indices] : by_count) {
      if (n == norm->first) continue;
      std::vector<std::string> names;
      for (uint32_t r : rank_indices)
        names.push_back(absl::StrCat(ranks[r].rank));
      odd.push_back(absl::StrCat(rank_indices.size() == 1 ? "rank " : "ranks ",
                                 absl::StrJoin(names, ", "), " ",
                                 rank_indices.size() == 1 ? "has " : "have ",
                                 n));
    }
    warnings->push_back(absl::StrCat(
        CollectiveOpName(key.first), " on communication stream ",
        key.second + 1, ": ", absl::StrJoin(odd, "; "), ", the other ranks ",
        norm->first,
        ": collectives are matched in order, so those after a missing one "
        "do not line up and are left out of the waits"));
  }
  if (more > 0) {
    warnings->push_back(absl::StrCat(
        "and ", more,
        " more operations whose collective counts differ between ranks"));
  }
}

}  // namespace

TimeNs EndTolerance(TimeNs shortest_kernel_ns) {
  return 50'000 + shortest_kernel_ns / 10;
}

MatchedRun MatchCollectives(const std::vector<RankSummary>& ranks) {
  MatchedRun run;
  run.clock_offsets.assign(ranks.size(), 0);
  std::vector<Entry> entries;
  size_t reference = ranks.size();
  for (size_t r = 0; r < ranks.size(); ++r) {
    const std::vector<CollectiveArrival>& cs = ranks[r].collectives;
    if (!cs.empty()) {
      ++run.report.ranks;
      if (reference == ranks.size()) reference = r;
    }
    for (size_t i = 0; i < cs.size(); ++i) {
      entries.push_back({cs[i].op, cs[i].stream_ordinal, cs[i].sequence,
                         static_cast<uint32_t>(r), static_cast<uint32_t>(i)});
    }
  }
  if (run.report.ranks < 2) return run;
  run.report.available = true;
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return std::tie(a.op, a.stream_ordinal, a.sequence, a.rank_index) <
           std::tie(b.op, b.stream_ordinal, b.sequence, b.rank_index);
  });
  CountWarnings(ranks, entries, &run.warnings);
  std::vector<std::vector<Entry>> groups;
  for (size_t i = 0; i < entries.size();) {
    size_t j = i + 1;
    while (j < entries.size() && entries[j].Key() == entries[i].Key()) ++j;
    if (j - i >= 2) {
      groups.emplace_back(entries.begin() + static_cast<std::ptrdiff_t>(i),
                          entries.begin() + static_cast<std::ptrdiff_t>(j));
    } else {
      ++run.report.unmatched;
    }
    i = j;
  }
  entries = {};
  run.clock_offsets = ClockOffsets(ranks, groups, reference, &run.warnings);

  std::vector<TimeNs> spreads;
  spreads.reserve(groups.size());
  run.collectives.reserve(groups.size());
  for (const std::vector<Entry>& g : groups) {
    MatchedCollective m;
    m.op = g.front().op;
    TimeNs first_end = 0, last_end = 0, shortest = 0;
    for (size_t i = 0; i < g.size(); ++i) {
      const CollectiveArrival& c =
          ranks[g[i].rank_index].collectives[g[i].collective_index];
      const TimeNs offset = run.clock_offsets[g[i].rank_index];
      Participant p{g[i].rank_index, g[i].collective_index, c.start - offset,
                    c.end - offset, 0};
      if (i == 0 || p.arrival > m.last_arrival) {
        m.last_arrival = p.arrival;
        m.last = static_cast<uint32_t>(i);
      }
      first_end = i == 0 ? p.end : std::min(first_end, p.end);
      last_end = i == 0 ? p.end : std::max(last_end, p.end);
      const TimeNs length = c.end - c.start;
      shortest = i == 0 ? length : std::min(shortest, length);
      m.participants.push_back(p);
    }
    for (Participant& p : m.participants) {
      p.wait_ns =
          std::max<TimeNs>(0, std::min(m.last_arrival, p.end) - p.arrival);
    }
    m.end_spread_ns = last_end - first_end;
    m.aligned = m.end_spread_ns <= EndTolerance(shortest);
    if (!m.aligned) ++run.report.unaligned;
    spreads.push_back(m.end_spread_ns);
    run.collectives.push_back(std::move(m));
  }
  run.report.matched = run.collectives.size();
  run.report.median_end_spread_ns = analysis::Quantile(spreads, 0.5);
  run.report.clocks_aligned = run.report.unaligned * 2 <= run.report.matched;
  if (!run.report.clocks_aligned) {
    run.warnings.push_back(absl::StrCat(
        "the ends of ", run.report.unaligned, " of ", run.report.matched,
        " collectives matched across ranks do not line up (median spread ",
        common::FormatDuration(run.report.median_end_spread_ns),
        "): the ranks' clocks cannot be aligned, or they form several "
        "communicators told apart by nothing in the trace; the waits at "
        "collectives and the rank waited for are not computed"));
  }
  std::sort(run.collectives.begin(), run.collectives.end(),
            [](const MatchedCollective& a, const MatchedCollective& b) {
              return a.last_arrival < b.last_arrival;
            });
  return run;
}

}  // namespace feedprof::ranks
